#include "firmware/runtime/SimulatedGemm.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "firmware/gemm/registry/GemmAlgorithms.h"
#include "firmware/gemm/streaming/WeightStreamPlan.h"
#include "hw/common/ConfigError.h"
#include "hw/fabric/ColorRouteTable.h"

namespace wsesim::runtime {

firmware::GemmShape passShape(std::uint32_t m, std::uint32_t k, std::uint32_t n, pe::Precision precision,
                              GemmPass pass, const firmware::WeightSparsity& sparsity) {
  switch (pass) {
    case GemmPass::Forward: return {m, k, n, precision, pass, sparsity};
    case GemmPass::BackwardData: return {m, n, k, precision, pass, sparsity.transposedView()};
    case GemmPass::WeightGrad: break;
  }
  return {k, m, n, precision, pass, sparsity};
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
  // Balanced rows hold floor(M / rows) or that + 1 m's. One row of the
  // larger stands for all: a row's only tie to the others is the weights'
  // multicast along each column's mesh row, and a row with fewer m's takes
  // each weight, and sums each n, no later, so it never holds the larger
  // ones back.
  firmware::GemmShape sample = shape;
  sample.m = (shape.m + full.gridY() - 1) / full.gridY();
  return firmware::makeGemmMapping(algorithm, sample, arch, full.gridX(), 1, buffering);
}

}  // namespace

SimulatedGemm::SimulatedGemm(const std::string& algorithm, const firmware::GemmShape& shape,
                             const config::ArchConfig& arch, std::uint32_t gridX, std::uint32_t gridY,
                             firmware::Buffering buffering, const GemmSampling& sampling)
    : full_(firmware::makeGemmMapping(algorithm, shape, arch, gridX, gridY, buffering)),
      ingressRing_(arch.ioRingEdge(firmware::streamedWaveletBytes(shape))),
      sampling_(sampling),
      colors_(arch.fabric.colors),
      switchCycles_(arch.fabric.routeSwitchCycles),
      meshRows_(arch.mesh.height) {
  if (sampling.representativeRows) rows_ = representativeRows(algorithm, *full_, arch);
  meshColumns_ = meshColumns(arch);
  if (rows().phases() != full_->phases())
    throw std::logic_error("representative rows of " + full_->describe() + " run in other phases");
  for (std::uint32_t p = 0; p < full_->phases(); ++p) {
    PhaseSample sample;
    sample.outputs = rows().phaseOutputs(p);
    samples_.push_back(sample);
  }
  planFirstRound({});
}

void SimulatedGemm::begin(const KindLines& learnt) {
  if (!sampling_.representativePhases || learnt.empty()) return;
  rounds_.clear();
  planFirstRound(learnt);
}

void SimulatedGemm::planFirstRound(const KindLines& learnt) {
  kinds_.clear();
  kindOf_.assign(samples_.size(), -1);
  for (PhaseSample& s : samples_) s.interpolated = false;
  if (sampling_.representativePhases) pickRepresentativePhases(learnt);
  std::vector<firmware::PhaseCut> cuts;
  bool sampled = false;
  for (std::uint32_t p = 0; p < full_->phases(); ++p) {
    sampled = sampled || samples_[p].interpolated;
    if (samples_[p].interpolated) continue;
    cuts.push_back(firstCut(p, samples_[p].outputs));
    sampled = sampled || cuts.back().outputs < samples_[p].outputs;
  }
  if (sampled) {
    startRound(std::move(cuts));
  } else {  // the GEMM as it is: its phases' cycles hold their own route switches
    fullRerouted_.clear();
    roundRerouted_.clear();
    roundCuts_ = std::move(cuts);
  }
}

firmware::PhaseCut SimulatedGemm::firstCut(std::uint32_t phase, std::uint32_t outputs) const {
  // Settling takes four cuts at least (S + 2S + 4S + 8S n's, each round
  // from an empty mesh): a phase no longer than that runs whole.
  const std::uint32_t s = sampling_.steadyStateOutputs;
  return {phase, s > 0 && outputs > 16 * s ? s : outputs};
}

