#pragma once
// Waveforms of the routers in a region of interest, through sc_trace: per
// router, the occupancy of each input port's queues (all colors) and, per
// output link, the color of the wavelet it carried this cycle (Z when idle).
// It observes the kernel from outside (a LinkObserver of its transfers, a
// waveform of the wafer); the kernel keeps no trace state.

#include <systemc>

#include <string>
#include <vector>

#include "hw/config/RunConfig.h"
#include "hw/fabric/FabricKernel.h"
#include "hw/wafer/WaveformObserver.h"

namespace wsesim::trace {

class FabricVcdTracer : public fabric::LinkObserver, public wafer::WaveformObserver {
 public:
  // Traces `fabric`'s routers of `region` (its mesh and color field are
  // the fabric's); the fabric must outlive the tracer, which must be its
  // LinkObserver to see the links' colors.
  FabricVcdTracer(sc_core::sc_trace_file* file, const std::string& prefix, const config::Region& region,
                  const fabric::FabricKernel& fabric);

  // Marks every traced link idle at the start of a cycle.
  void beginCycle() override;
  void onTransfer(fabric::RouterId from, fabric::Port output, unsigned color) override;
  // Copies queue occupancies at the end of a cycle.
  void sample(std::uint64_t cycle) override;

 private:
  struct TracedRouter {
    fabric::RouterId id;
    unsigned occupancy[fabric::kPortCount] = {};
    std::vector<sc_dt::sc_lv_base> linkColor;  // per output port
  };

  TracedRouter* find(fabric::RouterId r);

  const fabric::FabricKernel& fabric_;
  fabric::MeshGeometry mesh_;
  config::Region region_;
  unsigned colorBits_;
  std::vector<TracedRouter> routers_;  // row-major over the region
};

}  // namespace wsesim::trace
