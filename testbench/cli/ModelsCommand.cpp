#include <cstdio>
#include <ostream>
#include <string>

#include "models/TransformerModel.h"
#include "testbench/cli/Cli.h"

namespace wsesim::cli {
namespace {

std::string shortCount(double n) {
  char text[32];
  if (n >= 1e9) std::snprintf(text, sizeof text, "%.3gB", n / 1e9);
  else if (n >= 1e6) std::snprintf(text, sizeof text, "%.3gM", n / 1e6);
  else std::snprintf(text, sizeof text, "%.0f", n);
  return text;
}

}  // namespace

int modelsCommand(std::ostream& out, std::ostream& err) {
  const std::filesystem::path dir = models::defaultModelDir();
  const std::vector<std::string> names = models::modelNames(dir);
  if (names.empty()) {
    err << "wsesim: no models found in " << dir.string() << " (set WSESIM_MODEL_DIR)\n";
    return kConfigError;
  }
  char line[256];
  std::snprintf(line, sizeof line, "%-13s %6s %7s %5s %6s %7s %6s %15s %10s  %s\n", "model", "layers", "d_model",
                "heads", "d_ff", "vocab", "seq", "parameters", "published", "description");
  out << "models in " << dir.string() << "\n" << line;
  for (const std::string& name : names) {
    try {
      const models::TransformerModel m = models::loadModel(name, dir);
      std::snprintf(line, sizeof line, "%-13s %6u %7u %5u %6u %7u %6u %15llu %10s  %s\n", name.c_str(), m.layers,
                    m.dModel, m.heads, m.dFf, m.vocab, m.seq, (unsigned long long)m.parameters(),
                    shortCount(m.publishedParameters).c_str(), m.description.c_str());
      out << line;
    } catch (const models::ModelError& e) {
      err << "wsesim: " << e.what() << "\n";
      return kConfigError;
    }
  }
  return kOk;
}

}  // namespace wsesim::cli
