#include "firmware/gemm/SummaGemm.h"

namespace wsesim::firmware {

namespace {
// The panel buffer step s's broadcast fills (alternating, so the next
// broadcast lands beside the panel being multiplied).
std::string panel(const char* operand, std::uint32_t s) { return operand + std::string("p") + std::to_string(s % 2); }
}  // namespace

SummaGemm::SummaGemm(const GemmShape& shape, const config::ArchConfig& arch, std::uint32_t gridX, std::uint32_t gridY)
    : ResidentGemm(ResidentGemmPlan::make("summa", shape, arch, gridX, gridY, ResidentGemmPlan::inOrder,
                                          {"a", "ap0", "ap1"}, {"b", "bp0", "bp1"})) {
  plan_.checkColors(colorsUsed(), arch);
}

void SummaGemm::programPhaseRoutes(fabric::ColorRouteTable& routes, std::uint32_t phase) const {
  for (const LineTransfer& t : transfers(phase)) routeTransfer(routes, t);
}

std::vector<LineTransfer> SummaGemm::transfers(std::uint32_t phase) const {
  const std::uint32_t p = plan_.grid, root = phase;
  if (phase >= p || p == 1) return {};
  std::vector<LineTransfer> all;
  for (std::uint32_t i = 0; i < p; ++i)
    all.push_back(LineTransfer{row(i), root, 0, p - 1, kAColor, std::uint64_t(plan_.ms(i)) * plan_.ks(root)});
  for (std::uint32_t j = 0; j < p; ++j)
    all.push_back(LineTransfer{column(j), root, 0, p - 1, kBColor, std::uint64_t(plan_.ks(root)) * plan_.ns(j)});
  return all;
}

ResidentStep SummaGemm::step(std::uint32_t i, std::uint32_t j, std::uint32_t phase) const {
  const std::uint32_t p = plan_.grid;
  ResidentStep s;
  if (phase < p && p > 1) {  // broadcast step `phase`: the roots send their own blocks
    const std::uint32_t t = phase, aLength = plan_.ms(i) * plan_.ks(t), bLength = plan_.ks(t) * plan_.ns(j);
    s.moves.push_back({j == t, kAColor, j == t ? "a" : panel("a", t), aLength});
    s.moves.push_back({i == t, kBColor, i == t ? "b" : panel("b", t), bLength});
  }
  if (phase >= 1) {  // multiply step phase - 1's panels (a root its own block)
    const std::uint32_t t = phase - 1;
    s.a = j == t ? "a" : panel("a", t);
    s.b = i == t ? "b" : panel("b", t);
    s.ks = plan_.ks(t);
  }
  return s;
}

}  // namespace wsesim::firmware
