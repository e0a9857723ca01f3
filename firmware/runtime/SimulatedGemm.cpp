#include "firmware/runtime/SimulatedGemm.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "firmware/gemm/registry/GemmAlgorithms.h"
#include "firmware/gemm/streaming/WeightGradGemm.h"
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
  if (sampling.representativeColumns && rows_)
    if (const auto* grad = dynamic_cast<const firmware::WeightGradGemm*>(rows_.get()))
      if (std::optional<firmware::WeightGradGemm::ColumnSample> sample = grad->representativeColumns(arch)) {
        // The sample's targets may repeat where the whole grid's do not: the
        // route switches are the whole grid's rows' (fullTime).
        fullRerouted_ = reroutedPhases(*rows_);
        bandRows_ = sample->bandRows;
        sampleSramBytes_ = sample->sramBytes;
        lateness_ = std::move(sample->lateness);
        rows_ = std::move(sample->mapping);
        meshRows_ = firmware::WeightGradGemm::ColumnSample::kBands * bandRows_;
      }
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
  // Representative columns route their phases their own way: the whole grid's switches are added.
  bool sampled = bandRows_ > 0;
  for (std::uint32_t p = 0; p < full_->phases(); ++p) {
    sampled = sampled || samples_[p].interpolated;
    if (samples_[p].interpolated) continue;
    const std::optional<firmware::PhaseCut> cut = nextFirstCut(p, cuts);
    sampled = sampled || !cut || cut->outputs < samples_[p].outputs;
    if (cut) cuts.push_back(*cut);
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
  // Settling takes four cuts at least (S + 2S + 4S + 8S = 15S n's, each
  // round from an empty mesh): a phase no longer than 16S runs whole.
  const std::uint64_t s = sampling_.steadyStateOutputs;
  if (s == 0 || outputs <= 16 * s) return {phase, outputs};
  // Phases of one kind run the same programs on the same blocks, so their
  // cuts settle about as often: once the kind's phases done with cuts have
  // run more n's in them than running them whole would have, the others
  // run whole, and while none is done the kind's first phase cut tells.
  // Its cuts pay when the n's they save the kind's simulated phases if
  // they settle are more than the 15S they cost if they do not (GPT-J's
  // passes of 136 to 145 n's at S = 8 save at most 25 n's each, and its
  // weight gradients' did not settle).
  const KindCuts k = kindCuts(phase, {});
  const bool pays = k.done ? k.ran <= k.whole : k.simulated * (outputs - 15 * s) > 15 * s;
  return {phase, pays ? std::uint32_t(s) : outputs};
}

SimulatedGemm::KindCuts SimulatedGemm::kindCuts(std::uint32_t phase, const std::vector<firmware::PhaseCut>& round) const {
  KindCuts k;
  const std::vector<firmware::PhaseLikeness>& likeness = full_->outline().phaseLikeness;
  if (likeness.size() != samples_.size()) {  // no kinds: no phase interpolated, each its own
    k.simulated = samples_.size();
    return k;
  }
  k.simulated = !samples_[phase].interpolated;
  for (std::uint32_t q = 0; q < samples_.size(); ++q) {
    const PhaseSample& s = samples_[q];
    if (q == phase || likeness[q].kind != likeness[phase].kind) continue;
    k.simulated += !s.interpolated;
    if (s.cuts.size() >= 2 && settled(s)) {
      k.done = true;
      for (const Cut& c : s.cuts) k.ran += c.outputs;
      k.whole += s.outputs;
    }
    k.cutting = k.cutting || (!s.cuts.empty() && !settled(s));
  }
  for (const firmware::PhaseCut& c : round)
    k.cutting = k.cutting || (likeness[c.phase].kind == likeness[phase].kind && c.outputs < samples_[c.phase].outputs);
  return k;
}

