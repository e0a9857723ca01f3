#include "firmware/gemm/WeightStreamPlan.h"

#include <algorithm>
#include <sstream>

#include "hw/pe/SramAllocator.h"

namespace wsesim::firmware {
namespace {

std::vector<std::uint32_t> balancedSplit(std::uint32_t total, std::uint32_t parts) {
  std::vector<std::uint32_t> begin(parts + 1);
  for (std::uint32_t p = 0; p <= parts; ++p) begin[p] = std::uint32_t(std::uint64_t(total) * p / parts);
  return begin;
}

std::uint64_t aligned(std::uint64_t bytes) {
  return (bytes + pe::SramAllocator::kAlignment - 1) / pe::SramAllocator::kAlignment * pe::SramAllocator::kAlignment;
}

}  // namespace

std::uint64_t WeightStreamPlan::sramBytes(std::uint32_t c, std::uint32_t r) const {
  const std::uint64_t in = pe::elementBytes(inputType()), acc = pe::elementBytes(accumulatorType());
  std::uint64_t bytes = aligned(std::uint64_t(ks(c)) * ms(r) * in)  // activations
                        + 2 * aligned(ms(r) * acc);                 // accumulator and send buffer
  if (c + 1 == gridX) bytes += aligned(std::uint64_t(ms(r)) * shape.n * acc);  // the output rows
  return bytes;
}

std::string WeightStreamPlan::describe() const {
  std::ostringstream out;
  out << "weight_stream " << shape.m << "x" << shape.k << "x" << shape.n << " " << pe::precisionName(shape.precision)
      << " on " << gridX << "x" << gridY << " PEs: " << ks(0) << (ks(gridX - 1) != ks(0) ? "-" + std::to_string(ks(gridX - 1)) : "")
      << " k per column, " << ms(0) << (ms(gridY - 1) != ms(0) ? "-" + std::to_string(ms(gridY - 1)) : "")
      << " m per row";
  return out.str();
}

WeightStreamPlan WeightStreamPlan::make(const GemmShape& shape, const config::ArchConfig& arch, std::uint32_t gridX,
                                        std::uint32_t gridY) {
  if (shape.m == 0 || shape.k == 0 || shape.n == 0) throw PlanError("a GEMM needs m, k and n of at least 1");
  if (arch.fabric.routing != fabric::RoutingMode::Color)
    throw PlanError("weight_stream routes by color; set arch.fabric.routing: color");
  if (arch.fabric.colors < 3)
    throw PlanError("weight_stream uses 3 colors (weights, two for the row reduction), but arch.fabric.colors=" +
                    std::to_string(arch.fabric.colors));
  WeightStreamPlan p;
  p.shape = shape;
  // More columns than k's or rows than m's would leave PEs without work.
  p.gridX = gridX ? gridX : std::min(arch.mesh.width, shape.k);
  p.gridY = gridY ? gridY : std::min(arch.mesh.height, shape.m);
  if (p.gridX > arch.mesh.width || p.gridY > arch.mesh.height)
    throw PlanError("grid " + std::to_string(p.gridX) + "x" + std::to_string(p.gridY) + " does not fit the " +
                    std::to_string(arch.mesh.width) + "x" + std::to_string(arch.mesh.height) + " mesh");
  if (p.gridX > shape.k || p.gridY > shape.m)
    throw PlanError("grid " + std::to_string(p.gridX) + "x" + std::to_string(p.gridY) + " is wider than k=" +
                    std::to_string(shape.k) + " or taller than m=" + std::to_string(shape.m) +
                    ": some PEs would hold no activations");
  p.kBegin = balancedSplit(shape.k, p.gridX);
  p.mBegin = balancedSplit(shape.m, p.gridY);

  // The PE needing the most SRAM is on the last column (it keeps the
  // output), in a row with the most m's and a column with the most k's.
  std::uint64_t worst = 0;
  std::uint32_t wc = 0, wr = 0;
  for (std::uint32_t c : {0u, p.gridX - 1})
    for (std::uint32_t r : {0u, p.gridY - 1})
      if (p.sramBytes(c, r) > worst) worst = p.sramBytes(c, r), wc = c, wr = r;
  if (worst > arch.pe.sramBytes) {
    const std::uint64_t in = pe::elementBytes(p.inputType()), acc = pe::elementBytes(p.accumulatorType());
    std::ostringstream why;
    why << p.describe() << ": PE (" << wc << "," << wr << ") needs " << worst << " bytes of SRAM, more than arch.pe.sram_bytes="
        << arch.pe.sramBytes << ": activations " << p.ks(wc) << "x" << p.ms(wr) << " " << pe::elementTypeName(p.inputType())
        << " = " << std::uint64_t(p.ks(wc)) * p.ms(wr) * in << " B, accumulator and send buffer 2x" << p.ms(wr) << " "
        << pe::elementTypeName(p.accumulatorType()) << " = " << 2 * p.ms(wr) * acc << " B";
    if (wc + 1 == p.gridX)
      why << ", output " << p.ms(wr) << "x" << shape.n << " " << pe::elementTypeName(p.accumulatorType()) << " = "
          << std::uint64_t(p.ms(wr)) * shape.n * acc << " B";
    why << " (a taller grid spreads m over more rows)";
    throw PlanError(why.str());
  }
  return p;
}

}  // namespace wsesim::firmware
