#include "hw/trace/PeVcdTracer.h"

namespace wsesim::trace {

PeVcdTracer::PeVcdTracer(sc_core::sc_trace_file* file, const std::string& prefix, const fabric::MeshGeometry& mesh,
                         const config::Region& region, const pe::PeArray& pes)
    : pes_(pes) {
  for (std::uint32_t y = region.y0; y <= region.y1; ++y)
    for (std::uint32_t x = region.x0; x <= region.x1; ++x) {
      TracedPe t;
      t.id = mesh.id(x, y);
      traced_.push_back(t);
    }
  // Register only after the vector is complete: sc_trace keeps references.
  for (TracedPe& t : traced_) {
    const std::string base =
        prefix + ".pe" + std::to_string(mesh.xOf(t.id)) + "_" + std::to_string(mesh.yOf(t.id));
    sc_core::sc_trace(file, t.busy, base + ".busy");
    sc_core::sc_trace(file, t.task, base + ".task");
    sc_core::sc_trace(file, t.threads, base + ".threads_busy", 6);
    sc_core::sc_trace(file, t.sramUsed, base + ".sram_used", 32);
  }
  sample(0);
}

void PeVcdTracer::sample(std::uint64_t) {
  for (TracedPe& t : traced_) {
    const pe::PeActivity a = pes_.activity(t.id);
    t.busy = a.busy;
    if (a.task < 0)
      for (int b = 0; b < t.task.length(); ++b) t.task.set_bit(b, sc_dt::Log_Z);
    else
      t.task = a.task;
    t.threads = a.threadsBusy;
    t.sramUsed = a.sramUsed;
  }
}

}  // namespace wsesim::trace
