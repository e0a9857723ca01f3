#include "firmware/gemm/streaming/WeightGradGemm.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "firmware/gemm/BalancedSplit.h"
#include "firmware/routes/ChainRoutes.h"
#include "firmware/routes/LineRoutes.h"
#include "hw/pe/Numerics.h"
#include "hw/pe/OpTiming.h"
#include "hw/pe/ProgramBuilder.h"

namespace wsesim::firmware {

using namespace wsesim::pe;

namespace {
constexpr unsigned kMIndex = 0;        // index register: the token m of the row being added
constexpr unsigned kAheadIndex = 1;    // index register: wraps one token before the last
constexpr unsigned kGoIndex = 2;       // index register: wraps at every token until 'stop'
constexpr unsigned kReceiveIndex = 3;  // index register: the half of 'dy_row' the next token's dY goes to
constexpr unsigned kUseIndex = 4;      // index register: the half holding this token's
constexpr unsigned kLastIndex = 5;     // index register: wraps after the token before the last, once 'stop' set it
// Index registers per run of alike slices: the slice the AXPYs and the
// reduction address, and the slices left to start.
constexpr unsigned kSliceIndex[2] = {6, 7};
constexpr unsigned kSlicesLeftIndex[2] = {8, 9};
constexpr unsigned kReductionThread = 0;
constexpr unsigned kBroadcastThread = 1;
constexpr unsigned kReceiveThread = 2;
}  // namespace

WeightGradGemm::WeightGradGemm(const GemmShape& shape, const config::ArchConfig& arch, std::uint32_t gridX,
                               std::uint32_t gridY)
    : WeightGradGemm(shape, fit(shape, arch, gridX, gridY)) {}

WeightGradGemm::Fitted WeightGradGemm::fit(const GemmShape& shape, const config::ArchConfig& arch,
                                           std::uint32_t gridX, std::uint32_t gridY) {
  if (arch.pe.threads < 3)
    throw PlanError("the weight-gradient pass overlaps the dY broadcast, its receipt and the column reduction with the "
                    "FMACs on 3 hardware threads, but arch.pe.threads=" + std::to_string(arch.pe.threads));
  // The forward's layout; its passes' sums meet (the weight gradient reduces along columns, never folding).
  config::ArchConfig layoutArch = arch;
  layoutArch.firmware.weightStreamReduction = config::ArchConfig::Firmware::Reduction::Meet;
  WeightStreamPlan layout = WeightStreamPlan::make(
      {shape.k, shape.m, shape.n, shape.precision, GemmPass::Forward, {}, shape.fp32Sums}, layoutArch, gridX, gridY);
  // Blocks sized with a whole block's dY row: slices only shrink it.
  std::vector<Block> blocks = blocksOf(layout, largestBlock(layout, arch, outlineOf(shape, layout, {}, 1).line));
  // As many slices as pay, by the plan's estimate (slicesThatPay). Sparse,
  // the kept gradients leave in runs over the whole block: one slice.
  std::uint32_t slices = 1;
  if (arch.firmware.weightGradSlices > 1 && shape.sparsity.dense()) {
    const GemmBounds whole = WeightGradGemm(shape, layout, blocks, 1).bounds(arch);
    std::uint32_t ks = 0, ms = 0;
    for (std::uint32_t c = 0; c < layout.gridX; ++c) ks = std::max(ks, layout.ks(c));
    for (std::uint32_t r = 0; r < layout.gridY; ++r) ms = std::max(ms, layout.ms(r));
    slices = slicesThatPay(whole, blocks.size(), ks, ms, arch, layout.loopCycles);
  }
  return {std::move(layout), std::move(blocks), slices};
}

std::optional<WeightGradGemm::ColumnSample> WeightGradGemm::representativeColumns(const config::ArchConfig& arch) const {
  if (!shape().sparsity.dense()) return std::nullopt;
  const wafer::IoRingEdge ring = arch.ioRingEdge(elementBytes(sumType(shape())));
  const std::uint32_t columns = layout_.gridX;
  // The ring's bands in the grid, as runs of columns (mesh rows).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> bands;  // first column, columns
  for (unsigned b = 0; b < arch.io.channelsPerEdge && ring.rowBegin(b) < columns; ++b) {
    // A mesh with fewer rows than channels gives a row several: no band stands for another.
    if (b > 0 && ring.rowBegin(b) == bands.back().first) return std::nullopt;
    bands.emplace_back(ring.rowBegin(b), std::min(ring.rowEnd(b), columns) - ring.rowBegin(b));
  }
  const std::vector<FeedLoad> whole = feedLoads(bands, [](std::uint32_t c) { return c; });
  std::uint64_t busiest[2] = {0, 0};
  std::uint32_t ksMost = 0, widest = 0;
  for (const FeedLoad& f : whole) busiest[f.east] = std::max(busiest[f.east], f.load);
  for (std::uint32_t c = 0; c < columns; ++c) ksMost = std::max(ksMost, layout_.ks(c));
  for (const auto& band : bands) widest = std::max(widest, band.second);
  if (std::uint64_t(ColumnSample::kBands) * widest >= columns) return std::nullopt;
  // The first pair of widest bands, one on even rows first and one after
  // it with its rows' parity kept, that holds both edges' busiest feeds,
  // a column of the most k's and one like each target (its k's and parity).
  // (A target ending the row broadcasts one way: like only the pair's end.)
  const auto end = [](std::uint32_t t, std::uint32_t n) { return t == 0 ? 1 : t + 1 == n ? 2 : 0; };
  using Like = std::tuple<std::uint32_t, std::uint32_t, int>;  // k's, parity, end
  std::set<Like> targetLike;
  for (std::uint32_t t : layout_.target) targetLike.emplace(layout_.ks(t), t % 2, end(t, columns));
  std::vector<std::uint32_t> sampled;
  for (std::size_t i = 0; i < bands.size() && sampled.empty(); ++i)
    for (std::size_t j = 0; j < bands.size() && sampled.empty(); ++j) {
      const auto &a = bands[i], &b = bands[j];
      if (i == j || a.second != widest || b.second != widest || a.first % 2 != 0 || b.first % 2 != widest % 2) continue;
      std::vector<std::uint32_t> pair;
      for (const auto& band : {a, b})
        for (std::uint32_t c = band.first; c < band.first + band.second; ++c) pair.push_back(c);
      std::uint64_t most[2] = {0, 0};
      std::uint32_t ks = 0;
      std::set<Like> like;
      for (std::uint32_t at = 0; at < pair.size(); ++at) {
        ks = std::max(ks, layout_.ks(pair[at]));
        like.emplace(layout_.ks(pair[at]), pair[at] % 2, end(at, std::uint32_t(pair.size())));
      }
      for (const FeedLoad& f : feedLoads({{0, widest}, {widest, widest}}, [&](std::uint32_t c) { return pair[c]; }))
        most[f.east] = std::max(most[f.east], f.load);
      if (most[0] == busiest[0] && most[1] == busiest[1] && ks == ksMost &&
          std::includes(like.begin(), like.end(), targetLike.begin(), targetLike.end()))
        sampled = std::move(pair);
    }
  if (sampled.empty()) return std::nullopt;
  const std::uint32_t width = std::uint32_t(sampled.size());
  const std::vector<FeedLoad> sample =
      feedLoads({{0, widest}, {widest, widest}}, [&](std::uint32_t c) { return sampled[c]; });
  // Each pass's target: the sampled column like it nearest its place along the row.
  std::vector<std::uint32_t> targets;
  for (std::uint32_t p = 0; p < layout_.passes(); ++p) {
    const std::uint32_t t = layout_.target[p];
    const double place = double(t) * double(width - 1) / double(columns - 1);
    std::optional<std::uint32_t> pick;
    for (std::uint32_t j = 0; j < width; ++j)
      if (layout_.ks(sampled[j]) == layout_.ks(t) && j % 2 == t % 2 && end(j, width) == end(t, columns) &&
          (!pick || std::abs(double(j) - place) < std::abs(double(*pick) - place)))
        pick = j;
    if (!pick) return std::nullopt;
    targets.push_back(*pick);
  }
  ColumnSample out;
  out.bandRows = widest;
  // Per phase, how much later the whole grid's last feed ends than the
  // sample's: the dY reaches a feed's farthest column a hop a column after
  // it leaves its target, and a feed a k lighter than its edge's busiest
  // sends its last slice that much sooner (its wavelets at the channel's rate).
  for (const Block& block : blocks_) {
    const std::vector<std::uint32_t> slices = sliceBounds(block.ns());
    const double perK = double(slices.back() - slices[slices.size() - 2]) / ring.waveletsPerChannelCycle();
    const auto last = [&](const std::vector<FeedLoad>& feeds, std::uint32_t t) {
      double latest = -1e300;
      for (const FeedLoad& f : feeds) {
        const std::uint32_t farthest = std::max(t > f.first ? t - f.first : f.first - t, t > f.last ? t - f.last : f.last - t);
        latest = std::max(latest, double(farthest) * double(arch.fabric.hopLatencyCycles) -
                                      double(busiest[f.east] - f.load) * perK);
      }
      return latest;
    };
    out.lateness.push_back(std::llround(last(whole, layout_.target[block.pass]) - last(sample, targets[block.pass])));
  }
  WeightStreamPlan layout = layout_.onColumns(sampled, targets);
  std::uint32_t ns = 0;
  for (const Block& block : blocks_) ns = std::max(ns, block.ns());
  for (std::uint32_t c = 0; c < width; ++c)
    for (std::uint32_t r = 0; r < layout.gridY; ++r)
      out.sramBytes = std::max(out.sramBytes, sramParts<SramBytes>(layout, c, r, ns).bytes());
  GemmShape sampleShape = shape();
  sampleShape.m = layout.shape.k;  // the layer's K, the product's M
  out.mapping.reset(new WeightGradGemm(sampleShape, std::move(layout), blocks_, slices_));
  return out;
}

template <class Column>
std::vector<WeightGradGemm::FeedLoad> WeightGradGemm::feedLoads(
    const std::vector<std::pair<std::uint32_t, std::uint32_t>>& bands, Column column) const {
  std::vector<FeedLoad> feeds;
  for (const auto& band : bands)
    for (bool east : {false, true}) {
      FeedLoad f{east};
      bool any = false;
      for (std::uint32_t i = band.first; i < band.first + band.second; ++i) {
        const std::uint32_t c = column(i);
        if (chainsEast(c) != east) continue;
        f.load += layout_.ks(c);
        f.first = any ? std::min(f.first, i) : i;
        f.last = any ? std::max(f.last, i) : i;
        any = true;
      }
      if (any) feeds.push_back(f);
    }
  return feeds;
}

std::uint32_t WeightGradGemm::slicesThatPay(const GemmBounds& whole, std::size_t blocks, std::uint32_t ks,
                                            std::uint32_t ms, const config::ArchConfig& arch,
                                            std::uint32_t loopCycles) {
  // A block's share of the unsliced GEMM: its token loop (its AXPYs, or
  // its dY rows' arrival where that is longer) and its sums' way out.
  const double axpys = double(std::max(whole.compute, whole.reduction)) / double(blocks);
  const double out = double(whole.bandwidth) / double(blocks);
  // What a slice's token loop adds: per token, its task and its ops' issue
  // (the ks AXPYs, the next row's receipt and the two index counts).
  const double issue = double(arch.pe.opOverheadCycles + loopCycles);
  const double loop = double(ms) * (double(arch.pe.taskStartCycles) + double(ks + 3) * issue);
  // In S slices the first slice's AXPYs come before the way out; each
  // further slice waits for the longer of its AXPYs and the way out of the
  // slice before it; the last slice's sums leave after.
  const auto block = [&](double slices) {
    return axpys / slices + loop + (slices - 1) * std::max(axpys / slices + loop, out / slices) + out / slices;
  };
  std::uint32_t best = 1;
  for (std::uint32_t s = 2; s <= arch.firmware.weightGradSlices; ++s)
    if (block(s) < block(best)) best = s;
  return best;
}

template <class Demand>
Demand WeightGradGemm::sramParts(const WeightStreamPlan& layout, std::uint32_t c, std::uint32_t r, std::uint32_t ns) {
  // The buffers of program(): X and dY (kept), a token's dY row and the
  // block's partial dW (unsliced: a slice's row is shorter).
  const std::uint64_t in = elementBytes(layout.inputType()), acc = elementBytes(layout.accumulatorType());
  const auto inName = [&] { return std::string(elementTypeName(layout.inputType())); };
  const auto accName = [&] { return std::string(elementTypeName(layout.accumulatorType())); };
  const std::uint32_t ks = layout.ks(c), ms = layout.ms(r);
  const std::uint64_t outputColumns = layout.outputColumns(c);
  Demand d;
  d.add([&] { return "activations 'x' " + std::to_string(ks) + "x" + std::to_string(ms) + " " + inName(); },
        std::uint64_t(ks) * ms * in);
  d.add([&] { return "output gradients 'dy' " + std::to_string(ms) + "x" + std::to_string(outputColumns) + " " + inName(); },
        ms * outputColumns * in);
  d.add([&] { return "dY rows 'dy_row' 2x" + std::to_string(ns) + " " + inName(); }, 2ull * ns * in);
  d.add([&] { return "partial dW 'acc' " + std::to_string(ks) + "x" + std::to_string(ns) + " " + accName(); },
        std::uint64_t(ks) * ns * acc);
  return d;
}

std::uint32_t WeightGradGemm::largestBlock(const WeightStreamPlan& layout, const config::ArchConfig& arch,
                                           const std::string& describe) {
  const SramBudget budget(arch);
  const auto fitsEveryPe = [&](std::uint32_t ns) {
    for (std::uint32_t c = 0; c < layout.gridX; ++c)
      for (std::uint32_t r : {0u, layout.gridY - 1})
        if (!budget.fits(sramParts<SramBytes>(layout, c, r, ns).bytes())) return false;
    return true;
  };
  const std::string hint = "a taller grid spreads m over more rows, a wider one k over more columns";
  if (!fitsEveryPe(1))
    for (std::uint32_t c = 0; c < layout.gridX; ++c)
      for (std::uint32_t r : {0u, layout.gridY - 1}) budget.check(describe, r, c, sramParts<SramDemand>(layout, c, r, 1), hint);  // transposed
  std::uint32_t fits = 1, fails = layout.ns(0) + 1;  // the first pass has the most n's
  while (fails - fits > 1) {
    const std::uint32_t mid = fits + (fails - fits) / 2;
    (fitsEveryPe(mid) ? fits : fails) = mid;
  }
  return fits;
}

std::vector<WeightGradGemm::Block> WeightGradGemm::blocksOf(const WeightStreamPlan& layout, std::uint32_t most) {
  std::vector<Block> blocks;
  for (std::uint32_t p = 0; p < layout.passes(); ++p) {
    const std::uint32_t count = (layout.ns(p) + most - 1) / most;
    const std::vector<std::uint32_t> split = balancedSplit(layout.ns(p), count);
    for (std::uint32_t i = 0; i < count; ++i)
      blocks.push_back({p, layout.nBegin[p] + split[i], layout.nBegin[p] + split[i + 1], layout.nBegin[p] + split[i]});
  }
  return blocks;
}

std::unique_ptr<GemmMapping> WeightGradGemm::cutPhases(const std::vector<PhaseCut>& cuts) const {
  // Each block cut becomes a pass of its own in the cut layout, a block of its own.
  std::vector<PhaseCut> passCuts;
  for (const PhaseCut& c : cuts) passCuts.push_back({blocks_.at(c.phase).pass, c.outputs});
  WeightStreamPlan layout = layout_.cut(passCuts);
  GemmShape shape = this->shape();
  shape.n = layout.shape.n;
  std::vector<Block> blocks;
  // Each keeps the n's of the block it cuts (sparse weights are kept by them).
  for (std::uint32_t p = 0; p < layout.passes(); ++p)
    blocks.push_back({p, layout.nBegin[p], layout.nBegin[p + 1], blocks_.at(cuts[p].phase).from});
  return std::unique_ptr<GemmMapping>(new WeightGradGemm(shape, std::move(layout), std::move(blocks), slices_));
}

GemmOutline WeightGradGemm::outlineOf(const GemmShape& shape, const WeightStreamPlan& layout,
                                      const std::vector<Block>& blocks, std::uint32_t slices) {
  GemmOutline o;
  o.shape = shape;
  o.gridX = layout.gridX;
  o.gridY = layout.gridY;
  o.colorsUsed = 3;
  const std::string forward = layout.describe();
  o.line = "weight_grad dW = X^T . dY of the layer " + forward.substr(forward.find(' ') + 1);
  if (!blocks.empty() && blocks.size() != layout.passes()) o.line += ", " + std::to_string(blocks.size()) + " blocks of them";
  if (slices > 1) o.line += ", each in " + std::to_string(slices) + " slices";
  o.phases = std::uint32_t(blocks.size());
  o.keptBuffers = {"x", "dy"};
  for (const Block& b : blocks) {
    o.phaseOutputs.push_back(b.ns());
    o.phaseLikeness.push_back(layout.passLikeness(b.ns(), layout.target[b.pass]));
  }
  // Sliced blocks run other programs: their kinds' lines are their own.
  o.phaseLayout = layout.layout(slices > 1 ? "weight_grad_slices" + std::to_string(slices) : "weight_grad");
  o.transposed = true;  // WeightStreamPlan::pe
  return o;
}

void WeightGradGemm::programRoutes(fabric::ColorRouteTable& routes) const {
  const std::uint32_t last = layout_.gridY - 1;
  for (std::uint32_t c = 0; c < layout_.gridX; ++c) {
    const bool east = chainsEast(c);
    if (east)
      routeChainUp(routes, layout_.column(c), 0, last, sumColors_);
    else
      routeChainDown(routes, layout_.column(c), 0, last, sumColors_);
    const std::uint32_t end = east ? last : 0;
    routeLineToEdge(routes, layout_.column(c), end, east, sumColors_[end % 2]);
  }
}

void WeightGradGemm::programPhaseRoutes(fabric::ColorRouteTable& routes, std::uint32_t phase) const {
  for (std::uint32_t r = 0; r < layout_.gridY; ++r) {
    LineTransfer broadcast;
    broadcast.line = layout_.row(r);
    broadcast.from = target(phase);
    broadcast.hi = layout_.gridX - 1;
    broadcast.color = broadcastColor_;
    broadcast.toSender = true;  // the target's own FMACs take their dY from the fabric too
    routeTransfer(routes, broadcast);
  }
}

std::uint32_t WeightGradGemm::dyColumnOffset(std::uint32_t phase) const {
  std::uint32_t n = 0;
  for (std::uint32_t i = 0; i < phase; ++i)
    if (target(i) == target(phase)) n += blocks_[i].ns();
  return n;
}

std::vector<WeightGradGemm::SliceRun> WeightGradGemm::sliceRuns(std::uint32_t ns, std::uint32_t slices) {
  slices = std::min(slices, ns);
  const std::uint32_t length = ns / slices, longer = ns % slices;
  std::vector<SliceRun> runs;
  if (slices > longer) runs.push_back({length, slices - longer});
  if (longer) runs.push_back({length + 1, longer});
  return runs;
}

std::vector<std::uint32_t> WeightGradGemm::sliceBounds(std::uint32_t ns) const {
  std::vector<std::uint32_t> bounds = {0};
  for (const SliceRun& run : sliceRuns(ns, slices_))
    for (std::uint32_t i = 0; i < run.count; ++i) bounds.push_back(bounds.back() + run.length);
  return bounds;
}

Program WeightGradGemm::program(std::uint32_t c, std::uint32_t r, std::uint32_t phase) const {
  const std::uint32_t ks = layout_.ks(c), ms = layout_.ms(r), ns = blocks_[phase].ns();
  const bool source = c == target(phase);
  const ElementType accType = layout_.accumulatorType();
  // The column's reduction adds the PE's own sums to what arrives, in the sums' type (GemmShape::fp32Sums).
  const Precision sumsPrecision = sumPrecision(accType, sumType(shape()));
  const Precision inPrecision = layout_.inputType() == ElementType::F32 ? Precision::Fp32 : Precision::Fp16;
  const std::vector<SliceRun> runs = sliceRuns(ns, slices_);
  const std::uint32_t widest = runs.back().length;

  const bool first = chainStart(c, r);
  ProgramBuilder b("weight_grad_phase" + std::to_string(phase) + (source ? "_source" : "") + (first ? "_first" : "") +
                   (r % 2 ? "_odd" : "_even") + "_k" + std::to_string(ks) + "_m" + std::to_string(ms) + "_n" +
                   std::to_string(ns), layout_.loopCycles);
  // X is k-major (as the forward pass reads it): X[m, k] at k x ms + m.
  const BufferRef x = b.buffer("x", layout_.inputType(), ks * ms);
  const std::uint32_t dyElements = std::uint32_t(ms * layout_.outputColumns(c));
  const BufferRef dy = dyElements ? b.buffer("dy", layout_.inputType(), dyElements) : BufferRef{0};
  // Two halves: the next token's dY arrives in one while the FMACs read the other.
  const BufferRef row = b.buffer("dy_row", layout_.inputType(), 2 * widest);
  // The block's partial dW, slice after slice, each k-major (k x the
  // slice's n's); a new buffer starts zeroed.
  const BufferRef acc = b.buffer("acc", accType, ks * ns);
  // Created in this order: a lower task number runs first ('stop' before
  // the token run it replaces; the source's broadcast starts before the
  // first receipt waits for the dY it sends).
  const TaskRef stop = b.task("stop");
  std::vector<TaskRef> done, start, token, last;
  for (std::size_t g = 0; g < runs.size(); ++g) done.push_back(b.task("slice_done" + std::to_string(g)));
  if (source) {
    const TaskRef broadcast = b.task("broadcast");
    b.activateAtStart(broadcast);
    b.fmov(broadcast, inPrecision, fabricOut(broadcastColor_, ms * ns), memory(dy, ms * ns, ms * dyColumnOffset(phase)),
           Issue::onThread(kBroadcastThread));
  }
  // Several slices alike count down from their number, set once.
  const bool countsDown = runs.front().count > 1 || runs.back().count > 1;
  const std::optional<TaskRef> begin = countsDown ? std::optional<TaskRef>(b.task("begin")) : std::nullopt;
  for (std::size_t g = 0; g < runs.size(); ++g) start.push_back(b.task("slice_start" + std::to_string(g)));
  for (std::size_t g = 0; g < runs.size(); ++g) token.push_back(b.task("token" + std::to_string(g)));
  for (std::size_t g = 0; g < runs.size(); ++g) last.push_back(b.task("last" + std::to_string(g)));
  const bool ends = runs.back().count > 1;  // the last run's countdown needs a task to end on
  const std::optional<TaskRef> end = ends ? std::optional<TaskRef>(b.task("end")) : std::nullopt;

  // The n's run in slices: runs of alike slices of `length` n's, the
  // longer last. The broadcast sends dY slice after slice, each token by
  // token over the slice's n's. Per token m of the row, its dY over the
  // slice's n's arrives in a half of 'dy_row', and each k adds the outer
  // product's row, acc[k, :] += X[m, k] x dY[m, :]: ks AXPYs as long as the
  // slice (the product a PE owes for its tokens, X^T . dY over its n's).
  // Token m's run first issues the receipt of token m + 1's row on a
  // hardware thread (which waits for token m's to be in), then runs its
  // AXPYs from the other half: a row arrives while the previous one's AXPYs
  // run, as microthreads allow. The loop is the resident GEMMs'
  // (ResidentGemm::build): 'token' re-activates itself through kGoIndex,
  // with kGoIndex and kLastIndex past their limits; 'stop', activated two
  // runs before the last token's, moves kGoIndex past and kLastIndex to its
  // wrap, so that the run before the last token's starts 'last' instead,
  // whose AXPYs wait for the last row on its thread and hand on to the
  // slice's reduction, which starts the next slice: the slice's sums go
  // down the column while the next slice's AXPYs run.
  const std::uint32_t offsetBase[2] = {0, runs[0].length * runs[0].count * ks};
  // A run of one slice needs no register (an unsliced block's program is as before slices).
  const auto accSlice = [&](std::size_t g, std::uint32_t length, std::uint32_t offset) {
    const Descriptor d = memory(acc, length, offsetBase[g] + offset);
    return runs[g].count > 1 ? d.indexed(kSliceIndex[g], runs[g].length * ks) : d;
  };
  const auto receive = [&](TaskRef task, std::size_t g) {
    b.fmov(task, inPrecision, memory(row, runs[g].length).indexed(kReceiveIndex, widest),
           fabricIn(broadcastColor_, runs[g].length), Issue::onThread(kReceiveThread));
    b.countIndex(task, kReceiveIndex, 2);
  };
  const auto axpys = [&](TaskRef task, std::size_t g, Issue issue, std::optional<TaskRef> then) {
    const std::uint32_t length = runs[g].length;
    for (std::uint32_t k = 0; k < ks; ++k)
      b.fmac(task, shape().precision, accSlice(g, length, k * length), accSlice(g, length, k * length),
             memory(x, length, k * ms, 0).indexed(kMIndex, 1), memory(row, length).indexed(kUseIndex, widest),
             then && k + 1 == ks ? issue.thenActivate(*then) : issue);
    b.countIndex(task, kUseIndex, 2);
    b.countIndex(task, kMIndex, ms);
  };
  constexpr std::uint32_t kPast = 2;  // a count from here never reaches a limit of 1
  if (begin) {
    b.activateAtStart(*begin);
    for (std::size_t g = 0; g < runs.size(); ++g)
      if (runs[g].count > 1) b.setIndex(*begin, kSlicesLeftIndex[g], runs[g].count);
    b.activate(*begin, start[0]);
  } else {
    b.activateAtStart(start[0]);
  }
  for (std::size_t g = 0; g < runs.size(); ++g) {
    receive(start[g], g);
    b.setIndex(start[g], kAheadIndex, 0);
    b.setIndex(start[g], kGoIndex, ms > 2 ? 0 : kPast);
    b.setIndex(start[g], kLastIndex, ms > 2 ? kPast : 0);
    b.activate(start[g], ms > 1 ? token[g] : last[g]);
    receive(token[g], g);
    axpys(token[g], g, Issue::sync(), std::nullopt);
    if (ms > 2) b.countIndex(token[g], kAheadIndex, ms - 2, stop);
    b.countIndex(token[g], kGoIndex, 1, token[g]);
    b.countIndex(token[g], kLastIndex, 1, last[g]);
    axpys(last[g], g, Issue::onThread(kReceiveThread), done[g]);
  }
  b.setIndex(stop, kGoIndex, kPast);
  b.setIndex(stop, kLastIndex, 0);

  // The column's reduction of a slice's ks x n's sums, along its mesh row
  // to the edge: the chain's first row starts it, the others add what
  // arrives from the one before; the last row's goes off the wafer. Its
  // thread still sending the slice before, the issue waits for it.
  // Sparse weights (one slice): only the kept gradients cross the chain and
  // leave, an op per run of kept n's of each k (their products were
  // computed with the others: see docs/sparsity.md).
  const Issue onThread = Issue::onThread(kReductionThread);
  const auto reduce = [&](TaskRef task, Descriptor sums) {
    const Descriptor out = fabricOut(sumColors_[r % 2], sums.length);
    if (first)
      b.fmov(task, sumsPrecision, out, sums, onThread);
    else  // from the neighbour before it in the chain, either way on the other color
      b.fadd(task, sumsPrecision, out, fabricIn(sumColors_[(r + 1) % 2], sums.length), sums, onThread);
  };
  for (std::size_t g = 0; g < runs.size(); ++g) {
    if (shape().sparsity.dense())
      reduce(done[g], accSlice(g, ks * runs[g].length, 0));
    else
      for (const KeptRun& run : keptRuns(c, phase)) reduce(done[g], memory(acc, run.length, run.offset));
    const std::optional<TaskRef> next = g + 1 < runs.size() ? std::optional<TaskRef>(start[g + 1]) : end;
    if (runs[g].count > 1) {
      b.countIndex(done[g], kSliceIndex[g], runs[g].count);
      b.countDown(done[g], kSlicesLeftIndex[g], start[g], *next);
    } else if (next) {
      b.activate(done[g], *next);
    }
  }
  return b.build();
}

std::vector<WeightGradGemm::KeptRun> WeightGradGemm::keptRuns(std::uint32_t c, std::uint32_t phase) const {
  const Block& block = blocks_[phase];
  const WeightSparsity& sparsity = shape().sparsity;
  std::vector<KeptRun> runs;
  for (std::uint32_t k = 0; k < layout_.ks(c); ++k)
    for (std::uint32_t i = 0; i < block.ns();) {
      const auto kept = [&](std::uint32_t j) { return sparsity.kept(layout_.kBegin[c] + k, block.from + j); };
      if (!kept(i)) {
        ++i;
        continue;
      }
      const std::uint32_t first = i;
      while (i < block.ns() && kept(i)) ++i;
      runs.push_back({k * block.ns() + first, i - first});
    }
  return runs;
}

void WeightGradGemm::load(PeControl& pes, const fabric::MeshGeometry& mesh, std::uint32_t phase) const {
  // PEs alike in role and buffers share one program.
  std::map<std::tuple<bool, bool, unsigned, std::uint32_t, std::uint32_t, std::uint64_t, std::uint32_t>, ProgramId>
      programs;
  for (std::uint32_t r = 0; r < layout_.gridY; ++r)
    for (std::uint32_t c = 0; c < layout_.gridX; ++c) {
      // Sparse, a column's kept gradients are its own.
      const auto key = std::make_tuple(c == target(phase), chainStart(c, r), r % 2, layout_.ks(c), layout_.ms(r),
                                       layout_.outputColumns(c), shape().sparsity.dense() ? 0 : c);
      auto it = programs.find(key);
      if (it == programs.end())
        it = programs.emplace(key, pes.addProgram(program(c, r, phase), ProgramLifetime::UntilUnloaded)).first;
      pes.load(layout_.pe(mesh, c, r), it->second);
    }
}

void WeightGradGemm::writeOperands(PeControl& pes, const fabric::MeshGeometry& mesh, const Matrix& xt,
                                   const Matrix& dy) const {
  for (std::uint32_t r = 0; r < layout_.gridY; ++r)
    for (std::uint32_t c = 0; c < layout_.gridX; ++c) {
      std::vector<float> block;
      for (std::uint32_t k = layout_.kBegin[c]; k < layout_.kBegin[c + 1]; ++k)
        for (std::uint32_t m = layout_.mBegin[r]; m < layout_.mBegin[r + 1]; ++m) block.push_back(xt.at(k, m));
      pes.write(layout_.pe(mesh, c, r), "x", 0, block);
    }
  // dY's n's of each block at its target, slice by slice, each token-major
  // (a token's n's of the slice together), in phase order.
  for (std::uint32_t p = 0; p < blocks_.size(); ++p)
    for (std::uint32_t r = 0; r < layout_.gridY; ++r) {
      const std::vector<std::uint32_t> slices = sliceBounds(blocks_[p].ns());
      std::vector<float> block;
      for (std::size_t s = 0; s + 1 < slices.size(); ++s)
        for (std::uint32_t m = layout_.mBegin[r]; m < layout_.mBegin[r + 1]; ++m)
          for (std::uint32_t n = slices[s]; n < slices[s + 1]; ++n) block.push_back(dy.at(m, blocks_[p].nBegin + n));
      pes.write(layout_.pe(mesh, target(p), r), "dy", layout_.ms(r) * dyColumnOffset(p), block);
    }
}

Matrix WeightGradGemm::readOutput(const PeControl&, const fabric::MeshGeometry& mesh,
                                  const wafer::EdgeEgress& egress) const {
  // Column c's gradients leave an end of its mesh row: for each block in
  // order, each of its slices, each of its ks k's, the slice's n's.
  Matrix dw(shape().m, shape().n);
  for (std::uint32_t c = 0; c < layout_.gridX; ++c) {
    const MeshLine line = layout_.column(c);
    const bool east = chainsEast(c);
    const std::uint32_t end = east ? line.length(mesh) - 1 : 0;
    const std::vector<std::uint32_t>& out = egress.payloads(mesh.id(line.x(end), line.y(end)), east ? line.up() : line.down());
    const std::uint32_t ks = layout_.ks(c);
    const std::uint64_t expected = columnGradients()[c];
    if (out.size() != expected)
      throw PlanError("column " + std::to_string(c) + " sent " + std::to_string(out.size()) +
                      " gradients off the wafer, expected " + std::to_string(expected));
    std::size_t i = 0;
    for (const Block& b : blocks_) {
      const std::vector<std::uint32_t> slices = sliceBounds(b.ns());
      for (std::size_t s = 0; s + 1 < slices.size(); ++s)
        for (std::uint32_t k = 0; k < ks; ++k)
          for (std::uint32_t n = slices[s]; n < slices[s + 1]; ++n)
            if (shape().sparsity.kept(layout_.kBegin[c] + k, b.from + n))
              dw.at(layout_.kBegin[c] + k, b.nBegin + n) = fromPayload(sumType(shape()), out[i++]);
    }
  }
  return dw;
}

std::vector<std::uint64_t> WeightGradGemm::columnGradients() const {
  std::vector<std::uint64_t> gradients(layout_.gridX, 0);
  for (std::uint32_t c = 0; c < layout_.gridX; ++c) {
    if (shape().sparsity.dense()) {
      gradients[c] = std::uint64_t(layout_.ks(c)) * shape().n;
      continue;
    }
    for (const Block& b : blocks_)
      for (std::uint32_t k = layout_.kBegin[c]; k < layout_.kBegin[c + 1]; ++k)
        for (std::uint32_t n = b.from; n < b.from + b.ns(); ++n) gradients[c] += shape().sparsity.kept(k, n);
  }
  return gradients;
}

GemmBounds WeightGradGemm::bounds(const config::ArchConfig& arch) const {
  GemmBounds b;
  const unsigned lanes = arch.pe.lanes.of(Opcode::Fmac, shape().precision);
  const std::uint32_t ksMax = layout_.ks(layout_.gridX - 1), msMax = layout_.ms(layout_.gridY - 1);
  for (const Block& block : blocks_)
    b.compute += std::uint64_t(msMax) * ksMax * elementCycles(arch.pe, Opcode::Fmac, shape().precision, block.ns(), lanes);
  // The busiest ring feed, and the busiest column's edge link at one wavelet per cycle.
  const std::vector<std::uint64_t> gradients = columnGradients();
  const std::uint64_t busiest = *std::max_element(gradients.begin(), gradients.end());
  b.bandwidth = std::max(layout_.ringCycles(arch.ioRingEdge(elementBytes(sumType(shape()))), gradients, true),
                         busiest);
  // A row's dY leaves its source router once per element, and a column's
  // link to the edge carries its gradients (ks per n when dense).
  b.reduction = std::max<std::uint64_t>(std::uint64_t(msMax) * shape().n, busiest);
  const std::uint64_t hop = arch.fabric.hopLatencyCycles, ramp = arch.fabric.rampLatencyCycles;
  const std::uint32_t t = target(std::uint32_t(blocks_.size() - 1));
  const std::uint64_t across = std::max(t, layout_.gridX - 1 - t) * hop;
  // Onto the RAMP, across the row, off the RAMP into the PE; then the
  // column's sums: onto the RAMP, and per row below a relay stage; then the
  // hops to the edge and out.
  b.latency = 2 * ramp + arch.pe.fabricInputCycles + across + ramp +
              (layout_.gridY - 1) * arch.relayStageCycles() + (arch.mesh.width - layout_.gridY + 1) * hop;
  return b;
}

}  // namespace wsesim::firmware
