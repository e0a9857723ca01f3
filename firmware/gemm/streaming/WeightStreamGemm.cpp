#include "firmware/gemm/streaming/WeightStreamGemm.h"

#include <memory>

#include "firmware/routes/ChainRoutes.h"
#include "hw/pe/Numerics.h"
#include "hw/pe/OpTiming.h"
#include "hw/pe/ProgramBuilder.h"

namespace wsesim::firmware {

using namespace wsesim::pe;

namespace {
constexpr unsigned kKIndex = 0;       // index register: the next k of the PE's X block
constexpr unsigned kNIndex = 1;       // index register (target): the next n of Y to receive
constexpr unsigned kFinishIndex = 2;  // index register (two-sided target): the next n of Y to finish
constexpr unsigned kHalfIndex = 3;    // index register (two-sided target): the send buffer half to fill
constexpr unsigned kFinishHalf = 4;   // index register (two-sided target): the send buffer half to add
constexpr unsigned kStarted = 5;      // index register: 0 before an n's first weight, then 1
constexpr unsigned kRunsIndex = 6;    // index register (sparse): the n's a weight's wavelet says ended before it
constexpr unsigned kReductionThread = 0;
}  // namespace

void WeightStreamGemm::programRoutes(fabric::ColorRouteTable& routes) const {
  for (std::uint32_t c = 0; c < plan_.gridX; ++c)
    routeLineFromEdge(routes, plan_.column(c), plan_.weightsFromEast(c), plan_.gridY - 1, plan_.weightColor);
  if (plan_.anyFolds()) return;  // the pass's (programPhaseRoutes)
  for (std::uint32_t r = 0; r < plan_.gridY; ++r) {
    routeChainUp(routes, plan_.row(r), 0, plan_.gridX - 1, plan_.eastColors);
    routeChainDown(routes, plan_.row(r), 0, plan_.gridX - 1, plan_.westColors);
  }
}

void WeightStreamGemm::programPhaseRoutes(fabric::ColorRouteTable& routes, std::uint32_t pass) const {
  if (!plan_.anyFolds()) return;
  using fabric::bit;
  using fabric::Port;
  const std::uint32_t t = plan_.target[pass], last = plan_.gridX - 1;
  const unsigned swapped[2] = {plan_.eastColors[1], plan_.eastColors[0]};
  const unsigned back = plan_.westColors[0];
  for (std::uint32_t r = 0; r < plan_.gridY; ++r) {
    const MeshLine row = plan_.row(r);
    // The previous pass's chain passed elsewhere: forget it.
    for (std::uint32_t c = 0; c <= last; ++c)
      for (unsigned color : {plan_.eastColors[0], plan_.eastColors[1], plan_.westColors[0], plan_.westColors[1]})
        routes.set(row.x(c), row.y(c), color, 0, 0);
    if (!plan_.folds(pass)) {  // the sums meet at the target: both chains, as without folds
      routeChainUp(routes, row, 0, last, plan_.eastColors);
      routeChainDown(routes, row, 0, last, plan_.westColors);
      continue;
    }
    routeChainUp(routes, row, 0, t - 1, plan_.eastColors);
    // Column t - 1's sums pass the target's router by, to column t + 1.
    const unsigned bypass = plan_.eastColors[(t - 1) % 2];
    routes.set(row.x(t - 1), row.y(t - 1), bypass, bit(Port::Ramp), bit(row.up()));
    routes.set(row.x(t), row.y(t), bypass, bit(row.down()), bit(row.up()));
    routes.set(row.x(t + 1), row.y(t + 1), bypass, bit(row.down()), bit(Port::Ramp));
    routeChainUp(routes, row, t + 1, last, swapped);
    // The last column sends the total back to the target.
    routes.set(row.x(last), row.y(last), back, bit(Port::Ramp), bit(row.down()));
    for (std::uint32_t c = last - 1; c > t; --c) routes.set(row.x(c), row.y(c), back, bit(row.up()), bit(row.down()));
    routes.set(row.x(t), row.y(t), back, bit(row.up()), bit(Port::Ramp));
  }
}

GemmOutline WeightStreamGemm::outlineOf(const WeightStreamPlan& plan) {
  GemmOutline o;
  o.shape = plan.shape;
  o.gridX = plan.gridX;
  o.gridY = plan.gridY;
  o.colorsUsed = 5;
  o.line = plan.describe();
  o.phases = plan.passes();
  o.keptBuffers = {"x"};
  for (std::uint32_t p = 0; p < plan.passes(); ++p) {
    o.keptBuffers.push_back("y" + std::to_string(p));
    o.phaseOutputs.push_back(plan.ns(p));
    o.phaseLikeness.push_back(plan.passLikeness(plan.ns(p), plan.target[p], plan.folds(p)));
  }
  o.phaseLayout = plan.layout("weight_stream");
  o.transposed = true;  // WeightStreamPlan::pe
  return o;
}

WeightStreamGemm::Role WeightStreamGemm::roleOf(std::uint32_t c, std::uint32_t pass) const {
  const std::uint32_t t = plan_.target[pass], last = plan_.gridX - 1;
  const unsigned(&east)[2] = plan_.eastColors;
  const unsigned(&west)[2] = plan_.westColors;
  Role role;
  if (c < t) {  // west of the target: the chain east (in every pass)
    role.in[0] = c > 0 ? int(east[(c + 1) % 2]) : kNone;
    role.out = int(east[c % 2]);
  } else if (c > t && plan_.folds(pass)) {  // east of a folded target: the chain on, its colors swapped
    role.in[0] = int(east[c % 2]);
    role.out = int(c < last ? east[(c + 1) % 2] : west[0]);
  } else if (c > t) {  // the chain west
    role.in[0] = c < last ? int(west[(c + 1) % 2]) : kNone;
    role.out = int(west[c % 2]);
  } else if (plan_.folds(pass)) {  // the target, folded: the total comes back from the east
    role.in[0] = int(west[0]);
  } else {  // the target: from the west, the east, or both
    const int fromWest = c > 0 ? int(east[(c + 1) % 2]) : kNone, fromEast = c < last ? int(west[(c + 1) % 2]) : kNone;
    role.in[0] = fromWest != kNone ? fromWest : fromEast;
    role.in[1] = fromWest != kNone ? fromEast : kNone;
  }
  return role;
}

Program WeightStreamGemm::program(std::uint32_t c, std::uint32_t r, std::uint32_t pass) const {
  const std::uint32_t ks = plan_.ks(c), ms = plan_.ms(r), ns = plan_.ns(pass);
  const ElementType accType = plan_.accumulatorType(), sumType = firmware::sumType(plan_.shape);
  // The accumulator's copy runs in its type; the reduction in the sums'
  // (GemmShape::fp32Sums), adding the PE's own sums to what arrives.
  const Precision copyPrecision = sumPrecision(accType, accType), ownPrecision = sumPrecision(accType, sumType),
                  arrivingPrecision = sumPrecision(sumType, sumType);
  const Role role = roleOf(c, pass);
  const bool target = role.out == kNone, twoSided = role.in[1] != kNone;
  const auto colorName = [](int color) { return color == kNone ? std::string("none") : std::to_string(color); };
  const std::string roleName = (target ? "target" : role.in[0] == kNone ? "start" : "relay") + std::string("_in") +
                               colorName(role.in[0]) + (twoSided ? "_" + colorName(role.in[1]) : "") +
                               (target ? "" : "_out" + colorName(role.out));

  ProgramBuilder b("weight_stream_pass" + std::to_string(pass) + "_" + roleName + "_k" + std::to_string(ks) + "_m" +
                   std::to_string(ms) + (sparse() ? "_sparse" : ""), plan_.loopCycles);
  const BufferRef x = b.buffer("x", plan_.inputType(), ks * ms);
  // 'acc' is [zeros | sums] (a new buffer starts zeroed): an n's first FMAC
  // adds to the zeros (i5 = 0), the others to the sums, so no op clears the
  // sums between n's.
  const BufferRef accPair = b.buffer("acc", accType, 2 * ms);
  const Descriptor acc = memory(accPair, ms, ms);
  // The zeros before an n's first FMAC, the sums after it: what an FMAC adds
  // to, and what 'column_done' passes on (the zeros when no weight of the n
  // fell in the block: sparse).
  const Descriptor sums = memory(accPair, ms).indexed(kStarted, ms);
  // Created first: lower task numbers run before the next weight's task.
  const TaskRef finish = twoSided ? b.task("finish") : TaskRef{0};
  const TaskRef columnDone = b.task("column_done");
  // Sparse: a weight whose wavelet says n's ended before it waits here
  // (its k in kKIndex, its value the task argument) while 'column_done'
  // runs once per n ended.
  const TaskRef heldWeight = sparse() ? b.task("held_weight") : TaskRef{0};
  const TaskRef onWeight = b.dataTask("on_weight", plan_.weightColor);

  const auto fmac = [&](TaskRef task) {
    b.fmac(task, plan_.shape.precision, acc, sums, memory(x, ms).indexed(kKIndex, ms), taskArgument());
    b.setIndex(task, kStarted, 1);
  };
  if (sparse()) {
    b.argumentRun(onWeight, kKIndex, kRunsIndex, ks, columnDone);
    fmac(onWeight);
    fmac(heldWeight);
  } else {
    fmac(onWeight);
    b.countIndex(onWeight, kKIndex, ks, columnDone);
  }
  // Once the sums are copied, the next n's first FMAC adds to the zeros.
  const auto copySums = [&](Precision precision, Descriptor dst, Issue issue) {
    b.fmov(columnDone, precision, dst, sums, issue);
    b.setIndex(columnDone, kStarted, 0);
  };
  // Sparse: 'column_done' runs again for each further n ended, then the held weight.
  const auto built = [&] {
    if (sparse()) b.countDown(columnDone, kRunsIndex, columnDone, heldWeight);
    return b.build();
  };

  if (plan_.gridX == 1) {  // no reduction: the PE keeps its sums itself
    const BufferRef y = b.buffer("y" + std::to_string(pass), sumType, ms * ns);
    copySums(ownPrecision, memory(y, ms).indexed(kNIndex, ms), {});
    b.countIndex(columnDone, kNIndex, ns);
    return built();
  }
  const Issue onThread = Issue::onThread(kReductionThread);
  const auto from = [ms](int color) { return fabricIn(unsigned(color), ms); };
  if (twoSided) {
    // Both neighbours' sums stream in at once into Y; 'finish' then adds
    // the PE's own, from the half of the send buffer the next n does not fill.
    const BufferRef sends = b.buffer("send", accType, 2 * ms);
    const BufferRef y = b.buffer("y" + std::to_string(pass), sumType, ms * ns);
    copySums(copyPrecision, memory(sends, ms).indexed(kHalfIndex, ms), onThread);
    b.fadd(columnDone, arrivingPrecision, memory(y, ms).indexed(kNIndex, ms), from(role.in[0]), from(role.in[1]),
           onThread.thenActivate(finish));
    b.countIndex(columnDone, kNIndex, ns);
    b.countIndex(columnDone, kHalfIndex, 2);
    b.fadd(finish, ownPrecision, memory(y, ms).indexed(kFinishIndex, ms), memory(y, ms).indexed(kFinishIndex, ms),
           memory(sends, ms).indexed(kFinishHalf, ms));
    b.countIndex(finish, kFinishIndex, ns);
    b.countIndex(finish, kFinishHalf, 2);
    return built();
  }
  const BufferRef send = b.buffer("send", accType, ms);
  copySums(copyPrecision, memory(send, ms), onThread);
  if (!target) {
    const Descriptor out = fabricOut(unsigned(role.out), ms);
    if (role.in[0] != kNone)
      b.fadd(columnDone, ownPrecision, out, from(role.in[0]), memory(send, ms), onThread);
    else
      b.fmov(columnDone, ownPrecision, out, memory(send, ms), onThread);
    return built();
  }
  const BufferRef y = b.buffer("y" + std::to_string(pass), sumType, ms * ns);
  b.fadd(columnDone, ownPrecision, memory(y, ms).indexed(kNIndex, ms), from(role.in[0]), memory(send, ms), onThread);
  b.countIndex(columnDone, kNIndex, ns);
  return built();
}

void WeightStreamGemm::load(PeControl& pes, const fabric::MeshGeometry& mesh, std::uint32_t pass) const {
  // PEs with the same role and block shape share one program.
  std::map<std::tuple<Role, std::uint32_t, std::uint32_t>, ProgramId> programs;
  for (std::uint32_t r = 0; r < plan_.gridY; ++r)
    for (std::uint32_t c = 0; c < plan_.gridX; ++c) {
      const auto key = std::make_tuple(roleOf(c, pass), plan_.ks(c), plan_.ms(r));
      auto it = programs.find(key);
      if (it == programs.end())
        it = programs.emplace(key, pes.addProgram(program(c, r, pass), ProgramLifetime::UntilUnloaded)).first;
      pes.load(plan_.pe(mesh, c, r), it->second);
    }
}

void WeightStreamGemm::writeOperands(PeControl& pes, const fabric::MeshGeometry& mesh, const Matrix& x,
                                     const Matrix&) const {
  // PE (c, r) holds its X block k-major: the column of each k is contiguous.
  for (std::uint32_t r = 0; r < plan_.gridY; ++r)
    for (std::uint32_t c = 0; c < plan_.gridX; ++c) {
      std::vector<float> block;
      block.reserve(std::size_t(plan_.ks(c)) * plan_.ms(r));
      for (std::uint32_t k = plan_.kBegin[c]; k < plan_.kBegin[c + 1]; ++k)
        for (std::uint32_t m = plan_.mBegin[r]; m < plan_.mBegin[r + 1]; ++m) block.push_back(x.at(m, k));
      pes.write(plan_.pe(mesh, c, r), "x", 0, block);
    }
}

std::vector<wafer::EdgeStream> WeightStreamGemm::streams(const fabric::MeshGeometry& mesh, const Matrix* w,
                                                         std::uint32_t pass) const {
  std::vector<wafer::EdgeStream> streams;
  const ElementType type = plan_.inputType();
  const std::uint32_t n0 = plan_.nBegin[pass], ns = plan_.ns(pass);
  for (std::uint32_t c = 0; c < plan_.gridX; ++c) {
    wafer::EdgeStream s;
    const MeshLine line = plan_.column(c);
    const std::uint32_t end = plan_.weightsFromEast(c) ? line.length(mesh) - 1 : 0;
    s.router = mesh.id(line.x(end), line.y(end));
    s.side = plan_.weightsFromEast(c) ? line.up() : line.down();
    s.color = plan_.weightColor;
    const std::uint32_t ks = plan_.ks(c), k0 = plan_.kBegin[c];
    if (!sparse()) {
      s.count = std::uint64_t(ks) * ns;
      if (w)
        s.payload = [w, ks, k0, n0, type](std::uint64_t i) {
          return toPayload(type, w->at(k0 + std::uint32_t(i % ks), n0 + std::uint32_t(i / ks)));
        };
      streams.push_back(std::move(s));
      continue;
    }
    // The pass's non-zeros of the block, each saying how many n's ended
    // before it (a cut plan's n's are kept by the GEMM's: nFrom).
    auto wavelets = std::make_shared<std::vector<std::uint32_t>>(
        sparseStream(c, plan_.nFrom[pass], ns, w ? [&](std::uint32_t k, std::uint32_t i) {
          return toPayload(type, w->at(k, n0 + i));
        } : std::function<std::uint32_t(std::uint32_t, std::uint32_t)>()));
    s.count = wavelets->size();
    s.payload = [wavelets](std::uint64_t i) { return (*wavelets)[i]; };
    streams.push_back(std::move(s));
  }
  return streams;
}

std::vector<std::uint32_t> WeightStreamGemm::sparseStream(
    std::uint32_t c, std::uint32_t from, std::uint32_t ns,
    const std::function<std::uint32_t(std::uint32_t, std::uint32_t)>& value) const {
  const std::uint32_t ks = plan_.ks(c), k0 = plan_.kBegin[c];
  const std::uint32_t mostRuns = (0xFFFF - (ks - 1)) / ks;  // runs x ks + k fits the 16-bit index
  std::vector<std::uint32_t> wavelets;
  // A wavelet of k (within the block) after `runs` n's ended: index runs x
  // ks + k. More runs than the index holds go ahead in fillers: a zero for
  // the block's first k, which adds nothing to the n they leave open.
  const auto emit = [&](std::uint32_t runs, std::uint32_t k, std::uint32_t bitsOfValue) {
    for (; runs > mostRuns; runs -= mostRuns) wavelets.push_back(sparseWavelet(mostRuns * ks, 0));
    wavelets.push_back(sparseWavelet(runs * ks + k, bitsOfValue));
  };
  std::uint32_t open = 0;  // the n (of the pass) the PE adds to
  for (std::uint32_t i = 0; i < ns; ++i)
    for (std::uint32_t k = k0; k < k0 + ks; ++k)
      if (plan_.shape.sparsity.kept(k, from + i)) {
        emit(i - open, k - k0, value ? value(k, i) : 0);
        open = i;
      }
  emit(ns - open, 0, 0);  // the pass's last n's end; a zero weight after them adds nothing
  return wavelets;
}

std::vector<std::uint64_t> WeightStreamGemm::columnWavelets() const {
  std::vector<std::uint64_t> wavelets(plan_.gridX, 0);
  for (std::uint32_t c = 0; c < plan_.gridX; ++c)
    for (std::uint32_t p = 0; p < plan_.passes(); ++p)
      wavelets[c] += sparse() ? sparseStream(c, plan_.nFrom[p], plan_.ns(p), {}).size()
                              : std::uint64_t(plan_.ks(c)) * plan_.ns(p);
  return wavelets;
}

Matrix WeightStreamGemm::readOutput(const PeControl& pes, const fabric::MeshGeometry& mesh,
                                    const wafer::EdgeEgress&) const {
  Matrix y(plan_.shape.m, plan_.shape.n);
  for (std::uint32_t p = 0; p < plan_.passes(); ++p)
    for (std::uint32_t r = 0; r < plan_.gridY; ++r) {
      const std::uint32_t ms = plan_.ms(r), ns = plan_.ns(p);
      const std::vector<float> rows = pes.read(plan_.pe(mesh, plan_.target[p], r), "y" + std::to_string(p), 0, ms * ns);
      for (std::uint32_t n = 0; n < ns; ++n)
        for (std::uint32_t m = 0; m < ms; ++m) y.at(plan_.mBegin[r] + m, plan_.nBegin[p] + n) = rows[std::size_t(n) * ms + m];
    }
  return y;
}

GemmBounds WeightStreamGemm::bounds(const config::ArchConfig& arch) const {
  const GemmShape& s = plan_.shape;
  GemmBounds b;
  const unsigned lanes = arch.pe.lanes.of(Opcode::Fmac, s.precision);
  // Each wavelet a column takes runs an FMAC (sparse: the fillers' and each pass's last too, of a zero).
  const std::vector<std::uint64_t> wavelets = columnWavelets();
  for (std::uint32_t c = 0; c < plan_.gridX; ++c)
    for (std::uint32_t r = 0; r < plan_.gridY; ++r)
      b.compute = std::max<std::uint64_t>(
          b.compute, wavelets[c] * elementCycles(arch.pe, Opcode::Fmac, s.precision, plan_.ms(r), lanes));
  // The busiest ring feed, and the widest column's edge link at one wavelet per cycle.
  b.bandwidth = plan_.ringCycles(arch.ioRingEdge(streamedWaveletBytes(s)), wavelets, false);
  for (std::uint32_t c = 0; c < plan_.gridX; ++c) b.bandwidth = std::max(b.bandwidth, wavelets[c]);
  // Each pass's partial sums reach its target over one link per side, at
  // one wavelet per cycle: at least half of them cross the busier link
  // where they meet, all of them the link back where they fold.
  for (std::uint32_t p = 0; p < plan_.passes() && plan_.gridX > 1; ++p) {
    const std::uint64_t sums = std::uint64_t(plan_.ns(p)) * plan_.ms(plan_.gridY - 1);
    const bool bothSides = plan_.target[p] > 0 && plan_.target[p] + 1 < plan_.gridX && !plan_.folds(p);
    b.reduction += bothSides ? (sums + 1) / 2 : sums;
  }
  const std::uint64_t hop = arch.fabric.hopLatencyCycles, ramp = arch.fabric.rampLatencyCycles;
  const std::uint32_t p = plan_.passes() - 1, t = plan_.target[p], last = plan_.gridX - 1;
  const std::uint32_t reach = plan_.multicastHops(plan_.gridX, plan_.gridY, arch.mesh.width) + 1;  // the entry too
  // The last pass's sums travel from the farther end, or folded along the
  // row (a relay stage a column but the target's) and back to the target.
  const std::uint64_t path = plan_.folds(p) ? std::uint64_t(last) * arch.relayStageCycles() + (last - 1 - t) * hop
                                            : std::uint64_t(std::max(t, last - t)) * arch.relayStageCycles();
  b.latency = reach * hop + ramp + arch.pe.fabricInputCycles + path;
  return b;
}

}  // namespace wsesim::firmware
