#include "firmware/kernels/ChainReduce.h"

#include <algorithm>
#include <random>

#include "firmware/routes/ChainRoutes.h"
#include "hw/pe/Numerics.h"
#include "hw/pe/OpTiming.h"
#include "hw/pe/ProgramBuilder.h"

namespace wsesim::kernels {

using namespace wsesim::pe;

Program chainReduceProgram(const ChainReduceConfig& c, ChainRole role, unsigned sendColor, unsigned receiveColor) {
  const std::uint32_t n = c.length;
  const ElementType t = c.precision == Precision::Fp16 ? ElementType::F16 : ElementType::F32;
  ProgramBuilder b(role == ChainRole::First ? "chain_first" : role == ChainRole::Middle ? "chain_middle" : "chain_last");
  const BufferRef x = b.buffer("x", t, n), w = b.buffer("w", t, n), part = b.buffer("partial", t, n);
  const TaskRef main = b.task("main");
  b.activateAtStart(main);
  b.fmul(main, c.precision, memory(part, n), memory(x, n), memory(w, n));
  for (std::uint32_t r = 1; r < c.repeat; ++r)
    b.fmac(main, c.precision, memory(part, n), memory(part, n), memory(x, n), memory(w, n));
  if (role == ChainRole::First) {
    b.fmov(main, c.precision, fabricOut(sendColor, n), memory(part, n));
  } else if (role == ChainRole::Middle) {
    b.fadd(main, c.precision, fabricOut(sendColor, n), fabricIn(receiveColor, n), memory(part, n));
  } else {
    const BufferRef sum = b.buffer("sum", t, n);
    b.fadd(main, c.precision, memory(sum, n), fabricIn(receiveColor, n), memory(part, n));
  }
  return b.build();
}

void programChainRoutes(const ChainReduceConfig& c, fabric::ColorRouteTable& routes) {
  const unsigned colors[2] = {c.color, c.color + 1};
  for (std::uint32_t y = 0; y < c.rows; ++y) firmware::routeChainUp(routes, firmware::MeshLine{false, y}, 0, c.pes - 1, colors);
}

std::uint64_t chainReduceCycles(const ChainReduceConfig& c, const config::ArchConfig& arch) {
  const PeParams& pe = arch.pe;
  const std::uint64_t o = pe.opOverheadCycles;
  const auto elements = [&](Opcode op) { return elementCycles(pe, op, c.precision, c.length, pe.lanes.of(op, c.precision)); };
  // The FMAC reads three vectors (partial, x, w): more than two read ports take two passes.
  const std::uint64_t fmacPasses = (3 + pe.sramReadPorts - 1) / pe.sramReadPorts;
  const std::uint64_t local = (o + elements(Opcode::Fmul)) + (c.repeat - 1) * (o + elements(Opcode::Fmac) * fmacPasses);
  // The partial sums stream at the slower of the first PE's FMOV and the
  // others' FADD (each reads one memory vector: one pass).
  const std::uint32_t interval = std::max(fabricInterval(pe, Opcode::Fmov, c.precision, 1),
                                          fabricInterval(pe, Opcode::Fadd, c.precision, 1));
  const std::uint64_t stream = fabricElementAt(interval, c.length - 1) + 1;
  return pe.taskStartCycles + local + o + stream + (c.pes - 1) * arch.relayStageCycles() + 1;
}

std::vector<float> chainInput(const ChainReduceConfig& c, std::uint32_t row, std::uint32_t pe, bool weights) {
  std::mt19937_64 rng(c.seed * 1000003 + (std::uint64_t(row) * 65536 + pe) * 2 + weights);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  const ElementType t = c.precision == Precision::Fp16 ? ElementType::F16 : ElementType::F32;
  std::vector<float> v(c.length);
  for (float& e : v) e = roundTo(t, dist(rng));
  return v;
}

std::vector<float> chainReference(const ChainReduceConfig& c, std::uint32_t row) {
  const Precision p = c.precision;
  std::vector<float> sum(c.length, 0.0f);
  for (std::uint32_t i = 0; i < c.pes; ++i) {
    const std::vector<float> x = chainInput(c, row, i, false), w = chainInput(c, row, i, true);
    for (std::uint32_t k = 0; k < c.length; ++k) {
      float part = compute(Opcode::Fmul, p, x[k], w[k], 0);
      for (std::uint32_t r = 1; r < c.repeat; ++r) part = compute(Opcode::Fmac, p, part, x[k], w[k]);
      sum[k] = i == 0 ? part : compute(Opcode::Fadd, p, sum[k], part, 0);
    }
  }
  return sum;
}

}  // namespace wsesim::kernels
