#include "firmware/runtime/SimulatedGemm.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "firmware/gemm/GemmAlgorithms.h"
#include "firmware/gemm/WeightStreamPlan.h"
#include "hw/config/ConfigError.h"

namespace wsesim::runtime {

firmware::GemmShape passShape(std::uint32_t m, std::uint32_t k, std::uint32_t n, pe::Precision precision,
                              GemmPass pass) {
  switch (pass) {
    case GemmPass::Forward: return {m, k, n, precision, pass};
    case GemmPass::BackwardData: return {m, n, k, precision, pass};
    case GemmPass::WeightGrad: break;
  }
  return {k, m, n, precision, pass};
}

namespace {

std::unique_ptr<firmware::GemmMapping> representativeRows(const std::string& algorithm,
                                                          const firmware::GemmMapping& full,
                                                          const config::ArchConfig& arch) {
  const firmware::GemmShape& shape = full.shape();
  const firmware::Buffering buffering = full.buffering().value_or(firmware::Buffering::Auto);
  if (shape.pass == GemmPass::WeightGrad) {
    // The rows split the tokens, the reduction's dimension, and pass their
    // sums down the columns: two rows, the larger block (if any) on top.
    const std::uint32_t rows = full.gridY(), low = shape.k / rows;
    if (rows <= 2) return nullptr;
    firmware::GemmShape sample = shape;
    sample.k = 2 * low + (shape.k % rows != 0 ? 1 : 0);
    return firmware::makeGemmMapping(algorithm, sample, arch, full.gridX(), 2, buffering);
  }
  // Balanced rows hold floor(M / rows) or that + 1 m's: one row of each
  // (the larger at the bottom, latest in the column multicast).
  const std::uint32_t rows = full.gridY(), low = shape.m / rows;
  const bool uneven = shape.m % rows != 0;
  firmware::GemmShape sample = shape;
  sample.m = uneven ? 2 * low + 1 : low;
  return firmware::makeGemmMapping(algorithm, sample, arch, full.gridX(), uneven ? 2 : 1, buffering);
}

}  // namespace

SimulatedGemm::SimulatedGemm(const std::string& algorithm, const firmware::GemmShape& shape,
                             const config::ArchConfig& arch, std::uint32_t gridX, std::uint32_t gridY,
                             firmware::Buffering buffering, const GemmSampling& sampling)
    : full_(firmware::makeGemmMapping(algorithm, shape, arch, gridX, gridY, buffering)), sampling_(sampling) {
  if (sampling.representativeRows) rows_ = representativeRows(algorithm, *full_, arch);
  if (rows().phases() != full_->phases())
    throw std::logic_error("representative rows of " + full_->describe() + " run in other phases");
  const std::uint32_t s = sampling.steadyStateOutputs;
  std::vector<firmware::PhaseCut> cuts;
  bool cut = false;
  for (std::uint32_t p = 0; p < full_->phases(); ++p) {
    PhaseSample sample;
    sample.outputs = rows().phaseOutputs(p);
    samples_.push_back(sample);
    // Settling takes four cuts at least (S + 2S + 4S + 8S n's, each round
    // from an empty mesh): a phase no longer than that runs whole.
    if (s > 0 && sample.outputs > 16 * s) {
      cuts.push_back({p, s});
      cut = true;
    } else {
      cuts.push_back({p, sample.outputs});  // whole
    }
  }
  if (cut)
    startRound(std::move(cuts));
  else
    roundCuts_ = std::move(cuts);
}

void SimulatedGemm::startRound(std::vector<firmware::PhaseCut> cuts) {
  std::unique_ptr<firmware::GemmMapping> mapping = rows().cutPhases(cuts);
  if (!mapping) throw std::logic_error(full_->describe() + " cannot cut its phases");
  rounds_.push_back(std::move(mapping));
  roundCuts_ = std::move(cuts);
}

std::vector<SimulatedGemm::PhaseSample> SimulatedGemm::withRound(const std::vector<std::uint64_t>& phaseCycles) const {
  if (phaseCycles.size() != roundCuts_.size())
    throw std::logic_error(std::to_string(phaseCycles.size()) + " phase cycles for a round of " +
                           std::to_string(roundCuts_.size()) + " phases of " + full_->describe());
  std::vector<PhaseSample> samples = samples_;
  for (std::size_t i = 0; i < roundCuts_.size(); ++i)
    samples[roundCuts_[i].phase].cuts.emplace_back(roundCuts_[i].outputs, phaseCycles[i]);
  return samples;
}

bool SimulatedGemm::settled(const PhaseSample& s) const {
  if (s.whole()) return true;
  // Three periods, not two: some pipelines pause on a plateau before they
  // settle (measured when weights entered the columns from the north edge:
  // a weight gradient with 2 tokens per row ran 87 cycles per n over its
  // first 64 n's, 68 from about 500 on).
  const std::size_t last = s.cuts.size() - 1;
  if (last < 3) return false;
  const double p = s.period(last), tolerance = sampling_.steadyStateTolerance * std::abs(p);
  return std::abs(p - s.period(last - 1)) <= tolerance && std::abs(p - s.period(last - 2)) <= tolerance;
}

bool SimulatedGemm::anotherRound(const std::vector<std::uint64_t>& phaseCycles) const {
  const std::vector<PhaseSample> samples = withRound(phaseCycles);
  return !std::all_of(samples.begin(), samples.end(), [&](const PhaseSample& s) { return settled(s); });
}

namespace {
std::uint64_t drainOf(const std::vector<std::uint64_t>& phaseCycles, std::uint64_t inputEnd) {
  std::uint64_t simulated = 0;
  for (std::uint64_t c : phaseCycles) simulated += c;
  return simulated - std::min(simulated, inputEnd);
}
}  // namespace

void SimulatedGemm::nextRound(const std::vector<std::uint64_t>& phaseCycles, std::uint64_t inputEnd) {
  samples_ = withRound(phaseCycles);
  if (roundCuts_.back().phase + 1 == full_->phases()) drain_ = drainOf(phaseCycles, inputEnd);
  std::vector<firmware::PhaseCut> cuts;
  for (std::uint32_t p = 0; p < samples_.size(); ++p)
    if (!settled(samples_[p])) cuts.push_back({p, std::min(2 * samples_[p].cuts.back().first, samples_[p].outputs)});
  startRound(std::move(cuts));
}

GemmTime SimulatedGemm::fullTime(const std::vector<std::uint64_t>& phaseCycles, std::uint64_t inputEnd,
                                 const config::ArchConfig& arch, std::uint32_t meshColumns) const {
  const std::uint64_t hop = arch.fabric.hopLatencyCycles, ramp = arch.fabric.rampLatencyCycles;
  const std::uint64_t rowsLeftOut = full_->gridY() - rows().gridY(), columnsLeftOut = arch.mesh.width - meshColumns;
  std::uint64_t perPhase = 0;  // the rows left out, in every phase
  if (full_->shape().pass == GemmPass::WeightGrad)
    perPhase = rowsLeftOut * (2 * ramp + arch.pe.fabricInputCycles) + columnsLeftOut * hop;
  else  // the multicast's farthest reach, on the whole mesh against the one simulated
    perPhase = std::uint64_t(firmware::WeightStreamPlan::multicastHops(full_->gridX(), full_->gridY(), arch.mesh.width) -
                             firmware::WeightStreamPlan::multicastHops(rows().gridX(), rows().gridY(), meshColumns)) *
               hop;

  GemmTime t;
  for (const PhaseSample& s : withRound(phaseCycles)) {
    const auto [n, cycles] = s.cuts.back();
    // The n's beyond the longest cut, at its last period.
    const double rest = s.whole() ? 0.0 : std::max(0.0, s.period(s.cuts.size() - 1)) * double(s.outputs - n);
    t.cycles += cycles + std::uint64_t(std::llround(rest)) + perPhase;
    t.phasesExtrapolated += !s.whole();
  }
  const std::uint64_t drain =
      (roundCuts_.back().phase + 1 == full_->phases() ? drainOf(phaseCycles, inputEnd) : drain_) + perPhase;
  t.inputEnd = t.cycles - std::min(t.cycles, drain);
  return t;
}

std::uint64_t SimulatedGemm::streamedWavelets(const fabric::MeshGeometry& mesh) const {
  std::uint64_t wavelets = 0;
  for (std::uint32_t phase = 0; phase < full_->phases(); ++phase)
    for (const wafer::EdgeStream& s : full_->streams(mesh, nullptr, phase)) wavelets += s.count;
  return wavelets;
}

energy::ActionCounts SimulatedGemm::fullActions(const energy::ActionCounts& simulated) const {
  const firmware::GemmShape& s = full_->shape();
  const double macs = simulated.elements(pe::Opcode::Fmac, s.precision);
  if ((!sampling_.representativeRows && !sampling_.steadyStateOutputs) || macs == 0) return simulated;
  return simulated * (double(s.m) * double(s.k) * double(s.n) / macs);
}

config::ArchConfig withMeshColumns(const config::ArchConfig& arch, std::uint32_t columns) {
  config::ArchConfig a = arch;
  a.mesh.width = columns;
  return a;
}

config::RunConfig withMeshColumns(const config::RunConfig& run, std::uint32_t columns) {
  config::RunConfig r = run;
  if (r.vcdRegion.x0 >= columns)
    throw config::ConfigError("run.vcd.region.x0=" + std::to_string(r.vcdRegion.x0) + ": only mesh columns 0.." +
                              std::to_string(columns - 1) +
                              " are simulated (workload.rows: representative; the grid's rows lie along mesh "
                              "columns); pick a region there or set workload.rows: all");
  r.vcdRegion.x1 = std::min(r.vcdRegion.x1, columns - 1);
  return r;
}

}  // namespace wsesim::runtime