std::uint32_t SimulatedGemm::nextCut(const PhaseSample& s) const {
  // A cut of more than half the phase saves fewer n's than it runs, and a
  // phase it does not settle runs whole after it: the phase runs whole.
  const std::uint32_t twice = 2 * s.cuts.back().first;
  return twice > s.outputs / 2 ? s.outputs : twice;
}

std::string SimulatedGemm::lineKey(const std::string& kind) const {
  return rows().outline().phaseLayout + "|" + kind;
}

std::set<std::string> SimulatedGemm::lineKeys() const {
  std::set<std::string> keys;
  const std::vector<firmware::PhaseLikeness>& likeness = full_->outline().phaseLikeness;
  if (likeness.size() != samples_.size()) return keys;
  for (std::uint32_t p = 0; p + 1 < samples_.size(); ++p) keys.insert(lineKey(likeness[p].kind));
  return keys;
}

void SimulatedGemm::pickRepresentativePhases(const KindLines& learnt) {
  const std::vector<firmware::PhaseLikeness>& likeness = full_->outline().phaseLikeness;
  if (likeness.size() != samples_.size()) return;
  std::map<std::string, std::vector<std::uint32_t>> byKind;
  // The last phase's drain ends the GEMM: it is always simulated.
  for (std::uint32_t p = 0; p + 1 < samples_.size(); ++p) byKind[likeness[p].kind].push_back(p);
  for (const auto& [name, members] : byKind) {
    const auto line = learnt.find(lineKey(name));
    // Without a learnt line, three phases make the line and check it.
    if (members.size() < (line != learnt.end() ? 2u : 4u)) continue;  // nothing left to interpolate
    std::vector<std::uint32_t> byReach = members;
    std::stable_sort(byReach.begin(), byReach.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return likeness[a].reach < likeness[b].reach; });
    PhaseKind kind{byReach.front(), byReach.back(), byReach[byReach.size() / 2], members, std::nullopt};
    if (line != learnt.end()) kind.learnt = line->second;
    for (std::uint32_t p : members) {
      kindOf_[p] = int(kinds_.size());
      samples_[p].interpolated = p != kind.check && (kind.learnt || (p != kind.nearest && p != kind.farthest));
    }
    kinds_.push_back(kind);
  }
}

void SimulatedGemm::learn(KindLines& learnt, const std::vector<std::uint64_t>& phaseCycles) const {
  const std::vector<PhaseSample> samples = withRound(phaseCycles);
  const std::vector<firmware::PhaseLikeness>& likeness = full_->outline().phaseLikeness;
  for (const PhaseKind& k : kinds_)
    if (!k.learnt && settled(samples[k.nearest]) && settled(samples[k.farthest]) && !offTheLine(samples, k))
      learnt.emplace(lineKey(likeness[k.nearest].kind),
                     KindLine{likeness[k.nearest].reach, likeness[k.farthest].reach,
                              double(cyclesOf(samples[k.nearest])), double(cyclesOf(samples[k.farthest]))});
}

std::vector<bool> SimulatedGemm::reroutedPhases(const firmware::GemmMapping& mapping) const {
  fabric::ColorRouteTable routes(fabric::MeshGeometry{meshColumns_, meshRows_}, colors_);
  mapping.programRoutes(routes);
  std::vector<bool> rerouted;
  for (std::uint32_t p = 0; p < mapping.phases(); ++p) {
    const std::uint64_t revision = routes.revision();
    mapping.programPhaseRoutes(routes, p);
    rerouted.push_back(p > 0 && routes.revision() != revision);
  }
  return rerouted;
}

void SimulatedGemm::startRound(std::vector<firmware::PhaseCut> cuts) {
  std::unique_ptr<firmware::GemmMapping> mapping = rows().cutPhases(cuts);
  if (!mapping) throw std::logic_error(full_->describe() + " cannot cut its phases");
  if (fullRerouted_.empty()) fullRerouted_ = reroutedPhases(rows());
  roundRerouted_ = reroutedPhases(*mapping);
  rounds_.push_back(std::move(mapping));
  roundCuts_ = std::move(cuts);
}

