#pragma once
// Runs a GEMM's phases one after the other on the wafer. Each phase's
// weights enter through the I/O ring's channels (an edge injector); once they
// are all in, every PE is idle and the fabric is empty, the PEs' programs
// are unloaded (keeping the mapping's resident buffers), the routers'
// arbiters restart and the egress's bandwidth holds its full credit, as
// after any drain (so a phase's cycles never depend on the grants of the
// one before, nor on when its last wavelet left: the WSE's arbitration is
// not public, a modelling choice), and the next phase's programs and
// streams take over; where the next phase reprograms
// routes, it starts arch.fabric.route_switch_cycles later, the time the
// routers take to switch (the first phase of a round is configured with
// the program, for free). A GEMM sampled in rounds
// (SimulatedGemm: steady-state outputs) runs each round's mapping in turn,
// from an empty mesh: the PEs unloaded, the routes cleared.
//
// A mapping with paced phases (GemmOutline::pacedPhases) has no barrier
// between phases: its PEs go on one by one (PePacing), and a phase's start
// is when its first PE entered it.
//
// It is the chip's controller (hw/chip/WaferChip): called first in every
// cycle, before the chip steps the ingress edge and the PEs, it sees them
// through their interfaces (EdgeIngress, PeGrid) only.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "firmware/gemm/GemmMapping.h"
#include "firmware/runtime/PePacing.h"
#include "firmware/runtime/SimulatedGemm.h"
#include "hw/pe/PeGrid.h"
#include "hw/sim/CycleDriver.h"
#include "hw/wafer/EdgeEgress.h"
#include "hw/wafer/EdgeIngress.h"

namespace wsesim::runtime {

class GemmPhases : public sim::CycleDriver {
 public:
  // Programs the routes and loads phase 0, which starts in cycle `start`;
  // `b` gives the streamed payloads (null in timing mode); `gemm`, `b`,
  // the PEs, `routes` (the fabric's, reprogrammed per phase), `ingress`
  // (whose streams must all be in) and `egress` (its credit filled at each
  // phase after the first) must outlive the run.
  GemmPhases(SimulatedGemm& gemm, pe::PeGrid& pes, fabric::ColorRouteTable& routes, wafer::EdgeIngress& ingress,
             wafer::EdgeEgress& egress, const firmware::Matrix* b, std::uint32_t routeSwitchCycles,
             std::uint64_t start = 0);
  // Runs phase `phase` of the current round alone, from cycle 0 of a chip
  // of its own, as it runs after the phases before it: their routes
  // programmed in turn and their programs placed as run (PeGrid::placeAsRun),
  // so that the kept buffers and the SRAM are as they would be, and the
  // routers switching first where its routes differ from the phase
  // before's. Every phase starts with the fabric empty, the PEs idle, the
  // arbiters restarted and the egress's credit full (but a GEMM's first,
  // which starts as the chip does), so its cycles and counters are those it has in
  // the round (its streams' wavelets carry no values: timing mode). Not for
  // paced mappings (std::logic_error), whose PEs run ahead into the next phase.
  struct Alone {
    std::uint32_t phase = 0;
  };
  GemmPhases(SimulatedGemm& gemm, pe::PeGrid& pes, fabric::ColorRouteTable& routes, wafer::EdgeIngress& ingress,
             wafer::EdgeEgress& egress, std::uint32_t routeSwitchCycles, Alone alone);

  void beginCycle(std::uint64_t now, fabric::FabricKernel& fabric) override;
  std::uint64_t nextActivity(std::uint64_t now) const override;
  bool finished(std::uint64_t now, const fabric::FabricKernel& fabric) const override;
  // Phases done, plus the share of the current phase's streams sent (of the current round).
  double progress(std::uint64_t now) const override;

