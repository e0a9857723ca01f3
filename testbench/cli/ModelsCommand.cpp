#include <cstdio>
#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "hw/common/MessageText.h"
#include "models/TransformerModel.h"
#include "testbench/cli/Cli.h"
#include "testbench/cli/ListingCommand.h"

namespace wsesim::cli {
namespace {

std::string shortCount(double n) {
  char text[32];
  if (n >= 1e9) std::snprintf(text, sizeof text, "%.3gB", n / 1e9);
  else if (n >= 1e6) std::snprintf(text, sizeof text, "%.3gM", n / 1e6);
  else std::snprintf(text, sizeof text, "%.0f", n);
  return text;
}

std::string tableLine(const std::string& name, const models::TransformerModel& m) {
  char line[256];
  std::snprintf(line, sizeof line, "%-13s %6u %7u %5u %6u %7u %6u %15llu %10s  %s\n", name.c_str(), m.layers,
                m.dModel, m.heads, m.dFf, m.vocab, m.seq, (unsigned long long)m.parameters(),
                shortCount(m.publishedParameters).c_str(), m.description.c_str());
  return line;
}

nlohmann::json jsonEntry(const std::string& name, const std::filesystem::path& dir,
                         const models::TransformerModel& m) {
  return {{"name", name},
          {"file", (dir / (name + ".yaml")).string()},
          {"description", m.description},
          {"layers", m.layers},
          {"d_model", m.dModel},
          {"heads", m.heads},
          {"d_ff", m.dFf},
          {"vocab", m.vocab},
          {"seq", m.seq},
          {"ffn", nameOf(models::kFfnNames, m.ffn)},
          {"norm", nameOf(models::kNormNames, m.norm)},
          {"bias", m.biases},
          {"parameters", m.parameters()},
          {"published_parameters", m.publishedParameters}};
}

}  // namespace

int modelsCommand(int argc, char** argv, std::ostream& out, std::ostream& err) {
  const std::optional<ListingFormat> format = parseListingFormat(argc, argv, err);
  if (!format) return kUsageError;
  const std::filesystem::path dir = models::defaultModelDir();
  const std::vector<std::string> names = models::modelNames(dir);
  if (names.empty()) {
    err << "wsesim: no models found in " << dir.string() << " (set WSESIM_MODEL_DIR)\n";
    return kConfigError;
  }
  std::string table;
  nlohmann::json entries = nlohmann::json::array();
  for (const std::string& name : names) {
    try {
      const models::TransformerModel model = models::loadModel(name, dir);
      table += tableLine(name, model);
      entries.push_back(jsonEntry(name, dir, model));
    } catch (const models::ModelError& e) {
      err << "wsesim: " << oneLine(e.what()) << "\n";
      return kConfigError;
    }
  }
  if (format == ListingFormat::kJson) {
    out << listingDocument("model_dir", dir, "models", std::move(entries)).dump(2) << "\n";
    return kOk;
  }
  char header[256];
  std::snprintf(header, sizeof header, "%-13s %6s %7s %5s %6s %7s %6s %15s %10s  %s\n", "model", "layers",
                "d_model", "heads", "d_ff", "vocab", "seq", "parameters", "published", "description");
  out << "models in " << dir.string() << "\n" << header << table;
  return kOk;
}

}  // namespace wsesim::cli
