#include "hw/chip/WaferChip.h"

#include <algorithm>
#include <stdexcept>

namespace wsesim::chip {
namespace {

template <typename Part>
Part& asked(const std::unique_ptr<Part>& part, const char* name) {
  if (!part) throw std::logic_error(std::string("the chip was built without ") + name + " (ChipParts)");
  return *part;
}

}  // namespace

WaferChip::WaferChip(const config::ArchConfig& arch, const config::RunConfig& run, const ChipParts& parts,
                     std::chrono::steady_clock::time_point elaborationStart)
    : arch_(arch), run_(run), elaborationStart_(elaborationStart) {
  if (parts.routes) routes_ = std::make_unique<fabric::ColorRouteTable>(arch.mesh, arch.fabric.colors);
  loop_ = std::make_unique<wafer::CycleLoop>(arch.fabricParams(run.watchdogCycles), run.maxCycles, routes_.get(),
                                              parts.fabricThreads);
  if (parts.systemc) wafer_ = std::make_unique<wafer::Wafer>("wafer", *loop_, arch.clockHz);
  if (parts.pes) {
    pes_ = std::make_unique<pe::PeArray>(arch.pe, run.mode, fabric(), routes_.get());
    fabric().setSink(pes_.get());
  }
  if (parts.ingress) ingress_ = std::make_unique<wafer::EdgeInjector>(*parts.ingress, arch.mesh);
  if (parts.egress) {
    egress_ = std::make_unique<wafer::EdgeCollector>(*parts.egress, arch.mesh, parts.egressKeepsPayloads);
    fabric().setEdgeSink(egress_.get());
  }
  cycle_.ingress = ingress_.get();
  cycle_.pes = pes_.get();
  loop_->setDriver(&cycle_);
}

WaferChip::~WaferChip() = default;

std::uint64_t WaferChip::plannedHostBytes(const config::ArchConfig& arch, const config::RunConfig& run,
                                          const ChipParts& parts) {
  const std::uint64_t pes =
      parts.pes ? pe::PeArray::plannedHostBytes(arch.pe, arch.mesh, arch.fabric.colors, run.mode) : 0;
  const std::uint64_t routes =
      parts.routes ? fabric::ColorRouteTable::plannedHostBytes(arch.mesh, arch.fabric.colors) : 0;
  const std::uint64_t module = parts.systemc ? sizeof(wafer::Wafer) : 0;
  return wafer::CycleLoop::plannedHostBytes(arch.fabricParams(run.watchdogCycles), parts.fabricThreads) + module + pes +
         routes;
}

wafer::Wafer& WaferChip::wafer() { return asked(wafer_, "SystemC"); }
fabric::ColorRouteTable& WaferChip::routes() { return asked(routes_, "a route table"); }
pe::PeArray& WaferChip::pes() { return asked(pes_, "PEs"); }
const pe::PeArray& WaferChip::pes() const { return asked(pes_, "PEs"); }
wafer::EdgeInjector& WaferChip::ingress() { return asked(ingress_, "an ingress edge"); }
wafer::EdgeCollector& WaferChip::egress() { return asked(egress_, "an egress edge"); }

void WaferChip::setSink(fabric::WaveletSink* sink) {
  if (pes_) throw std::logic_error("the fabric of a chip with PEs delivers to its PEs");
  fabric().setSink(sink);
}

SimulationTimes WaferChip::simulate(const RunOptions& options) {
  if (!cycle_.controller && !pes_) throw std::logic_error("a chip without PEs needs a controller to run");
  SimulationTimes times;
  if (pes_ && (options.waferMap || options.timeline)) pes_->keepPerPeActions();  // each PE's energy
  if (options.timeline) {
    times.timeline = std::make_unique<trace::TimelineRecorder>(arch_, run_.vcdRegion, fabric(), pes_.get(),
                                                               run_.timelineLinkWindow);
    loop_->addTraceObserver(times.timeline.get());
  }
  sc_core::sc_trace_file* vcd = nullptr;
  if (!options.vcdBaseName.empty()) {
    if (!wafer_) throw std::logic_error("a waveform needs the wafer in SystemC (ChipParts::systemc)");
    vcd = sc_core::sc_create_vcd_trace_file(options.vcdBaseName.c_str());
    // One VCD tick per time-resolution step, so cycle times print exactly.
    vcd->set_time_unit(sc_core::sc_get_time_resolution().to_seconds() * 1e15, sc_core::SC_FS);
    const std::string prefix = wafer_->name();
    fabricTracer_ = std::make_unique<trace::FabricVcdTracer>(vcd, prefix, run_.vcdRegion, fabric());
    fabric().setObserver(fabricTracer_.get());
    loop_->addWaveform(fabricTracer_.get());
    if (pes_) {
      peTracer_ = std::make_unique<trace::PeVcdTracer>(vcd, prefix, arch_.mesh, run_.vcdRegion, *pes_);
      loop_->addWaveform(peTracer_.get());
    }
  }
  loop_->setProgressObserver(options.progress);
  const auto elaborated = std::chrono::steady_clock::now();
  if (wafer_) {
    sc_core::sc_start();
    if (vcd) sc_core::sc_close_vcd_trace_file(vcd);
    wafer_->rethrowError();
  } else {
    loop_->run([](std::uint64_t) {});
  }
  const auto finished = std::chrono::steady_clock::now();
  if (pes_) pes_->checkQuiescent();
  times.elaborationSeconds = std::chrono::duration<double>(elaborated - elaborationStart_).count();
  times.simulationSeconds = std::chrono::duration<double>(finished - elaborated).count();
  return times;
}

energy::ActionCounts WaferChip::actionsUntil(std::uint64_t cycles) const {
  return energy::waferActions(fabric(), pes_.get(), cycles);
}

void WaferChip::ChipCycle::beginCycle(std::uint64_t now, fabric::FabricKernel& fabric) {
  if (controller) controller->beginCycle(now, fabric);
  if (ingress) ingress->beginCycle(now, fabric);
  if (pes) pes->beginCycle(now, fabric);
}

std::uint64_t WaferChip::ChipCycle::nextActivity(std::uint64_t now) const {
  std::uint64_t next = sim::kNever;
  if (controller) next = std::min(next, controller->nextActivity(now));
  if (ingress) next = std::min(next, ingress->nextActivity(now));
  if (pes) next = std::min(next, pes->nextActivity(now));
  return next;
}

bool WaferChip::ChipCycle::finished(std::uint64_t now, const fabric::FabricKernel& fabric) const {
  return controller ? controller->finished(now, fabric) : pes->finished(now, fabric);
}

double WaferChip::ChipCycle::progress(std::uint64_t now) const {
  return controller ? controller->progress(now) : pes->progress(now);
}

}  // namespace wsesim::chip
