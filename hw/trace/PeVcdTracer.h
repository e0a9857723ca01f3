#pragma once
// Waveforms of the PEs in a region of interest, through sc_trace: per PE,
// busy, the running task (Z when none), the hardware threads holding an
// op, and the SRAM bytes allocated.

#include <systemc>

#include <string>
#include <vector>

#include "hw/config/RunConfig.h"
#include "hw/pe/PeArray.h"
#include "hw/wafer/WaveformObserver.h"

namespace wsesim::trace {

class PeVcdTracer : public wafer::WaveformObserver {
 public:
  PeVcdTracer(sc_core::sc_trace_file* file, const std::string& prefix, const fabric::MeshGeometry& mesh,
              const config::Region& region, const pe::PeArray& pes);

  void sample(std::uint64_t cycle) override;

 private:
  struct TracedPe {
    fabric::RouterId id;
    bool busy = false;
    sc_dt::sc_lv_base task{6};  // task IDs are below 64
    unsigned threads = 0;
    std::uint64_t sramUsed = 0;
  };

  const pe::PeArray& pes_;
  std::vector<TracedPe> traced_;
};

}  // namespace wsesim::trace
