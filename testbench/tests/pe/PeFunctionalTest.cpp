// Functional mode: vector results against a scalar reference. fp32 and
// mixed results are exact (fused multiply-add); fp16 results are the fp32
// result rounded once to half precision, round to nearest even.
#include <gtest/gtest.h>

#include <Imath/half.h>

#include <cmath>
#include <random>

#include "testbench/tests/pe/PeTestBench.h"

namespace wsesim::pe {
namespace {

using testing::PeTestBench;

constexpr std::uint32_t kN = 200;

std::vector<float> randomValues(std::uint32_t n, unsigned seed, bool half) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  std::vector<float> v(n);
  for (float& x : v) x = half ? float(Imath::half(dist(rng))) : dist(rng);
  return v;
}

// y = a + x * s, then z = y * x, then w = z + a, then out = w (FMOV), in one precision.
struct Chain {
  std::vector<float> a, x, out;
};

Chain runChain(Precision p, float s) {
  PeTestBench bench(1, 1);
  ProgramBuilder b("chain");
  const ElementType acc = operandType(Opcode::Fmac, p, -1), in = operandType(Opcode::Fmac, p, 1);
  const BufferRef a = b.buffer("a", acc, kN), x = b.buffer("x", in, kN), y = b.buffer("y", acc, kN);
  const TaskRef t = b.task("main");
  b.activateAtStart(t);
  b.fmac(t, p, memory(y, kN), memory(a, kN), memory(x, kN), scalar(s));
  if (p != Precision::Mixed) {  // mixed FMUL/FADD read fp16 where y is fp32
    b.fmul(t, p, memory(y, kN), memory(y, kN), memory(x, kN));
    b.fadd(t, p, memory(y, kN), memory(y, kN), memory(a, kN));
  }
  bench.load(0, 0, b);
  Chain c{randomValues(kN, 1, acc == ElementType::F16), randomValues(kN, 2, in == ElementType::F16), {}};
  bench.pes->write(0, "a", 0, c.a);
  bench.pes->write(0, "x", 0, c.x);
  bench.simulate();
  c.out = bench.pes->read(0, "y", 0, kN);
  return c;
}

TEST(PeFunctional, Fp32IsExactAgainstAScalarReference) {
  const Chain c = runChain(Precision::Fp32, 0.75f);
  for (std::uint32_t i = 0; i < kN; ++i) {
    float ref = std::fma(c.x[i], 0.75f, c.a[i]);
    ref = ref * c.x[i];
    ref = ref + c.a[i];
    ASSERT_EQ(c.out[i], ref) << "element " << i;
  }
}

TEST(PeFunctional, MixedMultipliesHalvesAndAccumulatesInFp32) {
  const Chain c = runChain(Precision::Mixed, 0.75f);
  for (std::uint32_t i = 0; i < kN; ++i) {
    const float ref = std::fma(c.x[i], 0.75f, c.a[i]);  // halves are exact in fp32
    ASSERT_EQ(c.out[i], ref) << "element " << i;
    ASSERT_EQ(float(Imath::half(c.x[i])), c.x[i]);
  }
}

TEST(PeFunctional, Fp16RoundsEveryResultToHalfPrecision) {
  const Chain c = runChain(Precision::Fp16, 0.3f);  // 0.3 itself rounds to a half first
  const float s = float(Imath::half(0.3f));
  for (std::uint32_t i = 0; i < kN; ++i) {
    float ref = float(Imath::half(std::fma(c.x[i], s, c.a[i])));
    const double exact = double(c.a[i]) + double(c.x[i]) * s;
    // One rounding: within half an fp16 ulp of the exact result (plus the fp32 step).
    const int exponent = std::ilogb(exact == 0 ? 1.0 : exact);
    EXPECT_LE(std::abs(ref - exact), std::ldexp(1.0, std::max(exponent, -14) - 11) * 1.001) << i;
    ref = float(Imath::half(ref * c.x[i]));
    ref = float(Imath::half(ref + c.a[i]));
    ASSERT_EQ(c.out[i], ref) << "element " << i;
  }
}

TEST(PeFunctional, HalfConversionRoundsToNearestEven) {
  // 1 + 2^-11 lies halfway between 1 and the next half, 1 + 2^-10: ties go to the even 1.
  EXPECT_EQ(float(Imath::half(1.0f + std::ldexp(1.0f, -11))), 1.0f);
  EXPECT_EQ(float(Imath::half(1.0f + 3 * std::ldexp(1.0f, -11))), 1.0f + std::ldexp(1.0f, -9));
  EXPECT_EQ(float(Imath::half(70000.0f)), INFINITY);  // beyond the fp16 range
}

TEST(PeFunctional, ScalarsFromMemoryAndStridedViews) {
  PeTestBench bench(1, 1);
  ProgramBuilder b("views");
  const BufferRef m = b.buffer("m", ElementType::F32, 16), s = b.buffer("s", ElementType::F32, 1);
  const BufferRef col = b.buffer("col", ElementType::F32, 4);
  const TaskRef t = b.task("main");
  b.activateAtStart(t);
  // col = column 1 of the 4x4 row-major m, times the scalar s[0] (stride 0).
  b.fmul(t, Precision::Fp32, memory(col, 4), memory(m, 4, 1, 4), memory(s, 4, 0, 0));
  bench.load(0, 0, b);
  std::vector<float> values(16);
  for (int i = 0; i < 16; ++i) values[i] = float(i);
  bench.pes->write(0, "m", 0, values);
  bench.pes->write(0, "s", 0, {10.0f});
  bench.simulate();
  EXPECT_EQ(bench.pes->read(0, "col", 0, 4), (std::vector<float>{10, 50, 90, 130}));
}

}  // namespace
}  // namespace wsesim::pe
