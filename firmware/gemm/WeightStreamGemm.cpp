#include "firmware/gemm/WeightStreamGemm.h"

#include "firmware/routes/ChainRoutes.h"
#include "hw/pe/Numerics.h"
#include "hw/pe/ProgramBuilder.h"

namespace wsesim::firmware {

using namespace wsesim::pe;

namespace {
constexpr unsigned kKIndex = 0;  // index register: the next k of the PE's X block
constexpr unsigned kNIndex = 1;  // index register (last column): the next n of Y
constexpr unsigned kReductionThread = 0;
}  // namespace

void WeightStreamGemm::programRoutes(fabric::ColorRouteTable& routes) const {
  for (std::uint32_t c = 0; c < plan_.gridX; ++c) routeColumnFromNorthEdge(routes, c, plan_.gridY - 1, plan_.weightColor);
  for (std::uint32_t r = 0; r < plan_.gridY; ++r) routeEastChain(routes, r, 0, plan_.gridX - 1, plan_.chainColors);
}

Program WeightStreamGemm::program(std::uint32_t c, std::uint32_t r) const {
  const std::uint32_t ks = plan_.ks(c), ms = plan_.ms(r), n = plan_.shape.n;
  const bool first = c == 0, last = c + 1 == plan_.gridX;
  const ElementType accType = plan_.accumulatorType();
  // Copies and the reduction run in the accumulator's type.
  const Precision accPrecision = accType == ElementType::F32 ? Precision::Fp32 : Precision::Fp16;

  ProgramBuilder b(std::string("weight_stream_") + (first && last ? "only" : first ? "first" : last ? "last" : "middle") +
                   (first || last ? "" : c % 2 ? "_odd" : "_even") + "_k" + std::to_string(ks) + "_m" + std::to_string(ms));
  const BufferRef x = b.buffer("x", plan_.inputType(), ks * ms);
  const BufferRef acc = b.buffer("acc", accType, ms);
  // Created first: a lower task number runs before the next weight's task.
  const TaskRef columnDone = b.task("column_done");
  const TaskRef onWeight = b.dataTask("on_weight", plan_.weightColor);

  b.fmac(onWeight, plan_.shape.precision, memory(acc, ms), memory(acc, ms), memory(x, ms).indexed(kKIndex, ms),
         taskArgument());
  b.countIndex(onWeight, kKIndex, ks, columnDone);

  const unsigned sendColor = plan_.chainColors[c % 2];
  const unsigned receiveColor = plan_.chainColors[(c + 1) % 2];  // what column c - 1 sent on
  if (first && last) {
    const BufferRef y = b.buffer("y", accType, ms * n);
    b.fmov(columnDone, accPrecision, memory(y, ms).indexed(kNIndex, ms), memory(acc, ms));
    b.fmov(columnDone, accPrecision, memory(acc, ms), scalar(0));
    b.countIndex(columnDone, kNIndex, n);
    return b.build();
  }
  const BufferRef send = b.buffer("send", accType, ms);
  const Issue onThread = Issue::onThread(kReductionThread);
  b.fmov(columnDone, accPrecision, memory(send, ms), memory(acc, ms), onThread);
  b.fmov(columnDone, accPrecision, memory(acc, ms), scalar(0));
  if (first) {
    b.fmov(columnDone, accPrecision, fabricOut(sendColor, ms), memory(send, ms), onThread);
  } else if (!last) {
    b.fadd(columnDone, accPrecision, fabricOut(sendColor, ms), fabricIn(receiveColor, ms), memory(send, ms), onThread);
  } else {
    const BufferRef y = b.buffer("y", accType, ms * n);
    b.fadd(columnDone, accPrecision, memory(y, ms).indexed(kNIndex, ms), fabricIn(receiveColor, ms), memory(send, ms),
           onThread);
    b.countIndex(columnDone, kNIndex, n);
  }
  return b.build();
}

void WeightStreamGemm::load(PeArray& pes, const fabric::MeshGeometry& mesh) const {
  // PEs with the same role, chain colors and block shape share one program.
  std::map<std::tuple<bool, bool, unsigned, std::uint32_t, std::uint32_t>, ProgramId> programs;
  for (std::uint32_t r = 0; r < plan_.gridY; ++r)
    for (std::uint32_t c = 0; c < plan_.gridX; ++c) {
      const auto key = std::make_tuple(c == 0, c + 1 == plan_.gridX, c % 2, plan_.ks(c), plan_.ms(r));
      auto it = programs.find(key);
      if (it == programs.end()) it = programs.emplace(key, pes.addProgram(program(c, r))).first;
      pes.load(mesh.id(c, r), it->second);
    }
}

void WeightStreamGemm::writeOperands(PeArray& pes, const fabric::MeshGeometry& mesh, const Matrix& x,
                                     const Matrix&) const {
  // PE (c, r) holds its X block k-major: the column of each k is contiguous.
  for (std::uint32_t r = 0; r < plan_.gridY; ++r)
    for (std::uint32_t c = 0; c < plan_.gridX; ++c) {
      std::vector<float> block;
      block.reserve(std::size_t(plan_.ks(c)) * plan_.ms(r));
      for (std::uint32_t k = plan_.kBegin[c]; k < plan_.kBegin[c + 1]; ++k)
        for (std::uint32_t m = plan_.mBegin[r]; m < plan_.mBegin[r + 1]; ++m) block.push_back(x.at(m, k));
      pes.write(mesh.id(c, r), "x", 0, block);
    }
}

std::vector<wafer::EdgeStream> WeightStreamGemm::streams(const fabric::MeshGeometry& mesh, const Matrix* w) const {
  std::vector<wafer::EdgeStream> streams;
  const ElementType type = plan_.inputType();
  for (std::uint32_t c = 0; c < plan_.gridX; ++c) {
    wafer::EdgeStream s;
    s.router = mesh.id(c, 0);
    s.side = fabric::Port::North;
    s.color = plan_.weightColor;
    const std::uint32_t ks = plan_.ks(c), k0 = plan_.kBegin[c];
    s.count = std::uint64_t(ks) * plan_.shape.n;
    if (w) s.payload = [w, ks, k0, type](std::uint64_t i) { return toPayload(type, w->at(k0 + i % ks, std::uint32_t(i / ks))); };
    streams.push_back(std::move(s));
  }
  return streams;
}

Matrix WeightStreamGemm::readOutput(const PeArray& pes, const fabric::MeshGeometry& mesh) const {
  Matrix y(plan_.shape.m, plan_.shape.n);
  for (std::uint32_t r = 0; r < plan_.gridY; ++r) {
    const std::uint32_t ms = plan_.ms(r);
    const std::vector<float> rows = pes.read(mesh.id(plan_.gridX - 1, r), "y", 0, ms * plan_.shape.n);
    for (std::uint32_t n = 0; n < plan_.shape.n; ++n)
      for (std::uint32_t m = 0; m < ms; ++m) y.at(plan_.mBegin[r] + m, n) = rows[std::size_t(n) * ms + m];
  }
  return y;
}

GemmBounds WeightStreamGemm::bounds(const config::ArchConfig& arch) const {
  const GemmShape& s = plan_.shape;
  GemmBounds b;
  const std::uint64_t lanes = arch.pe.lanes.of(Opcode::Fmac, s.precision);
  for (std::uint32_t c = 0; c < plan_.gridX; ++c)
    for (std::uint32_t r = 0; r < plan_.gridY; ++r)
      b.compute = std::max<std::uint64_t>(b.compute, std::uint64_t(plan_.ks(c)) * s.n * ((plan_.ms(r) + lanes - 1) / lanes));
  const double wavelets = double(s.k) * s.n;
  const double perCycle = arch.io.bandwidthBytesPerS / arch.clockHz / elementBytes(plan_.inputType());
  std::uint64_t widest = 0;
  for (std::uint32_t c = 0; c < plan_.gridX; ++c) widest = std::max<std::uint64_t>(widest, std::uint64_t(plan_.ks(c)) * s.n);
  b.bandwidth = std::max<std::uint64_t>(std::uint64_t(wavelets / perCycle), widest);
  if (plan_.gridX > 1) b.reduction = std::uint64_t(s.n) * plan_.ms(plan_.gridY - 1);
  const std::uint64_t hop = arch.fabric.hopLatencyCycles, ramp = arch.fabric.rampLatencyCycles;
  b.latency = plan_.gridY * hop + ramp + (plan_.gridX - 1) * (2 * ramp + hop);
  return b;
}

}  // namespace wsesim::firmware
