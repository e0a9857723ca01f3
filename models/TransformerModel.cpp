#include "models/TransformerModel.h"

#include "hw/config/StrictYaml.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

namespace wsesim::models {
namespace {

// Reads the keys of one model file, naming the file and key in every error.
class ModelFileReader {
 public:
  ModelFileReader(const YAML::Node& root, std::string file) : root_(root), file_(std::move(file)) {
    if (!root_.IsMap()) fail("", "the file must be a mapping of keys to values");
  }

  std::uint32_t count(const std::string& key, std::uint32_t lo, std::uint32_t hi) {
    const double v = number(key);
    if (v != std::floor(v) || v < lo || v > hi)
      fail(key, "must be a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                    text(key));
    return std::uint32_t(v);
  }
  std::uint32_t optionalCount(const std::string& key, std::uint32_t lo, std::uint32_t hi, std::uint32_t otherwise) {
    return root_[key] ? count(key, lo, hi) : otherwise;
  }
  double number(const std::string& key) {
    const YAML::Node node = require(key);
    try {
      return node.as<double>();
    } catch (const YAML::Exception&) {
      fail(key, "must be a number, got " + text(key));
    }
  }
  bool flag(const std::string& key) {
    const YAML::Node node = require(key);
    try {
      return node.as<bool>();
    } catch (const YAML::Exception&) {
      fail(key, "must be true or false, got " + text(key));
    }
  }
  std::string choice(const std::string& key, const std::vector<std::string>& allowed) {
    const std::string v = string(key);
    if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
      std::string list;
      for (const std::string& a : allowed) list += (list.empty() ? "" : " | ") + a;
      fail(key, "must be " + list + ", got " + v);
    }
    return v;
  }
  template <class E, std::size_t N>
  E optionalChoice(const std::string& key, const EnumName<E> (&names)[N], E otherwise) {
    return root_[key] ? *valueOf(names, choice(key, namesOf(names))) : otherwise;
  }
  bool optionalFlag(const std::string& key, bool otherwise) { return root_[key] ? flag(key) : otherwise; }
  std::string string(const std::string& key) {
    const YAML::Node node = require(key);
    if (!node.IsScalar()) fail(key, "must be a text");
    return node.Scalar();
  }
  // After every known key is read: anything else is a typo or an unsupported feature.
  void rejectUnknownKeys() const {
    for (const auto& kv : root_) {
      const std::string key = kv.first.Scalar();
      if (!read_.count(key)) fail(key, "is not a model key (layers, d_model, heads, head_dim, d_ff, vocab, seq, "
                                       "positions, tied_embeddings, ffn, norm, bias, block, parameters, name, "
                                       "description)");
    }
  }
  [[noreturn]] void fail(const std::string& key, const std::string& why) const {
    throw ModelError(file_ + (key.empty() ? "" : ": " + key) + ": " + why);
  }

 private:
  YAML::Node require(const std::string& key) {
    read_.insert(key);
    const YAML::Node node = root_[key];
    if (!node) fail(key, "is missing");
    return node;
  }
  std::string text(const std::string& key) const { return root_[key].IsScalar() ? root_[key].Scalar() : "a structure"; }

