#include "firmware/gemm/resident/SummaGemm.h"

namespace wsesim::firmware {

SummaGemm::SummaGemm(const GemmShape& shape, const config::ArchConfig& arch, std::uint32_t gridX, std::uint32_t gridY,
                     Buffering buffering)
    : ResidentGemm(ResidentGemmPlan::make("summa", shape, arch, gridX, gridY, ResidentGemmPlan::inOrder, buffering,
                                          {{Buffering::Single, {"a", "ap"}, {"b", "bp"}},
                                           {Buffering::Double, {"a", "ap0", "ap1"}, {"b", "bp0", "bp1"}}})) {
  outline_.colorsUsed = 2;
  outline_.pacedPhases = true;  // the SDK's program loops over its steps: no wafer-wide barrier
  outline_.phases = plan_.buffering == Buffering::Double ? plan_.grid + 1 : 2 * plan_.grid;
  plan_.checkColors(colorsUsed(), arch);
}

std::optional<std::uint32_t> SummaGemm::broadcastStep(std::uint32_t phase) const {
  const std::uint32_t p = plan_.grid;
  if (p == 1) return std::nullopt;  // the one PE is every root
  if (plan_.buffering == Buffering::Double) return phase < p ? std::optional<std::uint32_t>(phase) : std::nullopt;
  return phase % 2 == 0 ? std::optional<std::uint32_t>(phase / 2) : std::nullopt;
}

std::optional<std::uint32_t> SummaGemm::productStep(std::uint32_t phase) const {
  if (plan_.buffering == Buffering::Double) return phase >= 1 ? std::optional<std::uint32_t>(phase - 1) : std::nullopt;
  return phase % 2 == 1 ? std::optional<std::uint32_t>(phase / 2) : std::nullopt;
}

std::string SummaGemm::panel(const char* operand, std::uint32_t s) const {
  // Double: alternating, so the next broadcast lands beside the panel being multiplied.
  return operand + std::string("p") + (plan_.buffering == Buffering::Double ? std::to_string(s % 2) : "");
}

void SummaGemm::programPhaseRoutes(fabric::ColorRouteTable& routes, std::uint32_t phase) const {
  for (const LineTransfer& t : transfers(phase)) routeTransfer(routes, t);
}

std::vector<LineTransfer> SummaGemm::transfers(std::uint32_t phase) const {
  const std::optional<std::uint32_t> step = broadcastStep(phase);
  if (!step) return {};
  const std::uint32_t p = plan_.grid, root = *step;
  std::vector<LineTransfer> all;
  for (std::uint32_t i = 0; i < p; ++i)
    all.push_back(LineTransfer{row(i), root, 0, p - 1, kAColor, std::uint64_t(plan_.ms(i)) * plan_.ks(root)});
  for (std::uint32_t j = 0; j < p; ++j)
    all.push_back(LineTransfer{column(j), root, 0, p - 1, kBColor, std::uint64_t(plan_.ks(root)) * plan_.ns(j)});
  return all;
}

ResidentStep SummaGemm::step(std::uint32_t i, std::uint32_t j, std::uint32_t phase) const {
  ResidentStep s;
  if (const std::optional<std::uint32_t> t = broadcastStep(phase)) {  // the roots send their own blocks
    const std::uint32_t aLength = plan_.ms(i) * plan_.ks(*t), bLength = plan_.ks(*t) * plan_.ns(j);
    s.moves.push_back({j == *t, kAColor, j == *t ? "a" : panel("a", *t), aLength});
    s.moves.push_back({i == *t, kBColor, i == *t ? "b" : panel("b", *t), bLength});
  }
  if (const std::optional<std::uint32_t> t = productStep(phase)) {  // a root multiplies its own block
    s.a = j == *t ? "a" : panel("a", *t);
    s.b = i == *t ? "b" : panel("b", *t);
    s.ks = plan_.ks(*t);
  }
  return s;
}

}  // namespace wsesim::firmware
