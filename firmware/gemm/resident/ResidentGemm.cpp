#include "firmware/gemm/resident/ResidentGemm.h"

#include <map>
#include <unordered_map>

#include "hw/pe/ProgramBuilder.h"

namespace wsesim::firmware {

using namespace wsesim::pe;

namespace {
constexpr unsigned kNIndex = 0;      // index register: the n of the block product's current task run
constexpr unsigned kAheadIndex = 1;  // index register: runs done, wrapping one run before the last
constexpr unsigned kGoIndex = 2;     // index register: 0 while the product loops, 2 once it must stop
}  // namespace

GemmOutline ResidentGemm::outlineOf(const ResidentGemmPlan& plan) {
  GemmOutline o;
  o.shape = plan.shape;
  o.gridX = o.gridY = plan.grid;
  o.line = plan.describe();
  o.buffering = plan.buffering;
  for (const BufferDecl& b : plan.buffers(0, 0)) o.keptBuffers.push_back(b.name);
  return o;
}

Program ResidentGemm::program(std::uint32_t i, std::uint32_t j, std::uint32_t phase) const {
  return build(i, j, step(i, j, phase));
}

Program ResidentGemm::build(std::uint32_t i, std::uint32_t j, const ResidentStep& s) const {
  const std::uint32_t ms = plan_.ms(i), ns = plan_.ns(j);
  ProgramBuilder b(plan_.algorithm + "_m" + std::to_string(ms) + "_n" + std::to_string(ns) +
                   (s.ks ? "_k" + std::to_string(s.ks) : "") + "_moves" + std::to_string(s.moves.size()),
                   plan_.loopCycles);
  std::map<std::string, BufferRef> buffers;
  for (const BufferDecl& d : plan_.buffers(i, j)) buffers.emplace(d.name, b.buffer(d.name, d.type, d.elements));

  if (!s.moves.empty()) {
    const TaskRef start = b.task("start");
    b.activateAtStart(start);
    const Precision p = plan_.inputMovePrecision();
    for (unsigned t = 0; t < s.moves.size(); ++t) {
      const ResidentStep::Move& m = s.moves[t];
      const Descriptor mem = memory(buffers.at(m.buffer), m.elements);
      if (m.send)
        b.fmov(start, p, fabricOut(m.color, m.elements), mem, Issue::onThread(t));
      else
        b.fmov(start, p, mem, fabricIn(m.color, m.elements), Issue::onThread(t));
    }
  }
  if (!s.ks) return b.build();

  // The block product, one task run per n. The ISA has no branch, so the
  // loop is a task that re-activates itself through a counter that wraps
  // at every count (i2 to 1) until 'stop' moves it past its limit. 'stop'
  // is activated one run before the last (i1 wraps) and has the lower task
  // number, so it runs before the last run. What a CSL task would write as
  // "if (++n < ns) activate(self)".
  const TaskRef stop = b.task("stop");
  const TaskRef column = b.task("n_column");
  b.activateAtStart(column);
  const BufferRef c = buffers.at("c"), a = buffers.at(s.a), bBlock = buffers.at(s.b);
  const Descriptor cColumn = memory(c, ms).indexed(kNIndex, ms);
  for (std::uint32_t k = 0; k < s.ks; ++k)
    b.fmac(column, plan_.shape.precision, cColumn, cColumn, memory(a, ms, k * ms),
           memory(bBlock, ms, k, 0).indexed(kNIndex, s.ks));
  if (ns == 1) return b.build();
  b.countIndex(column, kNIndex, ns);
  b.countIndex(column, kAheadIndex, ns - 1, stop);
  b.countIndex(column, kGoIndex, 1, column);
  b.setIndex(stop, kGoIndex, 2);
  b.setIndex(stop, kAheadIndex, ns);  // past its limit too: 'stop' runs once
  return b.build();
}

// PEs with the same step and block shape share one program.
class ResidentGemm::Loader : public PhaseLoader {
 public:
  Loader(const ResidentGemm& gemm, PeControl& pes, const fabric::MeshGeometry& mesh)
      : gemm_(gemm), pes_(pes), mesh_(mesh) {}

  void load(fabric::RouterId pe, std::uint32_t phase) override {
    if (logical_.empty()) index();
    const auto [i, j] = logical_.at(pe);
    loadAt(i, j, phase);
  }
  void loadAt(std::uint32_t i, std::uint32_t j, std::uint32_t phase) {
    const ResidentGemmPlan& plan = gemm_.plan();
    const ResidentStep s = gemm_.step(i, j, phase);
    const auto key = std::make_tuple(s, plan.ms(i), plan.ns(j));
    auto it = programs_.find(key);
    if (it == programs_.end()) it = programs_.emplace(key, pes_.addProgram(gemm_.build(i, j, s))).first;
    pes_.load(gemm_.peAt(mesh_, i, j), it->second);
  }

