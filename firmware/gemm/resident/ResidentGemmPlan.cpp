#include "firmware/gemm/resident/ResidentGemmPlan.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "firmware/gemm/BalancedSplit.h"
#include "hw/pe/OpTiming.h"

namespace wsesim::firmware {

std::vector<pe::BufferDecl> ResidentGemmPlan::buffers(std::uint32_t i, std::uint32_t j) const {
  std::vector<pe::BufferDecl> all;
  for (const std::string& a : aBuffers) all.push_back({a, inputType(), ms(i) * ksMax()});
  for (const std::string& b : bBuffers) all.push_back({b, inputType(), ksMax() * ns(j)});
  all.push_back({"c", accumulatorType(), ms(i) * ns(j)});
  return all;
}

std::string ResidentGemmPlan::describe() const {
  const auto range = [](std::uint32_t lo, std::uint32_t hi) {
    return std::to_string(lo) + (hi != lo ? "-" + std::to_string(hi) : "");
  };
  std::ostringstream out;
  out << algorithm << " " << shape.m << "x" << shape.k << "x" << shape.n << " " << pe::precisionName(shape.precision)
      << " on " << grid << "x" << grid << " PEs: blocks of " << range(ms(0), ms(grid - 1)) << " m x "
      << range(ks(0), ksMax()) << " k x " << range(ns(0), ns(grid - 1)) << " n, " << bufferingName(buffering)
      << "-buffered";
  return out.str();
}

SramDemand ResidentGemmPlan::busiestPeDemand() const {
  // The largest blocks are last: PE (P-1, P-1) needs the most.
  SramDemand d;
  for (const pe::BufferDecl& b : buffers(grid - 1, grid - 1))
    d.add([&] { return b.name + " " + std::to_string(b.elements) + " " + pe::elementTypeName(b.type); }, b.bytes());
  return d;
}

std::uint64_t ResidentGemmPlan::computeBound(const config::ArchConfig& arch) const {
  const unsigned lanes = arch.pe.lanes.of(pe::Opcode::Fmac, shape.precision);
  return std::uint64_t(shape.k) * ns(grid - 1) * pe::elementCycles(arch.pe, pe::Opcode::Fmac, shape.precision, ms(grid - 1), lanes);
}

void ResidentGemmPlan::checkColors(unsigned colors, const config::ArchConfig& arch) const {
  if (colors > arch.fabric.colors)
    throw PlanError(describe() + ": uses " + std::to_string(colors) + " colors, but arch.fabric.colors=" +
                    std::to_string(arch.fabric.colors));
}

namespace {

// Each resident algorithm's program pays its own loop (arch.firmware.*).
std::uint32_t loopCyclesOf(const std::string& algorithm, const config::ArchConfig::Firmware& firmware) {
  if (algorithm == "summa") return firmware.summaLoopCycles;
  if (algorithm == "cannon") return firmware.cannonLoopCycles;
  if (algorithm == "meshgemm") return firmware.meshGemmLoopCycles;
  throw std::invalid_argument("no arch.firmware loop cost for the resident algorithm '" + algorithm + "'");
}

}  // namespace

ResidentGemmPlan ResidentGemmPlan::make(const std::string& algorithm, const GemmShape& shape,
                                        const config::ArchConfig& arch, std::uint32_t gridX, std::uint32_t gridY, Placement placement,
                                        Buffering requested, const std::vector<ResidentBuffers>& offered) {
  if (shape.m == 0 || shape.k == 0 || shape.n == 0) throw PlanError("a GEMM needs m, k and n of at least 1");
  if (arch.fabric.routing != fabric::routingMode<fabric::ColorRouting>())
    throw PlanError(algorithm + " routes by color; set arch.fabric.routing: color");
  if (gridX && gridY && gridX != gridY)
    throw PlanError(algorithm + " runs on a square grid of PEs, but workload.grid_x=" + std::to_string(gridX) +
                    " and workload.grid_y=" + std::to_string(gridY) + " differ");
  const std::uint32_t dims = std::min({shape.m, shape.k, shape.n});
  ResidentGemmPlan p;
  p.algorithm = algorithm;
  p.loopCycles = loopCyclesOf(algorithm, arch.firmware);
  p.shape = shape;
  p.grid = std::max(gridX, gridY);
  if (!p.grid) p.grid = std::min({arch.mesh.width, arch.mesh.height, dims});
  if (p.grid > std::min(arch.mesh.width, arch.mesh.height))
    throw PlanError("grid " + std::to_string(p.grid) + "x" + std::to_string(p.grid) + " does not fit the " +
                    std::to_string(arch.mesh.width) + "x" + std::to_string(arch.mesh.height) + " mesh");
  if (p.grid > dims)
    throw PlanError("grid " + std::to_string(p.grid) + "x" + std::to_string(p.grid) + " is larger than the smallest of m=" +
                    std::to_string(shape.m) + ", k=" + std::to_string(shape.k) + ", n=" + std::to_string(shape.n) +
                    ": some PEs would hold empty blocks");
  p.mBegin = balancedSplit(shape.m, p.grid);
  p.kBegin = balancedSplit(shape.k, p.grid);
  p.nBegin = balancedSplit(shape.n, p.grid);
  p.order = placement(p.grid);

  std::vector<ResidentBuffers> tried;  // in order of preference
  for (const ResidentBuffers& b : offered)
    if (requested == Buffering::Auto || b.buffering == requested) tried.push_back(b);
  if (tried.empty()) {
    std::string names;
    for (const ResidentBuffers& b : offered) names += std::string(names.empty() ? "" : " or ") + bufferingName(b.buffering);
    throw PlanError(algorithm + " offers workload.buffering " + names + " (or auto), not " + bufferingName(requested));
  }
  // The first that fits; when none does, the smallest says why.
  const auto use = [&p](const ResidentBuffers& b) {
    p.buffering = b.buffering;
    p.aBuffers = b.a;
    p.bBuffers = b.b;
    return p.busiestPeDemand();
  };
  const SramBudget budget(arch);
  const ResidentBuffers* smallest = nullptr;
  std::uint64_t smallestBytes = 0;
  for (const ResidentBuffers& b : tried) {
    const SramDemand demand = use(b);
    if (budget.fits(demand)) return p;
    if (!smallest || demand.bytes() < smallestBytes) smallest = &b, smallestBytes = demand.bytes();
  }
  const SramDemand smallestDemand = use(*smallest);
  const std::string asked =
      requested == Buffering::Auto ? "" : std::string(", as workload.buffering=") + bufferingName(requested) + " asks";
  const std::uint32_t last = p.order[p.grid - 1];
  budget.check(p.describe() + asked, last, last, smallestDemand, "a larger grid makes the blocks smaller");
  return p;
}

}  // namespace wsesim::firmware