std::vector<SimulatedGemm::PhaseSample> SimulatedGemm::withRound(const std::vector<std::uint64_t>& phaseCycles) const {
  if (phaseCycles.size() != roundCuts_.size())
    throw std::logic_error(std::to_string(phaseCycles.size()) + " phase cycles for a round of " +
                           std::to_string(roundCuts_.size()) + " phases of " + full_->describe());
  std::vector<PhaseSample> samples = samples_;
  for (std::size_t i = 0; i < roundCuts_.size(); ++i) {
    const std::uint64_t switched = !roundRerouted_.empty() && roundRerouted_[i] ? switchCycles_ : 0;
    samples[roundCuts_[i].phase].cuts.emplace_back(roundCuts_[i].outputs, phaseCycles[i] - std::min(phaseCycles[i], switched));
  }
  return samples;
}

bool SimulatedGemm::settled(const PhaseSample& s) const {
  if (s.interpolated || s.whole()) return true;
  if (s.cuts.empty()) return false;  // a phase its kind's line no longer gives
  // Three periods, not two: some pipelines pause on a plateau before they
  // settle (measured when weights entered the columns from the north edge:
  // a weight gradient with 2 tokens per row ran 87 cycles per n over its
  // first 64 n's, 68 from about 500 on).
  const std::size_t last = s.cuts.size() - 1;
  if (last < 3) return false;
  const double p = s.period(last), tolerance = sampling_.steadyStateTolerance * std::abs(p);
  return std::abs(p - s.period(last - 1)) <= tolerance && std::abs(p - s.period(last - 2)) <= tolerance;
}

std::uint64_t SimulatedGemm::cyclesOf(const PhaseSample& s) const {
  const auto [n, cycles] = s.cuts.back();
  // The n's beyond the longest cut, at its last period.
  const double rest = s.whole() ? 0.0 : std::max(0.0, s.period(s.cuts.size() - 1)) * double(s.outputs - n);
  return cycles + std::uint64_t(std::llround(rest));
}

double SimulatedGemm::interpolatedCycles(const std::vector<PhaseSample>& samples, const PhaseKind& kind,
                                         std::uint32_t phase) const {
  const std::vector<firmware::PhaseLikeness>& likeness = full_->outline().phaseLikeness;
  const KindLine line = kind.learnt ? *kind.learnt
                                    : KindLine{likeness[kind.nearest].reach, likeness[kind.farthest].reach,
                                               double(cyclesOf(samples[kind.nearest])),
                                               double(cyclesOf(samples[kind.farthest]))};
  if (line.fromReach == line.toReach) return line.fromCycles;
  return line.fromCycles + (line.toCycles - line.fromCycles) * (double(likeness[phase].reach) - line.fromReach) /
                               (double(line.toReach) - line.fromReach);
}

bool SimulatedGemm::offTheLine(const std::vector<PhaseSample>& samples, const PhaseKind& kind) const {
  for (std::uint32_t p : {kind.nearest, kind.farthest, kind.check})
    if ((!kind.learnt || p == kind.check) && !settled(samples[p])) return false;
  const double simulated = double(cyclesOf(samples[kind.check]));
  return std::abs(interpolatedCycles(samples, kind, kind.check) - simulated) > sampling_.steadyStateTolerance * simulated;
}

