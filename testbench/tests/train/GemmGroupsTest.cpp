// The training step's GEMMs simulated in groups on worker threads
// (GemmGroups.h): GEMMs sharing a line key stay in one group, and any number of
// workers gives every GEMM the cycles, actions and weights that one
// sequence of the GEMMs needing a mesh as wide, on one chip that wide,
// gives. No SystemC kernel runs here (the groups' chips have none), so the
// ThreadSanitizer job runs these tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "firmware/runtime/GemmSequence.h"
#include "firmware/runtime/SimulatedGemm.h"
#include "hw/chip/WaferChip.h"
#include "testbench/tests/MachineConfig.h"
#include "testbench/train/GemmGroups.h"
#include "testbench/workload/GemmChipParts.h"

namespace wsesim::train {
namespace {

using testing::Machine;

Machine tiny(const std::string& runYaml = "") {
  return testing::machineFrom("arch:\n  preset: tiny\nrun:\n  mode: timing\n" + runYaml);
}

// A step's distinct GEMMs in miniature: every pass, passes of kinds with
// lines to learn and share (80 n's a pass: 8 and 6 passes, the same kinds),
// and GEMMs sharing none.
std::vector<firmware::GemmShape> stepShapes() {
  const pe::Precision p = pe::Precision::Mixed;
  return {
      runtime::passShape(1024, 64, 640, p, GemmPass::Forward),
      runtime::passShape(1024, 64, 640, p, GemmPass::BackwardData),
      runtime::passShape(1024, 64, 640, p, GemmPass::WeightGrad),
      runtime::passShape(1024, 64, 480, p, GemmPass::Forward),
      runtime::passShape(1024, 64, 480, p, GemmPass::WeightGrad),
      runtime::passShape(512, 64, 256, p, GemmPass::Forward),
  };
}

const runtime::GemmSampling kSampled{true, true, 2, 0.002};

// Fresh plans (a SimulatedGemm keeps the rounds it ran).
std::vector<std::unique_ptr<runtime::SimulatedGemm>> plans(const Machine& s, const runtime::GemmSampling& sampling) {
  std::vector<std::unique_ptr<runtime::SimulatedGemm>> out;
  for (const firmware::GemmShape& shape : stepShapes())
    out.push_back(std::make_unique<runtime::SimulatedGemm>("weight_stream", shape, s.arch, 0, 0,
                                                           firmware::Buffering::Auto, sampling));
  return out;
}

std::vector<runtime::SimulatedGemm*> raw(const std::vector<std::unique_ptr<runtime::SimulatedGemm>>& p) {
  std::vector<runtime::SimulatedGemm*> out;
  for (const auto& g : p) out.push_back(g.get());
  return out;
}

std::vector<std::uint64_t> streamedBytes(const Machine& s, const std::vector<runtime::SimulatedGemm*>& gemms) {
  std::vector<std::uint64_t> bytes;
  for (const runtime::SimulatedGemm* g : gemms) bytes.push_back(g->streamedWavelets(s.arch.mesh) * 2);
  return bytes;
}

chip::ChipParts parts(const Machine& s) {
  return workload::gemmChipParts(s.arch, pe::Precision::Mixed, config::DataMode::Timing);
}

// The GEMMs needing a mesh of each width (SimulatedGemm::meshColumns) in
// one sequence on one chip that wide, as a group's chip is.
WaferTiming inSequences(const Machine& s, const runtime::GemmSampling& sampling, std::set<std::uint32_t>& widths) {
  const auto owned = plans(s, sampling);
  const std::vector<runtime::SimulatedGemm*> gemms = raw(owned);
  const std::vector<std::uint64_t> bytes = streamedBytes(s, gemms);
  for (const runtime::SimulatedGemm* g : gemms) widths.insert(g->meshColumns(s.arch));
  WaferTiming t;
  t.gemms.resize(gemms.size());
  for (std::uint32_t columns : widths) {
    std::vector<std::size_t> members;
    std::vector<runtime::SimulatedGemm*> sequence;
    for (std::size_t i = 0; i < gemms.size(); ++i)
      if (gemms[i]->meshColumns(s.arch) == columns) {
        members.push_back(i);
        sequence.push_back(gemms[i]);
      }
    chip::ChipParts p = parts(s);
    p.systemc = false;
    chip::WaferChip chip(runtime::withMeshColumns(s.arch, columns), s.run, p);
    runtime::GemmSequence driver(sequence, chip.pes(), chip.routes(), chip.ingress(), chip.egress(), chip,
                                 s.arch.fabric.routeSwitchCycles);
    chip.setController(&driver);
    chip.simulate({});
    for (std::size_t j = 0; j < members.size(); ++j)
      t.gemms[members[j]] =
          sequencedGemmTiming(driver, j, *sequence[j], chip.cycles(), s.arch, columns, bytes[members[j]]);
    t.simulatedCycles += chip.cycles();
    t.weightsIn += chip.fabric().counters().fromEdge;
    t.gradientsOut += chip.egress().received();
  }
  return t;
}

WaferTiming inGroups(const Machine& s, const runtime::GemmSampling& sampling, unsigned workers) {
  const auto owned = plans(s, sampling);
  const std::vector<runtime::SimulatedGemm*> gemms = raw(owned);
  const std::vector<const runtime::SimulatedGemm*> constant(gemms.begin(), gemms.end());
  return simulateGemmGroups(gemms, independentGemmGroups(constant, sampling.representativePhases),
                            streamedBytes(s, gemms), GroupedRun{s.arch, s.run, parts(s), workers})
      .timing;
}

void expectSameTiming(const WaferTiming& a, const WaferTiming& b, const std::string& what) {
  ASSERT_EQ(a.gemms.size(), b.gemms.size()) << what;
  for (std::size_t i = 0; i < a.gemms.size(); ++i) {
    EXPECT_EQ(a.gemms[i].cycles, b.gemms[i].cycles) << what << ", GEMM " << i;
    EXPECT_EQ(a.gemms[i].inputEnd, b.gemms[i].inputEnd) << what << ", GEMM " << i;
    EXPECT_EQ(a.gemms[i].streamedBytes, b.gemms[i].streamedBytes) << what << ", GEMM " << i;
    // Bit for bit: the same counts summed in the same order.
    EXPECT_EQ(std::memcmp(&a.gemms[i].actions, &b.gemms[i].actions, sizeof(energy::ActionCounts)), 0)
        << what << ", GEMM " << i;
  }
  EXPECT_EQ(a.simulatedCycles, b.simulatedCycles) << what;
  EXPECT_EQ(a.weightsIn, b.weightsIn) << what;
  EXPECT_EQ(a.gradientsOut, b.gradientsOut) << what;
}

TEST(GemmGroups, GemmsSharingALineKeyStayInOneGroupInTheStepsOrder) {
  const Machine s = tiny();
  const auto owned = plans(s, kSampled);
  const std::vector<runtime::SimulatedGemm*> mutableGemms = raw(owned);
  const std::vector<const runtime::SimulatedGemm*> gemms(mutableGemms.begin(), mutableGemms.end());
  const std::vector<std::vector<std::size_t>> groups = independentGemmGroups(gemms, true);
  std::vector<std::size_t> groupOf(gemms.size(), groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    ASSERT_FALSE(groups[g].empty());
    EXPECT_TRUE(std::is_sorted(groups[g].begin(), groups[g].end()));
    if (g > 0) {
      EXPECT_LT(groups[g - 1].front(), groups[g].front()) << "groups in the order of their first GEMM";
    }
    for (std::size_t i : groups[g]) {
      EXPECT_EQ(groupOf[i], groups.size()) << "GEMM " << i << " in two groups";
      groupOf[i] = g;
    }
  }
  bool shared = false;
  for (std::size_t i = 0; i < gemms.size(); ++i) {
    ASSERT_LT(groupOf[i], groups.size()) << "GEMM " << i << " in no group";
    for (std::size_t j = i + 1; j < gemms.size(); ++j) {
      const std::set<std::string> a = gemms[i]->lineKeys(), b = gemms[j]->lineKeys();
      const bool share = std::any_of(a.begin(), a.end(), [&](const std::string& k) { return b.count(k) > 0; });
      shared = shared || share;
      if (share) {
        EXPECT_EQ(groupOf[i], groupOf[j]) << "GEMMs " << i << " and " << j << " share a line key";
      }
    }
  }
  EXPECT_TRUE(shared) << "the shapes were chosen to share lines";
  EXPECT_GT(groups.size(), 1u);
  // Without representative phases nothing is shared: a group per GEMM.
  EXPECT_EQ(independentGemmGroups(gemms, false).size(), gemms.size());
}

TEST(GemmGroups, AnyNumberOfWorkersGivesOneSequencesTiming) {
  const Machine s = tiny();
  // Whole GEMMs (every n simulated) cost most: fewer counts of them.
  for (const runtime::GemmSampling& sampling : {kSampled, runtime::GemmSampling{}}) {
    std::set<std::uint32_t> widths;
    const WaferTiming reference = inSequences(s, sampling, widths);
    // Representative rows: the weight gradients' two rows need two mesh
    // columns, the other GEMMs' one row one; every row, the whole mesh.
    const std::set<std::uint32_t> expected =
        sampling.sampled() ? std::set<std::uint32_t>{1, 2} : std::set<std::uint32_t>{8};
    EXPECT_EQ(widths, expected);
    for (unsigned workers : sampling.sampled() ? std::vector<unsigned>{1, 2, 3, 7} : std::vector<unsigned>{2, 7})
      expectSameTiming(inGroups(s, sampling, workers), reference,
                       std::string(sampling.sampled() ? "sampled" : "whole") + ", " + std::to_string(workers) +
                           " workers");
  }
}

TEST(GemmGroups, AFailedGroupFailsTheRunWhateverTheWorkers) {
  // Every group outruns run.max_cycles; the error is the same at any count.
  const Machine s = tiny("  max_cycles: 50\n");
  std::string first;
  for (unsigned workers : {1u, 3u}) {
    try {
      inGroups(s, kSampled, workers);
      ADD_FAILURE() << "no error at " << workers << " workers";
    } catch (const std::runtime_error& e) {
      if (first.empty()) first = e.what();
      EXPECT_EQ(e.what(), first);
      EXPECT_NE(first.find("run.max_cycles = 50"), std::string::npos) << first;
    }
  }
}

}  // namespace
}  // namespace wsesim::train
