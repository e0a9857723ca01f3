#include "firmware/gemm/resident/RingShiftGemm.h"

namespace wsesim::firmware {

namespace {
std::string buffer(const char* operand, std::uint32_t shifts) { return operand + std::to_string(shifts % 2); }
}  // namespace

RingShiftGemm::RingShiftGemm(const std::string& algorithm, const GemmShape& shape, const config::ArchConfig& arch,
                             std::uint32_t gridX, std::uint32_t gridY, ResidentGemmPlan::Placement placement,
                             Buffering buffering)
    : ResidentGemm(ResidentGemmPlan::make(algorithm, shape, arch, gridX, gridY, placement, buffering,
                                          {{Buffering::Double, {"a0", "a1"}, {"b0", "b1"}}})),
      aShift_(RingShift::plan(plan_.order, 0)),
      bShift_(RingShift::plan(plan_.order, aShift_.colors)) {
  outline_.colorsUsed = aShift_.colors + bShift_.colors;
  outline_.phases = 2 * plan_.grid - 1;
  plan_.checkColors(colorsUsed(), arch);
}

void RingShiftGemm::programRoutes(fabric::ColorRouteTable& routes) const {
  for (std::uint32_t line = 0; line < plan_.grid && plan_.grid > 1; ++line)
    for (std::uint32_t l = 0; l < plan_.grid; ++l) {
      routeTransfer(routes, aShift_.transfer(row(line), l, 0));
      routeTransfer(routes, bShift_.transfer(column(line), l, 0));
    }
}

std::uint32_t RingShiftGemm::shiftsBefore(std::uint32_t line, std::uint32_t phase) const {
  const std::uint32_t skewPhases = plan_.grid - 1;
  return phase < skewPhases ? std::min(line, phase) : line + (phase - skewPhases);
}

bool RingShiftGemm::shifts(std::uint32_t line, std::uint32_t phase) const {
  const std::uint32_t skewPhases = plan_.grid - 1;
  return phase < skewPhases ? line > phase : phase - skewPhases + 1 < plan_.grid;
}

ResidentStep RingShiftGemm::step(std::uint32_t i, std::uint32_t j, std::uint32_t phase) const {
  const std::uint32_t p = plan_.grid, hA = shiftsBefore(i, phase), hB = shiftsBefore(j, phase);
  // Row i holds A(i, j + hA) at column j; column j holds B(i + hB, j) at row i.
  const std::uint32_t aBlock = (j + hA) % p, bBlock = (i + hB) % p;
  ResidentStep s;
  if (shifts(i, phase)) {
    s.moves.push_back({true, aShift_.color[j], buffer("a", hA), std::uint32_t(aWavelets(i, aBlock))});
    s.moves.push_back({false, aShift_.receiveColor(j), buffer("a", hA + 1), std::uint32_t(aWavelets(i, (aBlock + 1) % p))});
  }
  if (shifts(j, phase)) {
    s.moves.push_back({true, bShift_.color[i], buffer("b", hB), std::uint32_t(bWavelets(j, bBlock))});
    s.moves.push_back({false, bShift_.receiveColor(i), buffer("b", hB + 1), std::uint32_t(bWavelets(j, (bBlock + 1) % p))});
  }
  if (phase + 1 >= p) {  // a compute phase: A(i, i+j+s) and B(i+j+s, j) are here
    s.a = buffer("a", hA);
    s.b = buffer("b", hB);
    s.ks = plan_.ks(aBlock);
  }
  return s;
}

std::vector<LineTransfer> RingShiftGemm::transfers(std::uint32_t phase) const {
  const std::uint32_t p = plan_.grid;
  std::vector<LineTransfer> all;
  for (std::uint32_t line = 0; line < p && p > 1; ++line) {
    if (!shifts(line, phase)) continue;
    const std::uint32_t h = shiftsBefore(line, phase);
    for (std::uint32_t l = 0; l < p; ++l) {
      all.push_back(aShift_.transfer(row(line), l, aWavelets(line, (l + h) % p)));
      all.push_back(bShift_.transfer(column(line), l, bWavelets(line, (l + h) % p)));
    }
  }
  return all;
}

}  // namespace wsesim::firmware
