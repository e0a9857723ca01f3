#include "firmware/gemm/SramBudget.h"

#include "firmware/gemm/GemmShape.h"

namespace wsesim::firmware {

std::string SramDemand::parts() const {
  std::string text;
  for (const Part& p : parts_)
    text += (text.empty() ? "" : "; ") + p.what + " = " + (p.copies > 1 ? std::to_string(p.copies) + " x " : "") +
            std::to_string(p.bytes) + " B";
  return text;
}

void SramBudget::check(const std::string& plan, std::uint32_t x, std::uint32_t y, const SramDemand& d,
                       const std::string& hint) const {
  if (fits(d)) return;
  throw PlanError(plan + ": PE (" + std::to_string(x) + "," + std::to_string(y) + ") needs " +
                  std::to_string(d.bytes()) + " bytes of SRAM, more than arch.pe.sram_bytes=" +
                  std::to_string(limit_) + ": " + d.parts() + " (" + hint + ")");
}

}  // namespace wsesim::firmware
