#include "firmware/gemm/streaming/WeightStreamPlan.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "firmware/gemm/BalancedSplit.h"
#include "hw/pe/OpTiming.h"

namespace wsesim::firmware {

void WeightStreamPlan::indexTargets() {
  outputColumns_.assign(gridX, 0);
  twoSidedTarget_.assign(gridX, false);
  for (std::uint32_t p = 0; p < passes(); ++p) {
    outputColumns_[target[p]] += ns(p);
    twoSidedTarget_[target[p]] = twoSidedTarget_[target[p]] || (target[p] > 0 && target[p] + 1 < gridX && !folds(p));
  }
}

template <class Demand>
Demand WeightStreamPlan::sramParts(std::uint32_t c, std::uint32_t r) const {
  return sramParts<Demand>(ks(c), ms(r), twoSidedTarget(c), outputColumns(c));
}

template <class Demand>
Demand WeightStreamPlan::sramParts(std::uint32_t ksHeld, std::uint32_t msHeld, bool twoSided,
                                   std::uint64_t outputs) const {
  const std::uint64_t in = pe::elementBytes(inputType()), acc = pe::elementBytes(accumulatorType()),
                      sum = pe::elementBytes(sumType(shape));
  const auto inName = [&] { return std::string(pe::elementTypeName(inputType())); };
  const auto accName = [&] { return std::string(pe::elementTypeName(accumulatorType())); };
  const auto sumName = [&] { return std::string(pe::elementTypeName(sumType(shape))); };
  Demand d;
  d.add([&] { return "activations " + std::to_string(ksHeld) + "x" + std::to_string(msHeld) + " " + inName(); },
        std::uint64_t(ksHeld) * msHeld * in);
  // A target with neighbours on both sides double-buffers its send buffer.
  d.add([&] {
    return "zeros, accumulator and send buffer" + std::string(twoSided ? "s " : " ") + std::to_string(msHeld) +
           " " + accName();
  }, msHeld * acc, twoSided ? 4 : 3);
  if (outputs)
    d.add([&] { return "output " + std::to_string(msHeld) + "x" + std::to_string(outputs) + " " + sumName(); },
          msHeld * outputs * sum);
  return d;
}


bool WeightStreamPlan::foldPays(const config::ArchConfig& arch, std::uint32_t p) const {
  // Per n, on a row of the most m's, by OpTiming's charges:
  using pe::Opcode;
  const pe::PeParams& pe = arch.pe;
  // The copy of a PE's sums, an add of its own to what arrives, and (a
  // meeting target) of the two arriving streams (WeightStreamGemm::program).
  const pe::Precision copy = sumPrecision(accumulatorType(), accumulatorType()),
                      own = sumPrecision(accumulatorType(), sumType(shape)),
                      arriving = sumPrecision(sumType(shape), sumType(shape));
  const std::uint64_t ms = this->ms(gridY - 1), issue = pe.opOverheadCycles + loopCycles;
  const auto op = [&](Opcode o, pe::Precision precision) {
    return issue + pe::elementCycles(pe, o, precision, ms, pe.lanes.of(o, precision));
  };
  // The main thread: a task per weight (its FMAC), then the n's
  // 'column_done'; the column of the most k's paces the row.
  const auto fmacs = [&](std::uint64_t ks) {
    return ks * (pe.taskStartCycles + op(Opcode::Fmac, shape.precision)) + pe.taskStartCycles;
  };
  const std::uint64_t row = fmacs(ks(gridX - 1));
  // Thread 0: the accumulator's copy, then the reduction's add of `streams`
  // incoming streams, which share the PE's RAMP at one wavelet a cycle.
  const auto reduction = [&](std::uint64_t streams) {
    return op(Opcode::Fmov, copy) + std::max(op(Opcode::Fadd, streams == 2 ? arriving : own), issue + streams * ms);
  };
  // A meeting target also adds its own sums ('finish') on its main thread.
  const std::uint64_t target = fmacs(ks(this->target[p])) + pe.taskStartCycles + op(Opcode::Fadd, own);
  const std::uint64_t meet = std::max({row, target, reduction(2)}), folded = std::max(row, reduction(1));
  // Folded, the pass's last sums travel the whole row and back before the
  // next pass can start, and it reprograms the rows' routes: worth it only
  // when its n's save more than that.
  return meet > folded && (meet - folded) * ns(p) >
                              std::uint64_t(gridX) * arch.relayStageCycles() + arch.fabric.routeSwitchCycles;
}

std::uint64_t WeightStreamPlan::ringCycles(const wafer::IoRingEdge& ring, std::uint32_t n, bool outbound) const {
  std::vector<std::uint64_t> wavelets(gridX);
  for (std::uint32_t c = 0; c < gridX; ++c) wavelets[c] = std::uint64_t(ks(c)) * n;
  return ringCycles(ring, wavelets, outbound);
}

std::uint64_t WeightStreamPlan::ringCycles(const wafer::IoRingEdge& ring, const std::vector<std::uint64_t>& columns,
                                           bool outbound) const {
  std::vector<double> wavelets(ring.feeds(), 0.0);
  for (std::uint32_t c = 0; c < gridX; ++c) {
    const bool east = weightsFromEast(c) != outbound;
    wavelets[ring.feed(east ? fabric::Port::East : fabric::Port::West, c)] += double(columns[c]);
  }
  std::uint64_t cycles = 0;
  for (unsigned f = 0; f < ring.feeds(); ++f)
    cycles = std::max(cycles, std::uint64_t(wavelets[f] / ring.waveletsPerCycle(f)));
  return cycles;
}

PhaseLikeness WeightStreamPlan::passLikeness(std::uint32_t ns, std::uint32_t target, bool folded) const {
  const bool end = target == 0 || target + 1 == gridX;
  // Folded, the chain is the same for every target; only the way back differs.
  // Between the ends, the sums meet from both arms, whose cycles need not
  // mirror each other (measured on GPT-J's LM-head weight gradient: the V
  // its passes' cycles draw in their target has its foot a quarter of the
  // row east of the middle): each side may run on a line of its own.
  const std::string side = end || folded ? "" : 2 * target + 1 < gridX ? "west" : "east";
  return {"n" + std::to_string(ns) + "_k" + std::to_string(ks(target)) +
              (end ? "_end" : folded ? "_folded" : "_between"),
          folded ? gridX - 1 - target : std::max(target, gridX - 1 - target), side};
}

std::string WeightStreamPlan::layout(const std::string& program) const {
  std::ostringstream out;
  out << program << " " << gemmPrecisionName(shape) << " loop " << loopCycles << " grid " << gridX << "x"
      << gridY << " k";
  for (std::uint32_t b : kBegin) out << " " << b;
  out << " m";
  for (std::uint32_t b : mBegin) out << " " << b;
  return out.str();
}

std::string WeightStreamPlan::describe() const {
  const auto range = [](std::uint32_t lo, std::uint32_t hi) {
    return std::to_string(lo) + (hi != lo ? "-" + std::to_string(hi) : "");
  };
  std::ostringstream out;
  out << "weight_stream " << shape.m << "x" << shape.k << "x" << shape.n << " " << gemmPrecisionName(shape)
      << " on " << gridX << "x" << gridY << " PEs: " << range(ks(0), ks(gridX - 1)) << " k per column, "
      << range(ms(0), ms(gridY - 1)) << " m per row, " << passes() << (passes() == 1 ? " pass" : " passes") << " of "
      << range(ns(passes() - 1), ns(0)) << " n";
  const auto folded = std::uint32_t(std::count(foldedPass.begin(), foldedPass.end(), true));
  if (folded) out << ", sums folded back to the targets of " << folded << (folded == 1 ? " pass" : " passes");
  return out.str();
}

WeightStreamPlan WeightStreamPlan::cut(const std::vector<PhaseCut>& cuts) const {
  WeightStreamPlan p = *this;
  p.nBegin = {0};
  p.nFrom.clear();
  p.target.clear();
  p.foldedPass.clear();
  for (const PhaseCut& c : cuts) {
    if (c.phase >= passes() || c.outputs == 0 || c.outputs > ns(c.phase))
      throw std::invalid_argument("cannot cut pass " + std::to_string(c.phase) + " to " + std::to_string(c.outputs) +
                                  " n's: " + describe());
    p.nBegin.push_back(p.nBegin.back() + c.outputs);
    p.nFrom.push_back(nFrom[c.phase]);
    p.target.push_back(target[c.phase]);
    p.foldedPass.push_back(folds(c.phase));
  }
  p.shape.n = p.nBegin.back();
  p.indexTargets();
  return p;
}

WeightStreamPlan WeightStreamPlan::onColumns(const std::vector<std::uint32_t>& columns,
                                             const std::vector<std::uint32_t>& targets) const {
  if (targets.size() != passes())
    throw std::invalid_argument("a target per pass is needed to lay " + describe() + " on some of its columns");
  WeightStreamPlan p = *this;
  p.gridX = std::uint32_t(columns.size());
  p.kBegin = {0};
  for (std::uint32_t c : columns) p.kBegin.push_back(p.kBegin.back() + ks(c));
  p.shape.k = p.kBegin.back();
  for (std::uint32_t t : targets)
    if (t >= p.gridX) throw std::invalid_argument("target column " + std::to_string(t) + " of " + p.describe());
  p.target = targets;
  p.indexTargets();
  return p;
}

WeightStreamPlan WeightStreamPlan::make(const GemmShape& shape, const config::ArchConfig& arch, std::uint32_t gridX,
                                        std::uint32_t gridY) {
  if (shape.m == 0 || shape.k == 0 || shape.n == 0) throw PlanError("a GEMM needs m, k and n of at least 1");
  if (arch.fabric.routing != fabric::routingMode<fabric::ColorRouting>())
    throw PlanError("weight_stream routes by color; set arch.fabric.routing: color");
  if (arch.fabric.colors < 5)
    throw PlanError("weight_stream uses 5 colors (weights, two each way for the row reductions), but "
                    "arch.fabric.colors=" + std::to_string(arch.fabric.colors));
  WeightStreamPlan p;
  p.shape = shape;
  p.loopCycles = arch.firmware.weightStreamLoopCycles;
  // More columns than k's or rows than m's would leave PEs without work.
  // The grid lies transposed: its columns are mesh rows.
  p.gridX = gridX ? gridX : std::min(arch.mesh.height, shape.k);
  p.gridY = gridY ? gridY : std::min(arch.mesh.width, shape.m);
  if (p.gridX > arch.mesh.height || p.gridY > arch.mesh.width)
    throw PlanError("grid " + std::to_string(p.gridX) + "x" + std::to_string(p.gridY) + " does not fit the " +
                    std::to_string(arch.mesh.width) + "x" + std::to_string(arch.mesh.height) +
                    " mesh: the grid's columns lie along mesh rows (at most " + std::to_string(arch.mesh.height) +
                    "), its rows along mesh columns (at most " + std::to_string(arch.mesh.width) + ")");
  if (p.gridX > shape.k || p.gridY > shape.m)
    throw PlanError("grid " + std::to_string(p.gridX) + "x" + std::to_string(p.gridY) + " is wider than k=" +
                    std::to_string(shape.k) + " or taller than m=" + std::to_string(shape.m) +
                    ": some PEs would hold no activations");
  p.kBegin = balancedSplit(shape.k, p.gridX);
  p.mBegin = balancedSplit(shape.m, p.gridY);

  // As few passes as the output allows: the largest block of n's whose
  // rows fit beside the activations and buffers of the fullest PE (the
  // largest blocks are last), a two-sided target, by the demand the check
  // below applies (sramParts).
  const SramBudget budget(arch);
  const std::uint32_t ksMax = p.ks(p.gridX - 1), msMax = p.ms(p.gridY - 1);
  const auto largestPass = [&](bool twoSided) {
    const auto fits = [&](std::uint64_t n) {
      return budget.fits(p.sramParts<SramBytes>(ksMax, msMax, twoSided, n).bytes());
    };
    std::uint64_t fit = 0;
    if (fits(1)) {
      std::uint64_t fail = shape.n + 1;
      for (fit = 1; fail - fit > 1;) {
        const std::uint64_t mid = fit + (fail - fit) / 2;
        (fits(mid) ? fit : fail) = mid;
      }
    }
    return fit;
  };
  // A folded target takes one stream: one send buffer, so `fold` sizes the
  // passes for it; `auto` sizes them for a target whose sums meet, then
  // folds the passes where that pays.
  using Reduction = config::ArchConfig::Firmware::Reduction;
  const Reduction reduction = arch.firmware.weightStreamReduction;
  const std::uint64_t nPerPass = largestPass(reduction != Reduction::Fold);
  std::uint32_t passes = nPerPass == 0 ? 1 : std::uint32_t((shape.n + nPerPass - 1) / nPerPass);
  // More passes than columns: a whole number per column, so each keeps an equal share.
  if (passes > p.gridX) passes = (passes + p.gridX - 1) / p.gridX * p.gridX;
  p.nBegin = balancedSplit(shape.n, passes);
  p.nFrom.assign(p.nBegin.begin(), p.nBegin.end() - 1);
  // Targets spread over the columns; with more passes than columns, round-robin.
  for (std::uint32_t pass = 0; pass < passes; ++pass)
    p.target.push_back(passes <= p.gridX ? std::uint32_t((2ull * pass + 1) * p.gridX / (2ull * passes))
                                         : pass % p.gridX);
  p.foldedPass.assign(passes, false);
  for (std::uint32_t pass = 0; pass < passes; ++pass)
    if (p.target[pass] > 0 && p.target[pass] + 1 < p.gridX)
      p.foldedPass[pass] = reduction == Reduction::Fold || (reduction == Reduction::Auto && p.foldPays(arch, pass));
  p.indexTargets();

  std::uint64_t worst = 0;
  std::uint32_t wc = 0, wr = 0;
  for (std::uint32_t c = 0; c < p.gridX; ++c)
    for (std::uint32_t r : {0u, p.gridY - 1})
      if (const std::uint64_t bytes = p.sramParts<SramBytes>(c, r).bytes(); bytes > worst) worst = bytes, wc = c, wr = r;
  budget.check(p.describe(), wr, wc, p.sramParts<SramDemand>(wc, wr),  // the grid lies transposed
                         "a taller grid spreads m over more rows, a wider one k over more columns");
  return p;
}

}  // namespace wsesim::firmware
