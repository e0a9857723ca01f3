#include "firmware/gemm/WeightGradGemm.h"

#include <map>
#include <tuple>

#include "firmware/routes/ChainRoutes.h"
#include "firmware/routes/LineRoutes.h"
#include "hw/pe/Numerics.h"
#include "hw/pe/OpTiming.h"
#include "hw/pe/ProgramBuilder.h"

namespace wsesim::firmware {

using namespace wsesim::pe;

namespace {
constexpr unsigned kMIndex = 0;        // index register: the m of the next dY to arrive
constexpr unsigned kStarted = 1;       // index register: 0 before an n's first dY, then 1
constexpr unsigned kReductionThread = 0;
constexpr unsigned kBroadcastThread = 1;
}  // namespace

WeightGradGemm::WeightGradGemm(const GemmShape& shape, const config::ArchConfig& arch, std::uint32_t gridX,
                               std::uint32_t gridY)
    : WeightGradGemm(shape, WeightStreamPlan::make({shape.k, shape.m, shape.n, shape.precision, GemmPass::Forward},
                                                   arch, gridX, gridY)) {
  if (arch.pe.threads < 2)
    throw PlanError("the weight-gradient pass overlaps the dY broadcast and the column reduction with the FMACs on 2 "
                    "hardware threads, but arch.pe.threads=" + std::to_string(arch.pe.threads));
  const SramBudget budget(arch);
  for (std::uint32_t r = 0; r < layout_.gridY; ++r)
    for (std::uint32_t c = 0; c < layout_.gridX; ++c)
      if (!budget.fits(sramParts<SramBytes>(c, r).bytes()))
        budget.check(describe(), c, r, sramParts<SramDemand>(c, r),
                     "a taller grid spreads m over more rows, a wider one k over more columns");
}

template <class Demand>
Demand WeightGradGemm::sramParts(std::uint32_t c, std::uint32_t r) const {
  // The buffers of program(): X and dY (kept), the accumulator pair and the send buffer.
  const std::uint64_t in = elementBytes(layout_.inputType()), acc = elementBytes(layout_.accumulatorType());
  const auto inName = [&] { return std::string(elementTypeName(layout_.inputType())); };
  const std::uint32_t ks = layout_.ks(c), ms = layout_.ms(r);
  const std::uint64_t outputColumns = layout_.outputColumns(c);
  Demand d;
  d.add([&] { return "activations 'x' " + std::to_string(ks) + "x" + std::to_string(ms) + " " + inName(); },
        std::uint64_t(ks) * ms * in);
  d.add([&] { return "output gradients 'dy' " + std::to_string(ms) + "x" + std::to_string(outputColumns) + " " + inName(); },
        ms * outputColumns * in);
  d.add([&] {
    return "accumulator pair and send buffer " + std::to_string(ks) + " " + elementTypeName(layout_.accumulatorType());
  }, ks * acc, 3);
  return d;
}

std::unique_ptr<GemmMapping> WeightGradGemm::cutPhases(const std::vector<PhaseCut>& cuts) const {
  WeightStreamPlan layout = layout_.cut(cuts);
  GemmShape shape = this->shape();
  shape.n = layout.shape.n;
  return std::unique_ptr<GemmMapping>(new WeightGradGemm(shape, std::move(layout)));
}

GemmOutline WeightGradGemm::outlineOf(const GemmShape& shape, const WeightStreamPlan& layout) {
  GemmOutline o;
  o.shape = shape;
  o.gridX = layout.gridX;
  o.gridY = layout.gridY;
  o.colorsUsed = 3;
  const std::string forward = layout.describe();
  o.line = "weight_grad dW = X^T . dY of the layer " + forward.substr(forward.find(' ') + 1);
  o.phases = layout.passes();
  o.keptBuffers = {"x", "dy"};
  for (std::uint32_t p = 0; p < layout.passes(); ++p) o.phaseOutputs.push_back(layout.ns(p));
  o.transposed = true;  // WeightStreamPlan::pe
  return o;
}

void WeightGradGemm::programRoutes(fabric::ColorRouteTable& routes) const {
  const std::uint32_t last = layout_.gridY - 1;
  for (std::uint32_t c = 0; c < layout_.gridX; ++c) {
    const bool east = chainsEast(c);
    if (east)
      routeChainUp(routes, layout_.column(c), 0, last, sumColors_);
    else
      routeChainDown(routes, layout_.column(c), 0, last, sumColors_);
    const std::uint32_t end = east ? last : 0;
    routeLineToEdge(routes, layout_.column(c), end, east, sumColors_[end % 2]);
  }
}

void WeightGradGemm::programPhaseRoutes(fabric::ColorRouteTable& routes, std::uint32_t pass) const {
  for (std::uint32_t r = 0; r < layout_.gridY; ++r) {
    LineTransfer broadcast;
    broadcast.line = layout_.row(r);
    broadcast.from = layout_.target[pass];
    broadcast.hi = layout_.gridX - 1;
    broadcast.color = broadcastColor_;
    broadcast.toSender = true;  // the target's own FMACs take their dY from the fabric too
    routeTransfer(routes, broadcast);
  }
}

std::uint32_t WeightGradGemm::dyColumnOffset(std::uint32_t pass) const {
  std::uint32_t n = 0;
  for (std::uint32_t p = 0; p < pass; ++p)
    if (layout_.target[p] == layout_.target[pass]) n += layout_.ns(p);
  return n;
}

Program WeightGradGemm::program(std::uint32_t c, std::uint32_t r, std::uint32_t pass) const {
  const std::uint32_t ks = layout_.ks(c), ms = layout_.ms(r), ns = layout_.ns(pass);
  const bool source = c == layout_.target[pass];
  const ElementType accType = layout_.accumulatorType();
  const Precision accPrecision = accType == ElementType::F32 ? Precision::Fp32 : Precision::Fp16;
  const Precision inPrecision = layout_.inputType() == ElementType::F32 ? Precision::Fp32 : Precision::Fp16;

  const bool first = chainStart(c, r);
  ProgramBuilder b("weight_grad_pass" + std::to_string(pass) + (source ? "_source" : "") + (first ? "_first" : "") +
                   (r % 2 ? "_odd" : "_even") + "_k" + std::to_string(ks) + "_m" + std::to_string(ms), layout_.loopCycles);
  // X is k-major (as the forward pass reads it): X[m, ks] is a stride-ms vector.
  const BufferRef x = b.buffer("x", layout_.inputType(), ks * ms);
  const std::uint32_t dyElements = std::uint32_t(ms * layout_.outputColumns(c));
  const BufferRef dy = dyElements ? b.buffer("dy", layout_.inputType(), dyElements) : BufferRef{0};
  // [zeros | sums], as in the forward pass: an n's first FMAC adds to the zeros.
  const BufferRef accPair = b.buffer("acc", accType, 2 * ks);
  const Descriptor acc = memory(accPair, ks, ks);
  const BufferRef send = b.buffer("send", accType, ks);
  // Created first: a lower task number runs before the next dY's task.
  const TaskRef columnDone = b.task("column_done");
  const TaskRef onDy = b.dataTask("on_dy", broadcastColor_);

  if (source) {
    const TaskRef broadcast = b.task("broadcast");
    b.activateAtStart(broadcast);
    b.fmov(broadcast, inPrecision, fabricOut(broadcastColor_, ms * ns), memory(dy, ms * ns, ms * dyColumnOffset(pass)),
           Issue::onThread(kBroadcastThread));
  }
  b.fmac(onDy, shape().precision, acc, memory(accPair, ks).indexed(kStarted, ks), memory(x, ks, 0, ms).indexed(kMIndex, 1),
         taskArgument());
  b.setIndex(onDy, kStarted, 1);
  b.countIndex(onDy, kMIndex, ms, columnDone);

  // The column's reduction, along its mesh row to the edge: the chain's
  // first row starts it, the others add what arrives from the one before;
  // the last row's goes off the wafer.
  const Issue onThread = Issue::onThread(kReductionThread);
  b.setIndex(columnDone, kStarted, 0);
  b.fmov(columnDone, accPrecision, memory(send, ks), acc, onThread);
  const Descriptor out = fabricOut(sumColors_[r % 2], ks);
  if (first)
    b.fmov(columnDone, accPrecision, out, memory(send, ks), onThread);
  else  // from the neighbour before it in the chain, either way on the other color
    b.fadd(columnDone, accPrecision, out, fabricIn(sumColors_[(r + 1) % 2], ks), memory(send, ks), onThread);
  return b.build();
}

void WeightGradGemm::load(PeControl& pes, const fabric::MeshGeometry& mesh, std::uint32_t pass) const {
  // PEs alike in role and buffers share one program.
  std::map<std::tuple<bool, bool, unsigned, std::uint32_t, std::uint32_t, std::uint64_t>, ProgramId> programs;
  for (std::uint32_t r = 0; r < layout_.gridY; ++r)
    for (std::uint32_t c = 0; c < layout_.gridX; ++c) {
      const auto key = std::make_tuple(c == layout_.target[pass], chainStart(c, r), r % 2, layout_.ks(c), layout_.ms(r),
                                       layout_.outputColumns(c));
      auto it = programs.find(key);
      if (it == programs.end()) it = programs.emplace(key, pes.addProgram(program(c, r, pass))).first;
      pes.load(layout_.pe(mesh, c, r), it->second);
    }
}

void WeightGradGemm::writeOperands(PeControl& pes, const fabric::MeshGeometry& mesh, const Matrix& xt,
                                   const Matrix& dy) const {
  for (std::uint32_t r = 0; r < layout_.gridY; ++r)
    for (std::uint32_t c = 0; c < layout_.gridX; ++c) {
      std::vector<float> block;
      for (std::uint32_t k = layout_.kBegin[c]; k < layout_.kBegin[c + 1]; ++k)
        for (std::uint32_t m = layout_.mBegin[r]; m < layout_.mBegin[r + 1]; ++m) block.push_back(xt.at(k, m));
      pes.write(layout_.pe(mesh, c, r), "x", 0, block);
    }
  // dY's n's of each pass at its target, n-major, in pass order.
  for (std::uint32_t p = 0; p < layout_.passes(); ++p)
    for (std::uint32_t r = 0; r < layout_.gridY; ++r) {
      std::vector<float> block;
      for (std::uint32_t n = layout_.nBegin[p]; n < layout_.nBegin[p + 1]; ++n)
        for (std::uint32_t m = layout_.mBegin[r]; m < layout_.mBegin[r + 1]; ++m) block.push_back(dy.at(m, n));
      pes.write(layout_.pe(mesh, layout_.target[p], r), "dy", layout_.ms(r) * dyColumnOffset(p), block);
    }
}

Matrix WeightGradGemm::readOutput(const PeControl&, const fabric::MeshGeometry& mesh,
                                  const wafer::EdgeEgress& egress) const {
  // Column c's gradients leave an end of its mesh row: for each pass in
  // order, each n of the pass, its ks k's.
  Matrix dw(shape().m, shape().n);
  for (std::uint32_t c = 0; c < layout_.gridX; ++c) {
    const MeshLine line = layout_.column(c);
    const bool east = chainsEast(c);
    const std::uint32_t end = east ? line.length(mesh) - 1 : 0;
    const std::vector<std::uint32_t>& out = egress.payloads(mesh.id(line.x(end), line.y(end)), east ? line.up() : line.down());
    const std::uint32_t ks = layout_.ks(c);
    if (out.size() != std::size_t(ks) * shape().n)
      throw PlanError("column " + std::to_string(c) + " sent " + std::to_string(out.size()) +
                      " gradients off the wafer, expected " + std::to_string(std::size_t(ks) * shape().n));
    for (std::size_t i = 0; i < out.size(); ++i)
      dw.at(layout_.kBegin[c] + std::uint32_t(i % ks), std::uint32_t(i / ks)) =
          fromPayload(layout_.accumulatorType(), out[i]);
  }
  return dw;
}

GemmBounds WeightGradGemm::bounds(const config::ArchConfig& arch) const {
  GemmBounds b;
  const unsigned lanes = arch.pe.lanes.of(Opcode::Fmac, shape().precision);
  const std::uint32_t ksMax = layout_.ks(layout_.gridX - 1), msMax = layout_.ms(layout_.gridY - 1);
  b.compute = std::uint64_t(shape().n) * msMax * elementCycles(arch.pe, Opcode::Fmac, shape().precision, ksMax, lanes);
  // The busiest ring feed, and the widest column's edge link at one wavelet per cycle.
  b.bandwidth = std::max(layout_.ringCycles(wafer::IoRingEdge::of(arch, elementBytes(layout_.accumulatorType())), shape().n, true),
                         std::uint64_t(ksMax) * shape().n);
  // A row's dY leaves its source router once per element, and a column's
  // link to the edge carries ks sums per n.
  b.reduction = std::max<std::uint64_t>(std::uint64_t(msMax) * shape().n, std::uint64_t(ksMax) * shape().n);
  const std::uint64_t hop = arch.fabric.hopLatencyCycles, ramp = arch.fabric.rampLatencyCycles;
  const std::uint32_t t = layout_.target.back();
  const std::uint64_t across = std::max(t, layout_.gridX - 1 - t) * hop;
  // Onto the RAMP, across the row, off the RAMP into the PE; then the
  // column's sums: onto the RAMP, and per row below a relay stage; then the
  // hops to the edge and out.
  b.latency = 2 * ramp + arch.pe.fabricInputCycles + across + ramp +
              (layout_.gridY - 1) * arch.relayStageCycles() + (arch.mesh.width - layout_.gridY + 1) * hop;
  return b;
}

}  // namespace wsesim::firmware