  YAML::Node root_;
  std::string file_;
  std::set<std::string> read_;
};

}  // namespace

std::uint64_t TransformerModel::parameters() const {
  const std::uint64_t d = dModel, a = attentionWidth(), ff = dFf;
  const std::uint64_t embeddings = std::uint64_t(vocab) * d + (learnedPositions ? std::uint64_t(seq) * d : 0);
  // A bias, where the model has them, per output column of each matrix.
  const std::uint64_t attention = d * 3 * a + a * d + (biases ? 3 * a + d : 0);
  const std::uint64_t upMatrices = ffn == Ffn::Swiglu ? 2 : 1;  // SwiGLU's gate beside up
  const std::uint64_t feedForward = upMatrices * (d * ff + (biases ? ff : 0)) + ff * d + (biases ? d : 0);
  const std::uint64_t perNorm = norm == Norm::LayerNorm ? 2 * d : d;  // scale and shift, or scale only
  return embeddings + layers * (attention + feedForward + normsPerLayer() * perNorm) + perNorm +
         (tiedEmbeddings ? 0 : std::uint64_t(vocab) * d);
}

TransformerModel TransformerModel::fromFile(const std::filesystem::path& file) {
  YAML::Node root;
  try {
    root = yaml::loadOneDocument(yaml::readTextFile(file, "model file"), file.string());
  } catch (const yaml::YamlError& e) {
    throw ModelError(e.what());
  }
  ModelFileReader r(root, file.string());
  TransformerModel m;
  m.name = r.string("name");
  if (m.name != file.stem().string())
    r.fail("name", "'" + m.name + "' must match the file's name (" + file.filename().string() + ")");
  m.description = r.string("description");
  m.layers = r.count("layers", 1, 1000);
  m.dModel = r.count("d_model", 1, 1u << 20);
  m.heads = r.count("heads", 1, 4096);
  if (!root["head_dim"] && m.dModel % m.heads != 0)
    r.fail("heads", std::to_string(m.heads) + " heads do not divide d_model " + std::to_string(m.dModel) +
                        "; give head_dim");
  m.headDim = r.optionalCount("head_dim", 1, 1u << 16, m.dModel / m.heads);
  m.dFf = r.count("d_ff", 1, 1u << 22);
  m.vocab = r.count("vocab", 1, 1u << 24);
  m.seq = r.count("seq", 1, 1u << 20);
  m.learnedPositions = r.choice("positions", {"learned", "rotary"}) == "learned";
  m.tiedEmbeddings = r.flag("tied_embeddings");
  m.ffn = r.optionalChoice("ffn", kFfnNames, Ffn::Gelu);
  m.norm = r.optionalChoice("norm", kNormNames, Norm::LayerNorm);
  m.biases = r.optionalFlag("bias", true);
  m.block = r.optionalChoice("block", kBlockNames, Block::Sequential);
  m.publishedParameters = r.number("parameters");
  r.rejectUnknownKeys();
  // Written so that NaN fails too (it compares false with everything).
  if (!(m.publishedParameters > 0 && std::isfinite(m.publishedParameters)))
    r.fail("parameters", "must be a positive finite number");
  const double computed = double(m.parameters());
  if (std::abs(computed - m.publishedParameters) > 0.02 * m.publishedParameters) {
    std::ostringstream why;
    why << "the shape gives " << std::uint64_t(computed) << " parameters, "
        << 100 * (computed - m.publishedParameters) / m.publishedParameters << "% from the published "
        << m.publishedParameters << " (at most 2% allowed): check the shape keys";
    r.fail("parameters", why.str());
  }
  return m;
}

std::filesystem::path defaultModelDir() {
  if (const char* dir = std::getenv("WSESIM_MODEL_DIR"); dir && *dir) return dir;
  return WSESIM_MODEL_DIR;
}

std::vector<std::string> modelNames(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

TransformerModel loadModel(const std::string& nameOrPath, const std::filesystem::path& dir) {
  // A zoo name is looked up in the listing, not turned into a path (a name
  // too long for a file name would make the file system throw).
  const std::vector<std::string> zoo = modelNames(dir);
  if (std::find(zoo.begin(), zoo.end(), nameOrPath) != zoo.end())
    return TransformerModel::fromFile(dir / (nameOrPath + ".yaml"));
  std::error_code ignored;
  if (nameOrPath.find('/') != std::string::npos || std::filesystem::exists(nameOrPath, ignored))
    return TransformerModel::fromFile(nameOrPath);
  std::string known;
  for (const std::string& n : zoo) known += (known.empty() ? "" : ", ") + n;
  if (!std::filesystem::is_directory(dir, ignored))
    known = "no such directory; $WSESIM_MODEL_DIR, if set, names it";
  else if (zoo.empty())
    known = "it holds no models (NAME.yaml)";
  throw ModelError("no model '" + nameOrPath + "' in " + dir.string() + " (" + known + "); give a zoo name or a file");
}

}  // namespace wsesim::models
