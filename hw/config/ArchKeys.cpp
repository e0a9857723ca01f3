#include "hw/config/ArchKeys.h"

namespace wsesim::config {

const common::KeyTable<fabric::MeshGeometry>& meshKeys() {
  using Key = common::Key<fabric::MeshGeometry>;
  // Coordinates travel in 16-bit wavelet fields.
  static const common::KeyTable<fabric::MeshGeometry> keys = {"arch.mesh.", {
      Key::integer("width", 1, 65535, [](fabric::MeshGeometry& m, std::int64_t v) { m.width = std::uint32_t(v); },
                   "PEs per row (x)"),
      Key::integer("height", 1, 65535, [](fabric::MeshGeometry& m, std::int64_t v) { m.height = std::uint32_t(v); },
                   "rows (y)"),
  }, {}};
  return keys;
}

const common::KeyTable<ArchConfig::Firmware>& firmwareKeys() {
  using Key = common::Key<ArchConfig::Firmware>;
  using F = ArchConfig::Firmware;
  static const common::KeyTable<F> keys = {"arch.firmware.", {
      Key::integer("summa_loop_cycles", 0, 1024, [](F& f, std::int64_t v) { f.summaLoopCycles = unsigned(v); },
                   "cycles the SUMMA program's own loop spends before each op it issues (scalar bookkeeping), on top "
                   "of `arch.pe.op_overhead_cycles`"),
      Key::integer("cannon_loop_cycles", 0, 1024, [](F& f, std::int64_t v) { f.cannonLoopCycles = unsigned(v); },
                   "the same for the Cannon program"),
      Key::integer("meshgemm_loop_cycles", 0, 1024, [](F& f, std::int64_t v) { f.meshGemmLoopCycles = unsigned(v); },
                   "the same for the MeshGEMM program"),
      Key::integer("weight_stream_loop_cycles", 0, 1024,
                   [](F& f, std::int64_t v) { f.weightStreamLoopCycles = unsigned(v); },
                   "the same for the weight-streaming programs (forward, backward-data, weight-gradient): a data task "
                   "per arriving wavelet"),
      Key::choice("weight_stream_reduction", [] { return namesOf(kReductionNames); },
                  [](F& f, const std::string& v) { f.weightStreamReduction = *valueOf(kReductionNames, v); },
                  "how a weight-streamed pass's partial sums reach a target column with columns on both sides: "
                  "`meet` (from both sides at once: the target takes two streams), `fold` (one chain along the whole "
                  "row past the target, its last column sending the total back: every PE takes one stream, over a "
                  "longer path) or `auto` (pass by pass, the plan's estimate of the faster, docs/gemm-mappings.md)"),
      Key::integer("weight_grad_slices", 1, 64, [](F& f, std::int64_t v) { f.weightGradSlices = unsigned(v); },
                   "the most slices the weight-gradient program runs a block's n's in, as many as the plan's estimate "
                   "says pay: a PE sends a slice's partial sums down its column while it runs the next slice's AXPYs, "
                   "and each slice adds a token loop (1: a block's sums after its last AXPY; docs/gemm-mappings.md)"),
  }, {}};
  return keys;
}

}  // namespace wsesim::config