std::optional<firmware::PhaseCut> SimulatedGemm::nextFirstCut(std::uint32_t phase,
                                                              const std::vector<firmware::PhaseCut>& round) const {
  const firmware::PhaseCut cut = firstCut(phase, samples_[phase].outputs);
  if (cut.outputs == samples_[phase].outputs) return cut;
  // Its kind's first phase to be cut goes alone, and the others wait for
  // what its cuts did: a phase that never settles runs its cuts and then
  // runs whole, nearly twice its n's when it is short (BERT-Large's LM-head
  // backward-data passes of 171 n's, four of six unsettled by 64, took
  // 1,402 n's for 1,026).
  const KindCuts k = kindCuts(phase, round);
  if (!k.done && k.cutting) return std::nullopt;
  return cut;
}

std::uint32_t SimulatedGemm::nextCut(const PhaseSample& s) const {
  // A cut of more than half the phase saves fewer n's than it runs, and a
  // phase it does not settle runs whole after it: the phase runs whole.
  const std::uint32_t twice = 2 * s.cuts.back().outputs;
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
    // A line learnt by an earlier GEMM of the layout was checked there, on
    // the same programs on the same blocks at every reach: a dense GEMM's
    // phases lie on it. A sparse GEMM's passes differ by their weights'
    // pattern, which that line does not know: one of them checks it.
    const bool trusted = line != learnt.end() && full_->shape().sparsity.dense();
    // Without a learnt line, three phases make the line and check it.
    if (members.size() < (trusted ? 1u : line != learnt.end() ? 2u : 4u)) continue;  // nothing left to interpolate
    PhaseKind kind;
    kind.byReach = members;
    std::stable_sort(kind.byReach.begin(), kind.byReach.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return likeness[a].reach < likeness[b].reach; });
    if (line != learnt.end()) {
      kind.learnt = line->second;
      if (!trusted) kind.checks.push_back({std::uint32_t(members.size() / 2), 0, 0});
    } else {
      kind.spanOwnLine();
    }
    for (std::uint32_t p : members) samples_[p].interpolated = true;
    for (std::uint32_t at : kind.simulatedAt()) samples_[kind.byReach[at]].interpolated = false;
    kinds_.push_back(kind);
  }
  indexKinds();
}

void SimulatedGemm::indexKinds() {
  kindOf_.assign(samples_.size(), -1);
  for (std::size_t i = 0; i < kinds_.size(); ++i)
    for (std::uint32_t p : kinds_[i].byReach) kindOf_[p] = int(i);
}

