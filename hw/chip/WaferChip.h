#pragma once
// The chip a workload runs on: the one place that builds and wires the
// wafer. It owns the color route table, the cycle loop (fabric kernel) and
// the Wafer module that runs it in SystemC (ChipParts::systemc), the PE
// array, the I/O ring's edges the workload asks for and the tracers; it
// connects them (the fabric delivers to the PEs, or to the workload's
// traffic when there are none; the egress edge takes what leaves the mesh),
// fixes what happens in every cycle, runs the simulation and checks that
// the PEs ended quiescent. A workload supplies only what is its own:
// routes, programs, a controller (the phases of a mapping, NoC traffic).
//
// Every cycle the chip calls, in this order, before the fabric moves:
//   1. the workload's controller (it may load programs, switch phases,
//      hand over streams, inject traffic);
//   2. the ingress edge (the streams enter the mesh from the ring);
//   3. the PEs (compute, consume and send wavelets).
// The controller, when there is one, says when the run is done; without
// one, the PEs do (every PE idle, the fabric empty).

#include <systemc>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "hw/chip/ChipParts.h"
#include "hw/config/ArchConfig.h"
#include "hw/config/RunConfig.h"
#include "hw/energy/ActionMeter.h"
#include "hw/fabric/ColorRouteTable.h"
#include "hw/pe/PeArray.h"
#include "hw/trace/FabricVcdTracer.h"
#include "hw/trace/PeVcdTracer.h"
#include "hw/trace/TimelineRecorder.h"
#include "hw/sim/CycleDriver.h"
#include "hw/wafer/EdgeCollector.h"
#include "hw/wafer/EdgeInjector.h"
#include "hw/wafer/CycleLoop.h"
#include "hw/wafer/IoRingEdge.h"
#include "hw/wafer/Wafer.h"

namespace wsesim::chip {

// What a run records besides its results.
struct RunOptions {
  // Waveform file name without its extension (SystemC appends ".vcd"); empty: none.
  std::string vcdBaseName;
  // Keep per-PE and per-link statistics for a wafer map.
  bool waferMap = false;
  // Record a timeline of run.vcd.region.
  bool timeline = false;
  // Hears about the run's progress (null: nobody).
  sim::ProgressObserver* progress = nullptr;
};

struct SimulationTimes {
  double elaborationSeconds = 0;  // from the chip's construction to sc_start
  double simulationSeconds = 0;
  // The run's timeline when RunOptions::timeline asked for one; the
  // workload may add spans before writing it.
  std::unique_ptr<trace::TimelineRecorder> timeline;
};

class WaferChip : public energy::ActionMeter {
 public:
  // Builds the parts of `arch` (the mesh as simulated) for `run`. The
  // elaboration time counts from `elaborationStart` (the workload's own set-up included).
  WaferChip(const config::ArchConfig& arch, const config::RunConfig& run, const ChipParts& parts,
            std::chrono::steady_clock::time_point elaborationStart = std::chrono::steady_clock::now());
  WaferChip(const WaferChip&) = delete;
  WaferChip& operator=(const WaferChip&) = delete;
  ~WaferChip() override;
  // The most host memory the parts take, before building them (Wafer,
  // PeArray and ColorRouteTable ::plannedHostBytes).
  static std::uint64_t plannedHostBytes(const config::ArchConfig& arch, const config::RunConfig& run,
                                        const ChipParts& parts);

  // The parts; each throws std::logic_error when it was not asked for.
  fabric::ColorRouteTable& routes();
  pe::PeArray& pes();
  const pe::PeArray& pes() const;
  wafer::EdgeInjector& ingress();
  wafer::EdgeCollector& egress();
  wafer::Wafer& wafer();
  wafer::CycleLoop& loop() { return *loop_; }
  fabric::FabricKernel& fabric() { return loop_->fabric(); }
  const fabric::FabricKernel& fabric() const { return loop_->fabric(); }
  const config::ArchConfig& arch() const { return arch_; }
  // Cycles simulated so far.
  std::uint64_t cycles() const { return loop_->cycles(); }

  // The workload's controller, called first in every cycle; it decides when
  // the run is done. Must outlive the run.
  void setController(sim::CycleDriver* controller) { cycle_.controller = controller; }
  // Where the fabric delivers wavelets in a chip without PEs (the NoC traffic).
  void setSink(fabric::WaveletSink* sink);

  // Simulates to the end: opens the waveform (the routers' and, with PEs,
  // the PEs' of run.vcd.region) and the timeline if asked for, runs
  // sc_start() (or, without SystemC, the cycle loop), closes the waveform,
  // rethrows what went wrong inside the simulation, and throws ProgramError
  // if a PE is left with work it can never finish. SystemC elaborates once
  // per process: with it, call this once; a chip without it takes no
  // waveform (std::logic_error).
  SimulationTimes simulate(const RunOptions& options);

  energy::ActionCounts actionsUntil(std::uint64_t cycles) const override;

 private:
  // The per-cycle order above, as the wafer's one driver.
  struct ChipCycle : sim::CycleDriver {
    sim::CycleDriver* controller = nullptr;
    wafer::EdgeInjector* ingress = nullptr;
    pe::PeArray* pes = nullptr;
    void beginCycle(std::uint64_t now, fabric::FabricKernel& fabric) override;
    std::uint64_t nextActivity(std::uint64_t now) const override;
    bool finished(std::uint64_t now, const fabric::FabricKernel& fabric) const override;
    double progress(std::uint64_t now) const override;
  };

  config::ArchConfig arch_;
  config::RunConfig run_;
  std::chrono::steady_clock::time_point elaborationStart_;
  std::unique_ptr<fabric::ColorRouteTable> routes_;
  std::unique_ptr<wafer::CycleLoop> loop_;
  std::unique_ptr<wafer::Wafer> wafer_;  // none without SystemC
  std::unique_ptr<pe::PeArray> pes_;
  std::unique_ptr<wafer::EdgeInjector> ingress_;
  std::unique_ptr<wafer::EdgeCollector> egress_;
  ChipCycle cycle_;
  std::unique_ptr<trace::FabricVcdTracer> fabricTracer_;
  std::unique_ptr<trace::PeVcdTracer> peTracer_;
};

}  // namespace wsesim::chip