bool SimulatedGemm::anotherRound(const std::vector<std::uint64_t>& phaseCycles) const {
  const std::vector<PhaseSample> samples = withRound(phaseCycles);
  const auto interpolating = [&](const PhaseKind& k) {
    return std::any_of(k.members.begin(), k.members.end(), [&](std::uint32_t p) { return samples[p].interpolated; });
  };
  return !std::all_of(samples.begin(), samples.end(), [&](const PhaseSample& s) { return settled(s); }) ||
         std::any_of(kinds_.begin(), kinds_.end(), [&](const PhaseKind& k) { return interpolating(k) && offTheLine(samples, k); });
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
  // A kind whose check lies off an earlier GEMM's line makes its own from
  // its nearest and farthest phases; off its own line, it has all its
  // phases simulated.
  for (PhaseKind& k : kinds_) {
    if (!offTheLine(samples_, k)) continue;
    if (k.learnt) {
      k.learnt.reset();
      samples_[k.nearest].interpolated = samples_[k.farthest].interpolated = false;
    } else {
      for (std::uint32_t p : k.members) samples_[p].interpolated = false;
    }
  }
  std::vector<firmware::PhaseCut> cuts;
  for (std::uint32_t p = 0; p < samples_.size(); ++p) {
    const PhaseSample& s = samples_[p];
    if (settled(s)) continue;
    cuts.push_back(s.cuts.empty() ? firstCut(p, s.outputs) : firmware::PhaseCut{p, nextCut(s)});
  }
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
  const std::vector<PhaseSample> samples = withRound(phaseCycles);
  for (std::uint32_t p = 0; p < samples.size(); ++p) {
    const PhaseSample& s = samples[p];
    if (s.interpolated) {
      t.cycles += std::uint64_t(std::llround(interpolatedCycles(samples, kinds_[std::size_t(kindOf_[p])], p))) + perPhase;
      ++t.phasesInterpolated;
      continue;
    }
    t.cycles += cyclesOf(s) + perPhase;
    t.phasesExtrapolated += !s.whole();
  }
  // Sampled, the phases' own cycles, and the route switches of the whole
  // GEMM's order of phases (those of a round's order left out).
  for (bool rerouted : fullRerouted_) t.cycles += rerouted ? switchCycles_ : 0;
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

double SimulatedGemm::multiplyAdds() const {
  const firmware::GemmShape& s = full_->shape();
  // Sparse weights streamed: an FMAC per non-zero (the weight gradient's products stay dense).
  const std::uint64_t weights =
      s.pass == GemmPass::WeightGrad ? std::uint64_t(s.k) * s.n : s.sparsity.keptCount(s.k, s.n);
  return double(s.m) * double(weights);
}

energy::ActionCounts SimulatedGemm::fullActions(const energy::ActionCounts& simulated) const {
  const firmware::GemmShape& s = full_->shape();
  const double macs = simulated.elements(pe::Opcode::Fmac, s.precision);
  if (!sampling_.sampled() || macs == 0) return simulated;
  return simulated * (multiplyAdds() / macs);
}

bool SimulatedGemm::timesLike(const SimulatedGemm& other) const {
  // Without representative rows the whole GEMM runs, tokens and all.
  if (!rows_ || !other.rows_) return false;
  const firmware::GemmShape &a = full_->shape(), &b = other.full_->shape();
  // The tokens are m of a forward or backward-data product, k of a weight gradient.
  const bool tokensInK = a.pass == GemmPass::WeightGrad;
  const auto samePhases = [](const firmware::GemmOutline& x, const firmware::GemmOutline& y) {
    if (x.phaseOutputs != y.phaseOutputs || x.phaseLikeness.size() != y.phaseLikeness.size()) return false;
    for (std::size_t p = 0; p < x.phaseLikeness.size(); ++p)
      if (x.phaseLikeness[p].kind != y.phaseLikeness[p].kind || x.phaseLikeness[p].reach != y.phaseLikeness[p].reach)
        return false;
    return true;
  };
  return a.pass == b.pass && a.precision == b.precision && a.sparsity == b.sparsity && a.n == b.n &&
         (tokensInK ? a.m == b.m : a.k == b.k) && full_->gridX() == other.full_->gridX() &&
         full_->gridY() == other.full_->gridY() && rows_->describe() == other.rows_->describe() &&
         samePhases(full_->outline(), other.full_->outline()) && samePhases(rows_->outline(), other.rows_->outline()) &&
         rows_->outline().phaseLayout == other.rows_->outline().phaseLayout;
}

config::ArchConfig withMeshColumns(const config::ArchConfig& arch, std::uint32_t columns) {
  config::ArchConfig a = arch;
  a.mesh.width = columns;
  return a;
}

config::RunConfig withMeshColumns(const config::RunConfig& run, std::uint32_t columns) {
  config::RunConfig r = run;
  if (r.vcdRegion.x0 >= columns)
    throw config::ConfigError("run.vcd.region.x0=" + std::to_string(r.vcdRegion.x0) + ": only mesh " +
                              (columns == 1 ? std::string("column 0 is")
                                            : "columns 0.." + std::to_string(columns - 1) + " are") +
                              " simulated (workload.rows: representative; the grid's rows lie along mesh "
                              "columns); pick a region there or set workload.rows: all");
  r.vcdRegion.x1 = std::min(r.vcdRegion.x1, columns - 1);
  return r;
}

}  // namespace wsesim::runtime