void SimulatedGemm::learn(KindLines& learnt, const std::vector<PhaseRun>& phases) const {
  const std::vector<PhaseSample> samples = withRound(phases);
  const std::vector<firmware::PhaseLikeness>& likeness = full_->outline().phaseLikeness;
  // A kind whose first check lay on its own line: that line.
  for (const PhaseKind& k : kinds_) {
    if (k.learnt || k.split) continue;
    const std::uint32_t nearest = k.byReach.front(), farthest = k.byReach.back();
    learnt.emplace(lineKey(likeness[nearest].kind),
                   KindLine{likeness[nearest].reach, likeness[farthest].reach, double(cyclesOf(samples[nearest])),
                            double(cyclesOf(samples[farthest]))});
  }
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

std::vector<SimulatedGemm::PhaseSample> SimulatedGemm::withRound(const std::vector<PhaseRun>& phases) const {
  if (phases.size() != roundCuts_.size())
    throw std::logic_error(std::to_string(phases.size()) + " phase cycles for a round of " +
                           std::to_string(roundCuts_.size()) + " phases of " + full_->describe());
  std::vector<PhaseSample> samples = samples_;
  for (std::size_t i = 0; i < roundCuts_.size(); ++i) {
    // The route switch before it is the GEMM's order's (fullTime); its PEs'
    // cycles count from its programs' load, after the switch.
    const std::uint64_t switched = !roundRerouted_.empty() && roundRerouted_[i] ? switchCycles_ : 0;
    PhaseSample& s = samples[roundCuts_[i].phase];
    s.cuts.push_back({roundCuts_[i].outputs, phases[i].cycles - std::min(phases[i].cycles, switched)});
    if (s.peFinish.size() == 3) s.peFinish.erase(s.peFinish.begin());
    s.peFinish.push_back(std::make_shared<const std::vector<std::uint32_t>>(phases[i].peFinish));
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
  const std::size_t last = s.cuts.size() - 1;
  const Cut& cut = s.cuts[last];
  if (s.whole()) return cut.cycles;
  // The n's beyond the longest cut: the phase's end at its last period, or
  // later, when a PE whose period has settled (over the last three cuts)
  // ends past it on its own line, the end's lag behind the last PE after.
  const double rest = double(s.outputs - cut.outputs);
  double cycles = double(cut.cycles) + std::max(0.0, s.period(last)) * rest;
  if (s.peFinish.size() == 3 && !s.peFinish[2]->empty() && s.peFinish[0]->size() == s.peFinish[2]->size() &&
      s.peFinish[1]->size() == s.peFinish[2]->size()) {
    const std::vector<std::uint32_t>& x = *s.peFinish[0];
    const std::vector<std::uint32_t>& y = *s.peFinish[1];
    const std::vector<std::uint32_t>& z = *s.peFinish[2];
    const double early = double(s.cuts[last - 1].outputs - s.cuts[last - 2].outputs),
                 late = double(cut.outputs - s.cuts[last - 1].outputs);
    double latest = 0, lastPe = 0;
    for (std::size_t pe = 0; pe < z.size(); ++pe) {
      lastPe = std::max(lastPe, double(z[pe]));
      const double before = (double(y[pe]) - x[pe]) / early, period = (double(z[pe]) - y[pe]) / late;
      if (period > 0 && std::abs(period - before) <= sampling_.steadyStateTolerance * period)
        latest = std::max(latest, z[pe] + period * rest);
    }
    cycles = std::max(cycles, latest + std::max(0.0, double(cut.cycles) - lastPe));
  }
  return std::uint64_t(std::llround(cycles));
}

double SimulatedGemm::lineAt(const std::vector<PhaseSample>& samples, const PhaseKind& kind, std::uint32_t from,
                             std::uint32_t to, std::uint32_t phase) const {
  const std::vector<firmware::PhaseLikeness>& likeness = full_->outline().phaseLikeness;
  const std::uint32_t a = kind.byReach[from], b = kind.byReach[to];
  const KindLine line = kind.learnt ? *kind.learnt
                                    : KindLine{likeness[a].reach, likeness[b].reach, double(cyclesOf(samples[a])),
                                               double(cyclesOf(samples[b]))};
  if (line.fromReach == line.toReach) return line.fromCycles;
  return line.fromCycles + (line.toCycles - line.fromCycles) * (double(likeness[phase].reach) - line.fromReach) /
                               (double(line.toReach) - line.fromReach);
}

double SimulatedGemm::interpolatedCycles(const std::vector<PhaseSample>& samples, const PhaseKind& kind,
                                         std::uint32_t phase) const {
  if (kind.learnt) return lineAt(samples, kind, 0, 0, phase);
  // On the piece between the knots either side of it in reach.
  const auto position = std::find(kind.byReach.begin(), kind.byReach.end(), phase);
  const std::uint32_t at = std::uint32_t(position - kind.byReach.begin());
  const auto to = std::upper_bound(kind.knots.begin(), kind.knots.end(), at);
  return lineAt(samples, kind, *(to - 1), *to, phase);
}

void SimulatedGemm::PhaseKind::spanOwnLine() {
  const std::uint32_t last = std::uint32_t(byReach.size() - 1);
  knots.clear();
  checks.clear();
  if (last < 2) {  // no phase between the ends: each is simulated
    for (std::uint32_t at = 0; at <= last; ++at) knots.push_back(at);
    return;
  }
  knots = {0, last};
  checks.push_back({(last + 1) / 2, 0, last});
}

std::vector<std::uint32_t> SimulatedGemm::PhaseKind::simulatedAt() const {
  std::vector<std::uint32_t> at = knots;
  for (const Check& c : checks) at.push_back(c.at);
  return at;
}

std::vector<SimulatedGemm::PhaseKind> SimulatedGemm::sideKinds(const PhaseKind& kind) const {
  const std::vector<firmware::PhaseLikeness>& likeness = full_->outline().phaseLikeness;
  std::map<std::string, PhaseKind> bySide;
  for (std::uint32_t p : kind.byReach) bySide[likeness[p].side].byReach.push_back(p);
  std::vector<PhaseKind> kinds;
  if (bySide.size() < 2) return kinds;
  for (auto& [side, k] : bySide) {
    k.spanOwnLine();
    k.split = true;  // a line of one side is not the kind's
    kinds.push_back(std::move(k));
  }
  return kinds;
}

std::vector<SimulatedGemm::PhaseKind> SimulatedGemm::refinedKinds(const std::vector<PhaseSample>& samples,
                                                                   bool& morePhases) const {
  std::vector<PhaseKind> kinds;
  for (PhaseKind k : kinds_) {
    std::vector<PhaseKind::Check> next;
    std::vector<PhaseKind> sides;
    for (const PhaseKind::Check& c : k.checks) {
      const std::uint32_t phase = k.byReach[c.at];
      const bool ready = settled(samples[phase]) &&
                         (k.learnt || (settled(samples[k.byReach[c.from]]) && settled(samples[k.byReach[c.to]])));
      if (!ready) {
        next.push_back(c);
        continue;
      }
      const double simulated = double(cyclesOf(samples[phase]));
      if (std::abs(lineAt(samples, k, c.from, c.to, phase) - simulated) <= sampling_.phaseLineTolerance * simulated)
        continue;  // on the line: the phases between its ends are interpolated
      // Off the line, a kind with phases either side of the middle takes a
      // line per side, each spanned and checked afresh.
      sides = sideKinds(k);
      if (!sides.empty()) break;
      // Otherwise the check splits its segment (an earlier GEMM's line:
      // the kind's whole span), whose halves are checked by their middles.
      k.split = true;
      const std::uint32_t from = k.learnt ? 0 : c.from, to = k.learnt ? std::uint32_t(k.byReach.size() - 1) : c.to;
      k.learnt.reset();
      k.knots.insert(std::upper_bound(k.knots.begin(), k.knots.end(), from), from);
      k.knots.insert(std::upper_bound(k.knots.begin(), k.knots.end(), c.at), c.at);
      k.knots.insert(std::upper_bound(k.knots.begin(), k.knots.end(), to), to);
      k.knots.erase(std::unique(k.knots.begin(), k.knots.end()), k.knots.end());
      for (const auto& [a, b] : {std::make_pair(from, c.at), std::make_pair(c.at, to)})
        if (b - a >= 2) next.push_back({a + (b - a) / 2, a, b});
    }
    if (!sides.empty()) {
      kinds.insert(kinds.end(), sides.begin(), sides.end());
      continue;
    }
    k.checks = std::move(next);
    kinds.push_back(std::move(k));
  }
  morePhases = false;
  for (const PhaseKind& k : kinds)
    for (std::uint32_t at : k.simulatedAt()) morePhases = morePhases || samples[k.byReach[at]].interpolated;
  return kinds;
}

bool SimulatedGemm::anotherRound(const std::vector<PhaseRun>& phases) const {
  const std::vector<PhaseSample> samples = withRound(phases);
  bool morePhases = false;
  refinedKinds(samples, morePhases);
  return morePhases || !std::all_of(samples.begin(), samples.end(), [&](const PhaseSample& s) { return settled(s); });
}

namespace {
std::uint64_t drainOf(const std::vector<SimulatedGemm::PhaseRun>& phases, std::uint64_t inputEnd) {
  std::uint64_t simulated = 0;
  for (const SimulatedGemm::PhaseRun& p : phases) simulated += p.cycles;
  return simulated - std::min(simulated, inputEnd);
}
}  // namespace

void SimulatedGemm::nextRound(const std::vector<PhaseRun>& phases, std::uint64_t inputEnd) {
  samples_ = withRound(phases);
  if (roundCuts_.back().phase + 1 == full_->phases()) drain_ = drainOf(phases, inputEnd);
  // A check off its segment's line splits it: the phases that check the
  // halves, and their ends, are simulated from the next round on.
  bool morePhases = false;
  kinds_ = refinedKinds(samples_, morePhases);
  indexKinds();
  for (const PhaseKind& k : kinds_)
    for (std::uint32_t at : k.simulatedAt()) samples_[k.byReach[at]].interpolated = false;
  std::vector<firmware::PhaseCut> cuts;
  for (std::uint32_t p = 0; p < samples_.size(); ++p) {
    const PhaseSample& s = samples_[p];
    if (settled(s)) continue;
    if (!s.cuts.empty()) {
      cuts.push_back({p, nextCut(s)});
    } else if (const std::optional<firmware::PhaseCut> cut = nextFirstCut(p, cuts)) {
      cuts.push_back(*cut);
    }
  }
  startRound(std::move(cuts));
}

GemmTime SimulatedGemm::fullTime(const std::vector<PhaseRun>& phases, std::uint64_t inputEnd,
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
  const std::vector<PhaseSample> samples = withRound(phases);
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
  // Representative columns: the whole grid's last feed ends later.
  for (std::int64_t late : lateness_) t.cycles = std::uint64_t(std::int64_t(t.cycles) + late);
  // Sampled, the phases' own cycles, and the route switches of the whole
  // GEMM's order of phases (those of a round's order left out).
  for (bool rerouted : fullRerouted_) t.cycles += rerouted ? switchCycles_ : 0;
  const std::uint64_t drain =
      (roundCuts_.back().phase + 1 == full_->phases() ? drainOf(phases, inputEnd) : drain_) + perPhase;
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
    return x.phaseOutputs == y.phaseOutputs && x.phaseLikeness == y.phaseLikeness;
  };
  return a.pass == b.pass && a.precision == b.precision && a.fp32Sums == b.fp32Sums && a.sparsity == b.sparsity &&
         a.n == b.n &&
         (tokensInK ? a.m == b.m : a.k == b.k) && full_->gridX() == other.full_->gridX() &&
         full_->gridY() == other.full_->gridY() && rows_->describe() == other.rows_->describe() &&
         samePhases(full_->outline(), other.full_->outline()) && samePhases(rows_->outline(), other.rows_->outline()) &&
         rows_->outline().phaseLayout == other.rows_->outline().phaseLayout;
}

config::ArchConfig SimulatedGemm::simulatedArch(const config::ArchConfig& arch, std::uint32_t meshColumns) const {
  config::ArchConfig a = withMeshColumns(arch, meshColumns);
  if (bandRows_ == 0) return a;
  a.mesh.height = meshRows_;
  const std::uint32_t bands = firmware::WeightGradGemm::ColumnSample::kBands;
  a.io.bandwidthBytesPerS = arch.io.bandwidthBytesPerS * double(bands) / double(arch.io.channelsPerEdge);
  a.io.channelsPerEdge = bands;
  a.pe.sramBytes = arch.pe.sramBytes + sampleSramBytes_;
  return a;
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

config::RunConfig withMeshRows(const config::RunConfig& run, std::uint32_t rows) {
  config::RunConfig r = run;
  if (r.vcdRegion.y0 >= rows)
    throw config::ConfigError("run.vcd.region.y0=" + std::to_string(r.vcdRegion.y0) + ": only mesh rows 0.." +
                              std::to_string(rows - 1) +
                              " are simulated (workload.columns: representative; the grid's columns lie along mesh "
                              "rows); pick a region there or set workload.columns: all");
  r.vcdRegion.y1 = std::min(r.vcdRegion.y1, rows - 1);
  return r;
}

}  // namespace wsesim::runtime
