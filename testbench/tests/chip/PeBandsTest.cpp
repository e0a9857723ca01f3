// The PE array in the fabric's bands, visited by several threads at once
// (docs/pe-model.md, "Bands over threads"): weight-streamed GEMMs on a chip
// stepped at 2, 3 and 7 threads (7: more than this host's cores, for
// correctness only) give what one thread gives, cycle for cycle and
// counter for counter, PE by PE. The egress's row groups (one per ring
// channel) put the bands' boundaries between feeds, so edge routers step
// with their bands too. No SystemC kernel runs here (the chip has none), so
// the ThreadSanitizer job runs these tests.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "firmware/runtime/GemmSequence.h"
#include "firmware/runtime/SimulatedGemm.h"
#include "hw/chip/WaferChip.h"
#include "testbench/tests/MachineConfig.h"
#include "testbench/workload/GemmChipParts.h"

namespace wsesim::chip {
namespace {

using testing::Machine;

// The tiny preset's 8 x 8 PEs, twice as tall (16 x 8: bands of 32 PEs at 2
// and 3 threads, of 16 at 7), its ring with 4 channels an edge: 4 groups
// of rows.
Machine tallTiny() {
  return testing::machineFrom(
      "arch:\n  preset: tiny\n  mesh:\n    height: 16\n  io:\n    channels_per_edge: 4\nrun:\n  mode: timing\n");
}

struct Outcome {
  std::uint64_t cycles = 0, fromEdge = 0, toEdge = 0, delivered = 0, hops = 0, received = 0, lastArrival = 0;
  std::vector<std::uint64_t> perPe;  // per PE: ops, elements, tasks, busy cycles, visits
  pe::PeActions actions;
  std::uint64_t fabricCyclesInBands = 0, peCyclesInBands = 0;
  unsigned bands = 0;
};

// Every pass of one GEMM, on every row (nothing sampled), one after another.
Outcome run(unsigned threads) {
  const Machine s = tallTiny();
  const pe::Precision p = pe::Precision::Mixed;
  std::vector<std::unique_ptr<runtime::SimulatedGemm>> owned;
  for (GemmPass pass : {GemmPass::Forward, GemmPass::BackwardData, GemmPass::WeightGrad})
    owned.push_back(std::make_unique<runtime::SimulatedGemm>("weight_stream", runtime::passShape(256, 64, 48, p, pass),
                                                             s.arch, 0, 0, firmware::Buffering::Auto,
                                                             runtime::GemmSampling{}));
  std::vector<runtime::SimulatedGemm*> gemms;
  for (const auto& g : owned) gemms.push_back(g.get());
  ChipParts parts = workload::gemmChipParts(s.arch, p, config::DataMode::Timing);
  parts.systemc = false;
  parts.fabricThreads = threads;
  WaferChip chip(s.arch, s.run, parts);
  chip.fabric().setPacing(false);  // every cycle that could split does, however fast
  runtime::GemmSequence driver(gemms, chip.pes(), chip.routes(), chip.ingress(), chip.egress(), chip,
                               s.arch.fabric.routeSwitchCycles);
  chip.setController(&driver);
  chip.simulate({});

  Outcome o;
  o.cycles = chip.cycles();
  const fabric::FabricCounters& c = chip.fabric().counters();
  o.fromEdge = c.fromEdge;
  o.toEdge = c.toEdge;
  o.delivered = c.delivered;
  o.hops = c.hops;
  o.received = chip.egress().received();
  o.lastArrival = chip.egress().lastArrival();
  const pe::PeArray& pes = chip.pes();
  for (fabric::RouterId r = 0; r < s.arch.mesh.routers(); ++r) {
    const pe::PeCounters& k = pes.counters(r);
    o.perPe.insert(o.perPe.end(), {k.opsCompleted, k.elements, k.tasksRun, k.busyCycles, k.visits});
  }
  o.actions = pes.actionTotals();
  o.fabricCyclesInBands = chip.fabric().cyclesInBands();
  o.peCyclesInBands = pes.cyclesInBands();
  o.bands = chip.fabric().bands();
  return o;
}

TEST(PeBands, WeightStreamedGemmsAreTheSameForAnyThreadCount) {
  const Outcome one = run(1);
  EXPECT_EQ(one.bands, 1u);
  EXPECT_GT(one.received, 0u);
  for (unsigned threads : {2u, 3u, 7u}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    const Outcome many = run(threads);
    EXPECT_GT(many.bands, 1u);
    EXPECT_GT(many.peCyclesInBands, 0u) << "the bands' PEs were never visited at once";
    // The fabric splits a cycle with 64 routers active a band: on 128, only with 2.
    if (threads == 2) {
      EXPECT_GT(many.fabricCyclesInBands, 0u) << "the bands never stepped at once";
    }
    EXPECT_EQ(many.cycles, one.cycles);
    EXPECT_EQ(many.fromEdge, one.fromEdge);
    EXPECT_EQ(many.toEdge, one.toEdge);
    EXPECT_EQ(many.delivered, one.delivered);
    EXPECT_EQ(many.hops, one.hops);
    EXPECT_EQ(many.received, one.received);
    EXPECT_EQ(many.lastArrival, one.lastArrival);
    EXPECT_EQ(many.perPe, one.perPe);
    EXPECT_EQ(many.actions.sramReadBytes, one.actions.sramReadBytes);
    EXPECT_EQ(many.actions.sramWriteBytes, one.actions.sramWriteBytes);
    EXPECT_EQ(many.actions.waveletsSent, one.actions.waveletsSent);
  }
}

// With the ring's 4 channels an edge on 16 rows (groups of 4 rows), two
// bands split at row 8 and three at rows 8 and 12: each boundary moves to
// the group start nearest to it (an equal share in whole groups of 16
// routers: rows 6 and 12; from row 6, rows 4 and 8 are as near, and the
// later is taken).
TEST(PeBands, BandBoundariesFallBetweenTheRingsGroupsOfRows) {
  const Machine s = tallTiny();
  for (const auto& [threads, firstRows] :
       std::vector<std::pair<unsigned, std::vector<std::uint32_t>>>{{2, {0, 8}}, {3, {0, 8, 12}}}) {
    ChipParts parts = workload::gemmChipParts(s.arch, pe::Precision::Mixed, config::DataMode::Timing);
    parts.systemc = false;
    parts.fabricThreads = threads;
    WaferChip chip(s.arch, s.run, parts);
    const fabric::FabricKernel& f = chip.fabric();
    ASSERT_EQ(f.bands(), firstRows.size()) << threads << " threads";
    for (std::uint32_t y = 0; y < 16; ++y) {
      unsigned band = 0;
      while (band + 1 < firstRows.size() && y >= firstRows[band + 1]) ++band;
      for (std::uint32_t x = 0; x < 8; ++x)
        EXPECT_EQ(f.bandIndex(s.arch.mesh.id(x, y)), band) << threads << " threads, row " << y << ", column " << x;
    }
  }
}

}  // namespace
}  // namespace wsesim::chip
