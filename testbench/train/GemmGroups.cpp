#include "testbench/train/GemmGroups.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <map>
#include <numeric>
#include <string>

#include "hw/chip/WaferChip.h"
#include "testbench/workload/ChipsAtOnce.h"

namespace wsesim::train {
namespace {

// A group as one chip ran it.
struct GroupRun {
  std::vector<GemmTiming> gemms;  // its members'
  std::uint64_t cycles = 0, weightsIn = 0, gradientsOut = 0;
  double seconds = 0;  // of the host
  std::exception_ptr error;
  std::size_t failedGemm = 0;  // with an error: the GEMM (of the step's list) it ran
};

// What simulating `gemm` costs the host, for ordering the groups only: the
// PE-cycles of its simulated rows were nothing else cut (its whole cycles'
// lower bound on their PEs). The weights streamed in rank a weight
// gradient, whose PEs work per token as well as per weight, too low.
double simulationCost(const runtime::SimulatedGemm& gemm, const config::ArchConfig& arch) {
  return double(gemm.full().bounds(arch).max()) * double(gemm.rows().gridX()) * double(gemm.rows().gridY());
}

// Runs one group on a chip of its own. Whatever it throws (building the
// chip, simulating, reading the timing) is kept for the caller: nothing
// leaves a worker thread.
GroupRun runGroup(const std::vector<runtime::SimulatedGemm*>& gemms, const std::vector<std::size_t>& members,
                  const std::vector<std::uint64_t>& streamedBytes, const GroupedRun& how,
                  sim::ProgressObserver* progress) {
  GroupRun r;
  const auto started = std::chrono::steady_clock::now();
  r.failedGemm = members.front();  // until a GEMM of the group runs
  try {
    std::uint32_t columns = 1;  // as wide as its widest GEMM needs
    for (std::size_t g : members) columns = std::max(columns, gemms[g]->meshColumns(how.arch));
    // As tall as its GEMMs' columns simulated (GEMMs sharing a line share a
    // layout, so their representative columns too), with SRAM for each.
    config::ArchConfig arch = gemms[members.front()]->simulatedArch(how.arch, columns);
    for (std::size_t g : members) {
      const config::ArchConfig own = gemms[g]->simulatedArch(how.arch, columns);
      if (own.mesh.height != arch.mesh.height)
        throw std::logic_error("the GEMMs of a group simulate meshes of " + std::to_string(arch.mesh.height) +
                               " and " + std::to_string(own.mesh.height) + " rows");
      arch.pe.sramBytes = std::max(arch.pe.sramBytes, own.pe.sramBytes);
    }
    chip::WaferChip chip(arch, how.run, workload::partsWithoutSystemc(how.parts, arch));
    std::vector<runtime::SimulatedGemm*> sequence;
    for (std::size_t g : members) sequence.push_back(gemms[g]);
    runtime::GemmSequence driver(sequence, chip.pes(), chip.routes(), chip.ingress(), chip.egress(), chip,
                                 how.arch.fabric.routeSwitchCycles);
    chip.setController(&driver);
    chip::RunOptions options;
    options.progress = progress;
    try {
      chip.simulate(options);
    } catch (...) {
      r.failedGemm = members[driver.starts().size() - 1];  // the one running
      throw;
    }
    for (std::size_t p = 0; p < members.size(); ++p)
      r.gemms.push_back(sequencedGemmTiming(driver, p, *gemms[members[p]], chip.cycles(), how.arch,
                                            columns, streamedBytes[members[p]]));
    r.cycles = chip.cycles();
    r.weightsIn = chip.fabric().counters().fromEdge;
    r.gradientsOut = chip.egress().received();
  } catch (...) {
    r.error = std::current_exception();
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return r;
}

}  // namespace

std::vector<std::vector<std::size_t>> independentGemmGroups(const std::vector<const runtime::SimulatedGemm*>& gemms,
                                                            bool sharedLines) {
  // Union-find over the GEMMs: two sharing a line key are one group.
  std::vector<std::size_t> parent(gemms.size());
  std::iota(parent.begin(), parent.end(), std::size_t(0));
  const auto root = [&](std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  if (sharedLines) {
    std::map<std::string, std::size_t> firstWithKey;
    for (std::size_t i = 0; i < gemms.size(); ++i)
      for (const std::string& key : gemms[i]->lineKeys()) {
        const auto [it, added] = firstWithKey.emplace(key, i);
        if (!added) parent[root(i)] = root(it->second);
      }
  }
  // Groups in the order of their first GEMM, each in the GEMMs' order.
  std::vector<std::vector<std::size_t>> groups;
  std::map<std::size_t, std::size_t> groupOfRoot;
  for (std::size_t i = 0; i < gemms.size(); ++i) {
    const auto [it, added] = groupOfRoot.emplace(root(i), groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  return groups;
}

GemmTiming sequencedGemmTiming(const runtime::GemmSequence& driver, std::size_t position,
                               const runtime::SimulatedGemm& gemm, std::uint64_t end, const config::ArchConfig& arch,
                               std::uint32_t meshColumns, std::uint64_t streamedBytes) {
  const runtime::GemmTime t = driver.fullTime(position, end, arch, meshColumns);
  return GemmTiming{t.cycles, t.inputEnd, streamedBytes, gemm.fullActions(driver.actions(position, end))};
}

GroupedTiming simulateGemmGroups(const std::vector<runtime::SimulatedGemm*>& gemms,
                                 const std::vector<std::vector<std::size_t>>& groups,
                                 const std::vector<std::uint64_t>& streamedBytes, const GroupedRun& how) {
  std::vector<double> costs;
  for (const std::vector<std::size_t>& members : groups) {
    double cost = 0;
    for (std::size_t g : members) cost += simulationCost(*gemms[g], how.arch);
    costs.push_back(std::max(cost, 1.0));
  }
  std::vector<GroupRun> runs(groups.size());
  workload::runAtOnce(costs, how.workers, how.progress, [&](std::size_t g, sim::ProgressObserver* progress) {
    runs[g] = runGroup(gemms, groups[g], streamedBytes, how, progress);
    if (runs[g].error) std::rethrow_exception(runs[g].error);  // no progress line says the step is done
  });

  const GroupRun* failed = nullptr;
  for (const GroupRun& r : runs)
    if (r.error && (!failed || r.failedGemm < failed->failedGemm)) failed = &r;
  if (failed) std::rethrow_exception(failed->error);

  GroupedTiming found;
  WaferTiming& timing = found.timing;
  timing.gemms.resize(gemms.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (std::size_t p = 0; p < groups[g].size(); ++p) timing.gemms[groups[g][p]] = runs[g].gemms[p];
    timing.simulatedCycles += runs[g].cycles;
    timing.weightsIn += runs[g].weightsIn;
    timing.gradientsOut += runs[g].gradientsOut;
    found.groupSeconds.push_back(runs[g].seconds);
  }
  return found;
}

}  // namespace wsesim::train
