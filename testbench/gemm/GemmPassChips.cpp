#include "testbench/gemm/GemmPassChips.h"

#include <algorithm>
#include <exception>

#include "firmware/runtime/GemmPhases.h"
#include "hw/chip/WaferChip.h"
#include "hw/sim/ProgressShare.h"
#include "testbench/workload/ChipsAtOnce.h"

namespace wsesim::gemm {
namespace {

// One phase as its chip ran it.
struct PhaseChip {
  runtime::SimulatedGemm::PhaseRun run;
  std::uint64_t inputEnd = 0;  // from the phase's start
  GemmChipFindings found;        // its own counters (cycles: the phase's)
};

PhaseChip runPhase(runtime::SimulatedGemm& gemm, std::uint32_t phase, const PassChipsRun& how,
                   sim::ProgressObserver* progress) {
  chip::WaferChip chip(how.simulated, how.run, workload::partsWithoutSystemc(how.parts, how.simulated));
  runtime::GemmPhases phases(gemm, chip.pes(), chip.routes(), chip.ingress(), chip.egress(),
                             how.arch.fabric.routeSwitchCycles, runtime::GemmPhases::Alone{phase});
  chip.setController(&phases);
  chip::RunOptions options;
  options.progress = progress;
  chip.simulate(options);

  PhaseChip r;
  r.run = phases.roundPhases(chip.cycles()).front();
  r.inputEnd = phases.roundInputEnd();
  r.found = chipFindings(chip, gemm.rows(), phases.edgeStalls());
  return r;
}

// `phase`'s findings added to `all`'s, after those of the phases before it.
void add(GemmChipFindings& all, const GemmChipFindings& phase) {
  all.phaseStarts.push_back(all.cycles);
  all.cycles += phase.cycles;
  all.busyCycles += phase.busyCycles;
  all.tasks += phase.tasks;
  all.sramHighWater = std::max(all.sramHighWater, phase.sramHighWater);
  all.edgeStalls += phase.edgeStalls;
  all.fabric += phase.fabric;
  all.actions += phase.actions;
  all.peBytes = std::max(all.peBytes, phase.peBytes);
  all.fabricBytes = std::max(all.fabricBytes, phase.fabricBytes);
  all.fabricBands = std::max(all.fabricBands, phase.fabricBands);
  all.cyclesInBands += phase.cyclesInBands;
  all.peCyclesInBands += phase.peCyclesInBands;
  all.chips += phase.chips;
}

}  // namespace

GemmChipFindings chipFindings(const chip::WaferChip& chip, const firmware::GemmMapping& mapping,
                              std::uint64_t edgeStalls) {
  GemmChipFindings f;
  f.cycles = chip.cycles();
  const pe::PeArray& pes = chip.pes();
  const pe::PeCounters totals = pes.totals();
  f.busyCycles = totals.busyCycles;
  f.tasks = totals.tasksRun;
  for (std::uint32_t row = 0; row < mapping.gridY(); ++row)
    for (std::uint32_t c = 0; c < mapping.gridX(); ++c)
      f.sramHighWater = std::max(f.sramHighWater, pes.sram(mapping.pe(chip.arch().mesh, c, row)).highWater());
  f.edgeStalls = edgeStalls;
  f.fabric = chip.fabric().counters();
  f.actions = chip.actionsUntil(f.cycles);
  f.peBytes = pes.hostBytes();
  f.fabricBytes = chip.fabric().hostBytes();
  f.fabricBands = chip.fabric().bands();
  f.cyclesInBands = chip.fabric().cyclesInBands();
  f.peCyclesInBands = pes.cyclesInBands();
  return f;
}

GemmChipFindings simulatePassChips(runtime::SimulatedGemm& gemm, const PassChipsRun& how) {
  GemmChipFindings found;
  found.chips = 0;
  // Each round's progress as one chip tells it (its phases' share done),
  // the run ending with the last round only.
  sim::ProgressShare roundProgress(how.progress, 0.0, 1.0, false);
  for (;;) {
    const firmware::GemmMapping& round = gemm.round();
    const std::uint32_t phases = round.phases();
    // A phase's host time grows with its outputs (its streams' n's).
    std::vector<double> costs;
    for (std::uint32_t p = 0; p < phases; ++p) costs.push_back(std::max(1.0, double(round.phaseOutputs(p))));
    PassChipsRun each = how;
    each.parts.fabricThreads = std::max(1u, how.threads / phases);
    std::vector<PhaseChip> chips(phases);
    const std::vector<std::exception_ptr> errors = workload::runAtOnce(
        costs, how.chipsAtOnce, roundProgress.observer(),
        [&](std::size_t p, sim::ProgressObserver* progress) { chips[p] = runPhase(gemm, std::uint32_t(p), each, progress); });
    for (const std::exception_ptr& e : errors)
      if (e) std::rethrow_exception(e);

    const std::uint64_t roundStart = found.cycles;
    std::vector<runtime::SimulatedGemm::PhaseRun> runs;
    for (const PhaseChip& c : chips) {
      add(found, c.found);
      runs.push_back(c.run);
    }
    const std::uint64_t inputEnd = found.cycles - chips.back().run.cycles - roundStart + chips.back().inputEnd;
    if (!gemm.anotherRound(runs)) {
      found.time = gemm.fullTime(runs, inputEnd, how.arch, how.simulated.mesh.width);
      if (how.progress) how.progress->progress(found.cycles, 1.0, true);
      return found;
    }
    gemm.nextRound(runs, inputEnd);
  }
}

}  // namespace wsesim::gemm
