#pragma once
// A run's timeline in the Chrome trace event format (JSON), which Perfetto
// (ui.perfetto.dev) and chrome://tracing open, for runs too long to read as
// a waveform. Per PE of a region of interest: a track of the tasks it ran
// and a counter of the hardware threads holding an op; per router of the
// region: counters of the wavelets each output sent per window of cycles
// and of its PE's power (mW, EnergyModel::peEnergyPj over the window; its ops
// and SRAM when the PE array keeps each PE's actions), with the
// region's total power on the workload's track; and the spans the workload
// adds (its phases). Times are the simulated
// times of the cycles (the clock from the architecture); each event also
// carries its cycle.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "hw/config/ArchConfig.h"
#include "hw/config/RunConfig.h"
#include "hw/energy/EnergyModel.h"
#include "hw/fabric/FabricKernel.h"
#include "hw/pe/PeArray.h"
#include "hw/sim/CycleDriver.h"

namespace wsesim::trace {

class TimelineRecorder : public sim::CycleObserver {
 public:
  // `pes` may be null (a fabric-only run). `linkWindow`: cycles per link counter sample.
  TimelineRecorder(const config::ArchConfig& arch, const config::Region& region, const fabric::FabricKernel& fabric,
                   const pe::PeArray* pes, std::uint64_t linkWindow);

  void sample(std::uint64_t cycle) override;
  // A span on the workload's track, e.g. a phase, or on a lane of its own
  // under the workload (e.g. "MemoryX streams").
  void addSpan(const std::string& name, std::uint64_t begin, std::uint64_t end, const std::string& lane = "");
  // Ends what is still open at cycle `end` and writes the JSON document.
  void write(std::ostream& out, std::uint64_t end);

 private:
  struct TracedPe {
    fabric::RouterId id;
    int task = -1;  // running since `taskSince`
    std::uint64_t taskSince = 0;
    std::uint64_t tasksRun = 0;  // the PE's count, to tell back-to-back runs of one task apart
    unsigned threads = 0;
    std::uint32_t sent[fabric::kPortCount] = {};  // transfers at the last link sample
    std::uint64_t hopsOut = 0, delivered = 0;     // since the start, to the last link sample
    double energyPj = 0;                          // likewise
  };
  struct Span {
    std::string name;
    unsigned track;  // 0: the workload, i + 1: traced PE i
    unsigned lane;   // in the workload: 0 its own, i + 1: lanes_[i]
    std::uint64_t begin, end;
  };
  struct Counter {
    const char* name;
    unsigned track;
    std::uint64_t cycle;
    std::uint64_t value;
  };

  void endTask(TracedPe& pe, std::uint64_t cycle);
  void sampleLinks(std::uint64_t cycle);
  // Adds the PE's power over the window that ends at `cycle` (its
  // counters already advanced to it) to its track; returns it in mW.
  std::uint64_t samplePower(TracedPe& pe, std::uint64_t cycle, std::uint64_t windowCycles);
  double micros(std::uint64_t cycle) const { return double(cycle) * secondsPerCycle_ * 1e6; }

  energy::EnergyModel energy_;
  const fabric::FabricKernel& fabric_;
  const pe::PeArray* pes_;
  fabric::MeshGeometry mesh_;
  double secondsPerCycle_;
  std::uint64_t linkWindow_;
  std::uint64_t nextLinkSample_;
  std::vector<TracedPe> traced_;
  std::vector<Span> spans_;
  std::vector<std::string> lanes_;
  std::vector<Counter> counters_;
};

}  // namespace wsesim::trace
