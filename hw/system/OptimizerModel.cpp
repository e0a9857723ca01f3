#include "hw/system/OptimizerModel.h"

#include <stdexcept>

namespace wsesim::system {
namespace {

// All state in fp32 (4 bytes). The gradient is read from where SwarmX
// delivered it; counted among the bytes touched, not among those stored.
const std::vector<OptimizerModel>& optimizers() {
  static const std::vector<OptimizerModel> table = {
      // w -= lr * g: stores w; reads w, g, writes w; a multiply and a subtract.
      {"sgd", 4, 3 * 4, 2},
      // m = b1 m + (1 - b1) g (3 FLOPs); v = b2 v + (1 - b2) g^2 (4);
      // w -= lr' m / (sqrt(v) + eps) (5, bias correction folded into lr').
      // Stores w, m, v; reads w, g, m, v, writes w, m, v.
      {"adam", 3 * 4, 7 * 4, 12},
  };
  return table;
}

}  // namespace

const OptimizerModel& optimizerModel(const std::string& name) {
  for (const OptimizerModel& o : optimizers())
    if (o.name == name) return o;
  std::string known;
  for (const std::string& n : optimizerNames()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown optimizer '" + name + "'; known: " + known);
}

std::vector<std::string> optimizerNames() {
  std::vector<std::string> names;
  for (const OptimizerModel& o : optimizers()) names.push_back(o.name);
  return names;
}

}  // namespace wsesim::system
