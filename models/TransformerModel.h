#pragma once
// A transformer's public shape, as one file of the model zoo
// (models/zoo/NAME.yaml) describes it, and the parameter count it implies.
// A user adds a model by writing one file; a file with an unknown key, a
// missing or out-of-range value, an inconsistent shape, or a parameter count
// more than 2% from its published size is rejected with the key named.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "hw/common/EnumNames.h"
#include "hw/common/Error.h"

namespace wsesim::models {

class ModelError : public Error {
 public:
  using Error::Error;
};

// The FFN: GELU(X W_up) W_down, or SwiGLU's (silu(X W_gate) * X W_up) W_down
// with a third weight matrix (Shazeer 2020; Llama).
enum class Ffn : std::uint8_t { Gelu, Swiglu };
inline constexpr EnumName<Ffn> kFfnNames[] = {{Ffn::Gelu, "gelu"}, {Ffn::Swiglu, "swiglu"}};
// Layer norm (scale and shift) or RMS norm (scale only, no mean subtracted).
enum class Norm : std::uint8_t { LayerNorm, RmsNorm };
inline constexpr EnumName<Norm> kNormNames[] = {{Norm::LayerNorm, "layernorm"}, {Norm::RmsNorm, "rmsnorm"}};
// A layer's attention then FFN, each after its own norm (sequential), or
// both from one norm of the layer input, their outputs added to it
// (parallel: GPT-J's block, one layer norm; Wang and Komatsuzaki 2021).
// GPT-NeoX's parallel block keeps two norms, so its GEMMs, norms and kept
// inputs are the sequential block's.
enum class Block : std::uint8_t { Sequential, Parallel };
inline constexpr EnumName<Block> kBlockNames[] = {{Block::Sequential, "sequential"}, {Block::Parallel, "parallel"}};

struct TransformerModel {
  std::string name, description;
  std::uint32_t layers = 0;
  std::uint32_t dModel = 0;
  std::uint32_t heads = 0;
  std::uint32_t headDim = 0;  // d_model / heads unless the file says otherwise (GPT-3 13B: 128 for 5140 / 40)
  std::uint32_t dFf = 0;
  std::uint32_t vocab = 0;
  std::uint32_t seq = 0;  // the context length it was trained with
  bool learnedPositions = true;
  bool tiedEmbeddings = true;
  Ffn ffn = Ffn::Gelu;
  Norm norm = Norm::LayerNorm;
  bool biases = true;  // in QKV, the attention output and the FFN's matrices (not in the norms)
  Block block = Block::Sequential;
  double publishedParameters = 0;

  // The width of Q, K, V and the attention output: heads x head_dim.
  std::uint32_t attentionWidth() const { return heads * headDim; }
  std::uint32_t normsPerLayer() const { return block == Block::Parallel ? 1 : 2; }
  // Embeddings (tokens, learned positions), per layer attention (QKV and
  // output) and FFN (two or, SwiGLU, three matrices), each with biases
  // unless `biases` is false, and two norms (one in a parallel block), the
  // final norm, and an untied output embedding.
  std::uint64_t parameters() const;

  static TransformerModel fromFile(const std::filesystem::path& file);
};

// models/zoo in the source tree, or $WSESIM_MODEL_DIR.
std::filesystem::path defaultModelDir();
std::vector<std::string> modelNames(const std::filesystem::path& dir);
// A zoo name (NAME.yaml in `dir`) or a path to a model file.
TransformerModel loadModel(const std::string& nameOrPath, const std::filesystem::path& dir = defaultModelDir());

}  // namespace wsesim::models
