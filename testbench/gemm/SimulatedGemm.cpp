#include "testbench/gemm/SimulatedGemm.h"

#include <algorithm>
#include <cmath>

#include "hw/config/ConfigError.h"

namespace wsesim::gemm {

firmware::GemmShape passShape(std::uint32_t m, std::uint32_t k, std::uint32_t n, pe::Precision precision,
                              firmware::GemmPass pass) {
  switch (pass) {
    case firmware::GemmPass::Forward: return {m, k, n, precision, pass};
    case firmware::GemmPass::BackwardData: return {m, n, k, precision, pass};
    case firmware::GemmPass::WeightGrad: break;
  }
  return {k, m, n, precision, pass};
}

namespace {

std::unique_ptr<firmware::GemmMapping> representativeRows(const std::string& algorithm,
                                                          const firmware::GemmMapping& full,
                                                          const config::ArchConfig& arch) {
  const firmware::GemmShape& shape = full.shape();
  if (shape.pass == firmware::GemmPass::WeightGrad) {
    // The rows split the tokens, the reduction's dimension, and pass their
    // sums down the columns: two rows, the larger block (if any) on top.
    const std::uint32_t rows = full.gridY(), low = shape.k / rows;
    if (rows <= 2) return nullptr;
    firmware::GemmShape sample = shape;
    sample.k = 2 * low + (shape.k % rows != 0 ? 1 : 0);
    return firmware::makeGemmMapping(algorithm, sample, arch, full.gridX(), 2);
  }
  // Balanced rows hold floor(M / rows) or that + 1 m's: one row of each
  // (the larger at the bottom, latest in the column multicast).
  const std::uint32_t rows = full.gridY(), low = shape.m / rows;
  const bool uneven = shape.m % rows != 0;
  firmware::GemmShape sample = shape;
  sample.m = uneven ? 2 * low + 1 : low;
  return firmware::makeGemmMapping(algorithm, sample, arch, full.gridX(), uneven ? 2 : 1);
}

}  // namespace

SimulatedGemm::SimulatedGemm(const std::string& algorithm, const firmware::GemmShape& shape,
                             const config::ArchConfig& arch, std::uint32_t gridX, std::uint32_t gridY,
                             const GemmSampling& sampling)
    : full_(firmware::makeGemmMapping(algorithm, shape, arch, gridX, gridY)) {
  if (sampling.representativeRows) rows_ = representativeRows(algorithm, *full_, arch);
  const firmware::GemmMapping& rows = rows_ ? *rows_ : *full_;
  const std::uint32_t s = sampling.steadyStateOutputs;
  std::vector<firmware::PhaseCut> cuts;
  bool anyCut = false;
  for (std::uint32_t p = 0; p < full_->phases(); ++p) {
    PhaseSample sample;
    sample.outputs = rows.phaseOutputs(p);
    if (s > 0 && sample.outputs > 2 * s) {
      sample.shortPhase = std::uint32_t(cuts.size());
      sample.shortN = s;
      cuts.push_back({p, s});
      anyCut = true;
    }
    sample.longPhase = std::uint32_t(cuts.size());
    sample.longN = sample.shortN ? 2 * s : sample.outputs;
    cuts.push_back({p, sample.longN});
    samples_.push_back(sample);
  }
  if (anyCut) cut_ = rows.cutPhases(cuts);
  if (!cut_)  // every phase simulated whole
    for (std::uint32_t p = 0; p < samples_.size(); ++p) samples_[p] = PhaseSample{samples_[p].outputs, 0, 0, p, 0};
}

GemmTime SimulatedGemm::fullTime(const std::vector<std::uint64_t>& phaseCycles, std::uint64_t inputEnd,
                                 const config::ArchConfig& arch, std::uint32_t meshRows) const {
  const firmware::GemmMapping& rows = rows_ ? *rows_ : *full_;
  const std::uint64_t hop = arch.fabric.hopLatencyCycles, ramp = arch.fabric.rampLatencyCycles;
  std::uint64_t perPhase = 0;  // the rows left out, in every phase
  if (full_->shape().pass == firmware::GemmPass::WeightGrad)
    perPhase = std::uint64_t(full_->gridY() - rows.gridY()) * 2 * ramp + std::uint64_t(arch.mesh.height - meshRows) * hop;
  else
    perPhase = std::uint64_t(full_->gridY() - rows.gridY()) * hop;

  GemmTime t;
  for (const PhaseSample& s : samples_) {
    std::uint64_t cycles = phaseCycles.at(s.longPhase);
    if (s.shortN) {
      // The steady state's period per n, from the two cuts, for the n's beyond the longer.
      const double perN = (double(cycles) - double(phaseCycles.at(s.shortPhase))) / double(s.longN - s.shortN);
      cycles += std::uint64_t(std::llround(std::max(0.0, perN) * double(s.outputs - s.longN)));
    }
    t.cycles += cycles + perPhase;
  }
  std::uint64_t simulated = 0;
  for (std::uint64_t c : phaseCycles) simulated += c;
  const std::uint64_t drain = simulated - std::min(simulated, inputEnd) + perPhase;
  t.inputEnd = t.cycles - std::min(t.cycles, drain);
  return t;
}

std::uint32_t SimulatedGemm::phasesExtrapolated() const {
  return std::uint32_t(std::count_if(samples_.begin(), samples_.end(), [](const PhaseSample& s) { return s.shortN != 0; }));
}

std::uint64_t SimulatedGemm::streamedWavelets(const fabric::MeshGeometry& mesh) const {
  std::uint64_t wavelets = 0;
  for (std::uint32_t phase = 0; phase < full_->phases(); ++phase)
    for (const wafer::EdgeStream& s : full_->streams(mesh, nullptr, phase)) wavelets += s.count;
  return wavelets;
}

config::ArchConfig withMeshRows(const config::ArchConfig& arch, std::uint32_t rows) {
  config::ArchConfig a = arch;
  a.mesh.height = rows;
  return a;
}

config::RunConfig withMeshRows(const config::RunConfig& run, std::uint32_t rows) {
  config::RunConfig r = run;
  if (r.vcdRegion.y0 >= rows)
    throw config::ConfigError("run.vcd.region.y0=" + std::to_string(r.vcdRegion.y0) + ": only rows 0.." +
                              std::to_string(rows - 1) +
                              " are simulated (workload.rows: representative); pick a region there or set "
                              "workload.rows: all");
  r.vcdRegion.y1 = std::min(r.vcdRegion.y1, rows - 1);
  return r;
}

}  // namespace wsesim::gemm