 private:
  void index() {
    for (std::uint32_t i = 0; i < gemm_.plan().grid; ++i)
      for (std::uint32_t j = 0; j < gemm_.plan().grid; ++j) logical_.emplace(gemm_.peAt(mesh_, i, j), std::make_pair(i, j));
  }
  const ResidentGemm& gemm_;
  PeControl& pes_;
  fabric::MeshGeometry mesh_;
  std::map<std::tuple<ResidentStep, std::uint32_t, std::uint32_t>, ProgramId> programs_;
  std::unordered_map<fabric::RouterId, std::pair<std::uint32_t, std::uint32_t>> logical_;  // router -> (i, j)
};

void ResidentGemm::load(PeControl& pes, const fabric::MeshGeometry& mesh, std::uint32_t phase) const {
  Loader loader(*this, pes, mesh);
  for (std::uint32_t i = 0; i < plan_.grid; ++i)
    for (std::uint32_t j = 0; j < plan_.grid; ++j) loader.loadAt(i, j, phase);
}

std::unique_ptr<PhaseLoader> ResidentGemm::phaseLoader(PeControl& pes, const fabric::MeshGeometry& mesh) const {
  if (!outline_.pacedPhases) return nullptr;
  return std::make_unique<Loader>(*this, pes, mesh);
}

void ResidentGemm::writeOperands(PeControl& pes, const fabric::MeshGeometry& mesh, const Matrix& a,
                                 const Matrix& b) const {
  for (std::uint32_t i = 0; i < plan_.grid; ++i)
    for (std::uint32_t j = 0; j < plan_.grid; ++j) {
      std::vector<float> aBlock, bBlock;  // A(i, j) k-major, B(i, j) n-major
      for (std::uint32_t k = plan_.kBegin[j]; k < plan_.kBegin[j + 1]; ++k)
        for (std::uint32_t m = plan_.mBegin[i]; m < plan_.mBegin[i + 1]; ++m) aBlock.push_back(a.at(m, k));
      for (std::uint32_t n = plan_.nBegin[j]; n < plan_.nBegin[j + 1]; ++n)
        for (std::uint32_t k = plan_.kBegin[i]; k < plan_.kBegin[i + 1]; ++k) bBlock.push_back(b.at(k, n));
      pes.write(peAt(mesh, i, j), plan_.aBuffers.front(), 0, aBlock);
      pes.write(peAt(mesh, i, j), plan_.bBuffers.front(), 0, bBlock);
    }
}

Matrix ResidentGemm::readOutput(const PeControl& pes, const fabric::MeshGeometry& mesh,
                               const wafer::EdgeEgress&) const {
  Matrix c(plan_.shape.m, plan_.shape.n);
  for (std::uint32_t i = 0; i < plan_.grid; ++i)
    for (std::uint32_t j = 0; j < plan_.grid; ++j) {
      const std::uint32_t ms = plan_.ms(i), ns = plan_.ns(j);
      const std::vector<float> block = pes.read(peAt(mesh, i, j), "c", 0, ms * ns);
      for (std::uint32_t n = 0; n < ns; ++n)
        for (std::uint32_t m = 0; m < ms; ++m)
          c.at(plan_.mBegin[i] + m, plan_.nBegin[j] + n) = block[std::size_t(n) * ms + m];
    }
  return c;
}

GemmBounds ResidentGemm::bounds(const config::ArchConfig& arch) const {
  GemmBounds bounds;
  bounds.compute = plan_.computeBound(arch);
  // Wavelets per directed link: (vertical, line, lower position, towards higher positions).
  std::map<std::tuple<bool, std::uint32_t, std::uint32_t, bool>, std::uint64_t> links;
  const std::uint64_t hop = arch.fabric.hopLatencyCycles, ramp = arch.fabric.rampLatencyCycles;
  // Phases that wait for each other pay each one's farthest reach. Paced
  // phases overlap: a chain runs through them (the next step's root has
  // received this step's panel from a neighbour, at least a hop away)
  // and only the last one's farthest receiver adds its whole reach.
  const std::uint64_t ends = 2 * ramp + arch.pe.fabricInputCycles;
  std::uint64_t lastReach = 0;
  for (std::uint32_t phase = 0; phase < phases(); ++phase) {
    std::uint64_t farthest = 0;
    for (const LineTransfer& t : transfers(phase)) {
      for (std::uint32_t p = t.from; p < t.hi; ++p) links[{t.line.vertical, t.line.index, p, true}] += t.wavelets;
      for (std::uint32_t p = t.lo; p < t.from; ++p) links[{t.line.vertical, t.line.index, p, false}] += t.wavelets;
      farthest = std::max<std::uint64_t>(farthest, t.reach());
    }
    if (!farthest) continue;
    bounds.latency += ends + (outline_.pacedPhases ? hop : farthest * hop);
    lastReach = farthest;
  }
  if (outline_.pacedPhases && lastReach) bounds.latency += (lastReach - 1) * hop;
  for (const auto& [link, wavelets] : links) bounds.bandwidth = std::max(bounds.bandwidth, wavelets);
  return bounds;
}

}  // namespace wsesim::firmware
