#include "hw/trace/FabricVcdTracer.h"

namespace wsesim::trace {

FabricVcdTracer::FabricVcdTracer(sc_core::sc_trace_file* file, const std::string& prefix,
                                 const config::Region& region, const fabric::FabricKernel& fabric)
    : fabric_(fabric), mesh_(fabric.params().mesh), region_(region), colorBits_(fabric.params().colorBits) {
  routers_.reserve(std::size_t(region.x1 - region.x0 + 1) * (region.y1 - region.y0 + 1));
  for (std::uint32_t y = region.y0; y <= region.y1; ++y)
    for (std::uint32_t x = region.x0; x <= region.x1; ++x) {
      TracedRouter t;
      t.id = mesh_.id(x, y);
      t.linkColor.assign(fabric::kPortCount, sc_dt::sc_lv_base(int(colorBits_)));
      routers_.push_back(std::move(t));
    }
  // Register only after the vector is complete: sc_trace keeps references.
  for (TracedRouter& t : routers_) {
    const std::string base = prefix + ".r" + std::to_string(mesh_.xOf(t.id)) + "_" + std::to_string(mesh_.yOf(t.id));
    for (unsigned p = 0; p < fabric::kPortCount; ++p) {
      const std::string port = fabric::portName(fabric::Port(p));
      sc_core::sc_trace(file, t.occupancy[p], base + ".in_" + port + "_queued", 16);
      sc_core::sc_trace(file, t.linkColor[p], base + ".out_" + port + "_color");
    }
  }
  beginCycle();
}

FabricVcdTracer::TracedRouter* FabricVcdTracer::find(fabric::RouterId r) {
  const std::uint32_t x = mesh_.xOf(r), y = mesh_.yOf(r);
  if (!region_.contains(x, y)) return nullptr;
  return &routers_[std::size_t(y - region_.y0) * (region_.x1 - region_.x0 + 1) + (x - region_.x0)];
}

void FabricVcdTracer::beginCycle() {
  for (TracedRouter& t : routers_)
    for (sc_dt::sc_lv_base& color : t.linkColor)
      for (int b = 0; b < color.length(); ++b) color.set_bit(b, sc_dt::Log_Z);
}

void FabricVcdTracer::onTransfer(fabric::RouterId from, fabric::Port output, unsigned color) {
  if (TracedRouter* t = find(from)) t->linkColor[unsigned(output)] = color;
}

void FabricVcdTracer::sample(std::uint64_t) {
  for (TracedRouter& t : routers_)
    for (unsigned p = 0; p < fabric::kPortCount; ++p) t.occupancy[p] = fabric_.occupancy(t.id, fabric::Port(p));
}

}  // namespace wsesim::trace