  // The cycle each phase simulated started in, over all rounds.
  const std::vector<std::uint64_t>& phaseStarts() const { return pacing_ ? pacing_->phaseStarts() : phaseStarts_; }
  // What the current round ran of its phases (alone: that phase), its last
  // phase ending at `end` (its PEs idle).
  std::vector<SimulatedGemm::PhaseRun> roundPhases(std::uint64_t end) const;
  // The cycle after the current round's (alone: the phase's) last streamed
  // wavelet entered the mesh, from the round's start (0 until its last
  // phase's streams are all in; that phase's start when it streams nothing).
  std::uint64_t roundInputEnd() const { return streamsIn() ? ingress_.inputEnd() - phaseStarts_[roundStart_] : 0; }
  // The whole GEMM's time once the run is done, its last cycle `end`.
  GemmTime fullTime(std::uint64_t end, const config::ArchConfig& arch, std::uint32_t meshColumns) const {
    return gemm_.fullTime(roundPhases(end), roundInputEnd(), arch, meshColumns);
  }
  std::uint64_t edgeStalls() const { return ingress_.stalls() - stallsBefore_; }
  // Neither the ingress nor the PEs have anything left to do, now or later
  // (with the fabric empty: the phase's work is all done).
  bool nothingScheduled(std::uint64_t now) const {
    return ingress_.nextActivity(now) == sim::kNever && pes_.nextActivity(now) == sim::kNever;
  }
  // Unloads every PE of the current mapping's grid, keeping `kept` (all
  // PEs must be idle): between phases, rounds, and GEMMs of a sequence.
  void unload(const std::vector<std::string>& kept);

 private:
  // The members alone.
  GemmPhases(SimulatedGemm& gemm, pe::PeGrid& pes, fabric::ColorRouteTable& routes, wafer::EdgeIngress& ingress,
             wafer::EdgeEgress& egress, const firmware::Matrix* b, std::uint32_t routeSwitchCycles,
             std::optional<Alone> alone);
  const firmware::GemmMapping& mapping() const { return gemm_.round(); }
  // The last phase's streams are handed over (with its programs) and all in.
  bool streamsIn() const { return loaded_ && phase_ == lastPhase() && ingress_.sent() == ingress_.total(); }
  bool phaseDone(std::uint64_t now, const fabric::FabricKernel& fabric) const {
    return loaded_ && ingress_.sent() == ingress_.total() && pes_.finished(now, fabric);
  }
  bool roundDone(std::uint64_t now, const fabric::FabricKernel& fabric) const {
    return phase_ == lastPhase() && phaseDone(now, fabric);
  }
  // The last phase this controller runs of the current round.
  std::uint32_t lastPhase() const { return alone_ ? alone_->phase : mapping().phases() - 1; }
  // Whether another round follows the current one's `phases` (never alone:
  // the caller puts a round's phases together).
  bool anotherRound(const std::vector<SimulatedGemm::PhaseRun>& phases) const {
    return !alone_ && gemm_.anotherRound(phases);
  }
  // Programs the current round's routes and starts its phase 0.
  void startRound(std::uint64_t now);
  // Programs phase `phase`'s routes; its programs load and its streams
  // start once the routers have switched (`switching`: between phases).
  void startPhase(std::uint32_t phase, std::uint64_t now, bool switching);
  // Loads the current phase's programs and hands over its streams, in cycle `now`.
  void loadPhase(std::uint64_t now);
  // Per PE of the mapping's grid, the cycle of the current phase (from
  // runsAt_) it was last busy in, once they are all idle; none unless the
  // GEMM extrapolates cuts (SimulatedGemm::PhaseRun).
  std::vector<std::uint32_t> peFinish() const;
  SimulatedGemm& gemm_;
  pe::PeGrid& pes_;
  fabric::ColorRouteTable& routes_;
  wafer::EdgeIngress& ingress_;
  wafer::EdgeEgress& egress_;
  fabric::MeshGeometry mesh_;
  const firmware::Matrix* b_;
  std::uint32_t routeSwitchCycles_;
  std::uint64_t stallsBefore_;  // the ingress's, before this GEMM
  std::unique_ptr<PePacing> pacing_;  // paced phases only
  std::optional<Alone> alone_;  // the one phase run
  std::uint32_t phase_ = 0;  // of the current round
  std::uint64_t runsAt_ = 0;  // the current phase's programs load and streams start in this cycle
  bool loaded_ = false;       // the current phase's programs are loaded
  std::vector<std::uint64_t> phaseStarts_;
  std::vector<std::vector<std::uint32_t>> roundPeFinish_;  // of the current round's phases done
  std::size_t roundStart_ = 0;  // the current round's first phase in phaseStarts_
};

}  // namespace wsesim::runtime
