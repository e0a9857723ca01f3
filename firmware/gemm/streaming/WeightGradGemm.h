#pragma once
// The weight-gradient pass of a weight-streamed layer, dW[K x N] =
// X^T[K x M] . dY[M x N], as the transposed version of the forward dataflow
// (the vendor has not published this mapping; docs/gemm-mappings.md says
// what we assume). Nothing streams in; the gradients stream out:
//
// - X stays where the forward pass left it: PE (c, r) holds X[rows of r,
//   ks of c] (WeightStreamPlan's layout of the forward GEMM).
// - dY lies where the layer's output Y lay in the forward pass (as the
//   backward-data pass of the next layer leaves it): pass p's n's at its
//   target column t, rows of r at row r.
// - Each PE owes the product of its block, X^T[ks x ms] . dY[ms x n's]
//   (its tokens' share of the sum over tokens), and computes it as outer
//   products: the target PE of each row broadcasts dY[rows of r, n's] along
//   its row token by token (color 0, both ways, itself included); every PE
//   takes a token's n's into a row buffer and runs one AXPY per k over
//   them, acc[k, n's] += X[m, k] x dY[m, n's], so its ops are as long as
//   the n's, not as its ks.
// - With sparse weights (GemmShape::sparsity) the products are computed
//   as above, but only the kept gradients are reduced and leave, an op per
//   run of kept n's of each k: K x N x density gradients leave.
// - After the row's last token, the partial dW[ks, n's] of the PE is
//   reduced down the column (colors 1 and 2 by row parity) on a hardware
//   thread, and the chain's last PE sends the sum off the wafer at the end
//   of the column's mesh row, into the I/O ring: even columns chain from
//   row 0 up and leave East, odd ones from the last row down and leave
//   West, so both edges' channels carry gradients. K x N gradients leave,
//   one column of k's per PE column, each k's n's together.
//   (Grid terms as in WeightStreamPlan.h: a grid column is a mesh row.)
//
// The phases are blocks of the forward's passes: each pass's n's in as few
// balanced blocks as let a PE's partial dW (ks x the block's n's) and a
// token's dY row fit beside X and dY; the broadcast's routes change with
// the pass (GemmMapping::programPhaseRoutes). A block may run in slices of
// its n's (at most arch.firmware.weight_grad_slices, as many as the plan's
// estimate says pay: slicesThatPay), each slice's reduction overlapping the
// next slice's AXPYs. dY lies at its target block by block, slice by slice,
// each slice token-major.

#include <memory>
#include <optional>

#include "firmware/gemm/GemmMapping.h"
#include "firmware/gemm/streaming/WeightStreamPlan.h"

namespace wsesim::firmware {

class WeightGradGemm : public GemmMapping {
 public:
  // `shape` is the product computed, K x M x N (A = X^T, B = dY). Throws
  // PlanError when the layout or a PE's buffers do not fit.
  WeightGradGemm(const GemmShape& shape, const config::ArchConfig& arch, std::uint32_t gridX, std::uint32_t gridY);

  void programRoutes(fabric::ColorRouteTable& routes) const override;
  void programPhaseRoutes(fabric::ColorRouteTable& routes, std::uint32_t pass) const override;
  void load(pe::PeControl& pes, const fabric::MeshGeometry& mesh, std::uint32_t pass) const override;
  // A is X^T (K x M), B is dY (M x N).
  void writeOperands(pe::PeControl& pes, const fabric::MeshGeometry& mesh, const Matrix& a,
                     const Matrix& b) const override;
  Matrix readOutput(const pe::PeControl& pes, const fabric::MeshGeometry& mesh,
                    const wafer::EdgeEgress& egress) const override;
  // compute: the busiest PE's FMACs at full lanes; bandwidth: K x N
  // gradients through the busiest ring feed (or a column's through its
  // edge port); reduction: the busiest link (a column's sums, or a row's dY
  // broadcast); latency: a dY to the farthest column, then down the column.
  GemmBounds bounds(const config::ArchConfig& arch) const override;
  std::unique_ptr<GemmMapping> cutPhases(const std::vector<PhaseCut>& cuts) const override;

  pe::Program program(std::uint32_t c, std::uint32_t r, std::uint32_t phase) const;

  // Representative columns (timing mode; SimulatedGemm). The columns tie
  // each other only through the dY broadcast along each row, which every
  // PE it reaches paces, and through the I/O ring's feeds, one per band of
  // rows and edge, that their gradients share. So two of the ring's bands
  // stand for all: of its widest, the first pair (one starting at an even
  // row, then one whose rows keep their parity placed after it) holding
  // the busiest feed of each edge, a column of the most k's and one like
  // each target (its k's and parity). Each pass's dY leaves from the
  // column of the pair like its target (and the same end of the row, if
  // it ends it), nearest its place along the row; each phase then adds
  // how much later the whole grid's last feed ends than the sample's.
  // None when no pair does, when the pair is not fewer columns than the
  // grid, or with sparse weights (their kept gradients follow the
  // columns' k's).
  struct ColumnSample {
    std::unique_ptr<GemmMapping> mapping;
    // A pair of the ring's bands: the mesh simulated is kBands bands tall,
    // a channel per band and edge.
    static constexpr std::uint32_t kBands = 2;
    std::uint32_t bandRows = 0;   // rows of each band
    std::uint64_t sramBytes = 0;  // the sample's busiest PE's buffers (its targets keep the dY of several columns')
    std::vector<std::int64_t> lateness;  // per phase: cycles the whole grid's last feed ends after the sample's
  };
  std::optional<ColumnSample> representativeColumns(const config::ArchConfig& arch) const;
  // The slices, at most arch.firmware.weight_grad_slices, that make a
  // block fastest by the plan's estimate from the unsliced GEMM's bounds
  // (`blocks` blocks, PEs of at most `ks` k's and `ms` tokens): a slice
  // hides the way out of the one before it behind its AXPYs, and adds a
  // token loop.
  static std::uint32_t slicesThatPay(const GemmBounds& whole, std::size_t blocks, std::uint32_t ks, std::uint32_t ms,
                                     const config::ArchConfig& arch, std::uint32_t loopCycles);

 private:
  // A phase: n's [nBegin, nEnd) of pass `pass` of the forward layout.
  struct Block {
    std::uint32_t pass = 0, nBegin = 0, nEnd = 0;
    std::uint32_t from = 0;  // the GEMM's n its first n is (nBegin, unless the mapping was cut)
    std::uint32_t ns() const { return nEnd - nBegin; }
  };
  // A block's n's in slices: runs of `count` slices of `length` n's, the
  // longer last (at most two runs); `slices` at most, one per n.
  struct SliceRun {
    std::uint32_t length = 0, count = 0;
  };
  static std::vector<SliceRun> sliceRuns(std::uint32_t ns, std::uint32_t slices);
  // Where each slice of a block of `ns` n's starts, and its end.
  std::vector<std::uint32_t> sliceBounds(std::uint32_t ns) const;
  // Each pass in as few balanced blocks of at most `most` n's as can be.
  static std::vector<Block> blocksOf(const WeightStreamPlan& layout, std::uint32_t most);
  // What program() holds in the SRAM of PE (c, r) for blocks of `ns` n's:
  // a SramDemand or SramBytes (SramBudget.h).
  template <class Demand>
  static Demand sramParts(const WeightStreamPlan& layout, std::uint32_t c, std::uint32_t r, std::uint32_t ns);
  // A feed of the I/O ring's gradients out (a band of rows and an edge):
  // the k's of its columns, and its first and last column.
  struct FeedLoad {
    bool east = false;
    std::uint64_t load = 0;
    std::uint32_t first = 0, last = 0;
  };
  // The feeds of `bands` (first position, positions), position i being
  // grid column column(i).
  template <class Column>
  std::vector<FeedLoad> feedLoads(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& bands,
                                  Column column) const;
  // The largest block that fits every PE's SRAM (arch.pe.sram_bytes);
  // throws PlanError naming the PE that cannot hold even one n.
  static std::uint32_t largestBlock(const WeightStreamPlan& layout, const config::ArchConfig& arch,
                                    const std::string& describe);
  // A layout checked against the architecture, its blocks and their slices.
  struct Fitted {
    WeightStreamPlan layout;
    std::vector<Block> blocks;
    std::uint32_t slices = 1;
  };
  static Fitted fit(const GemmShape& shape, const config::ArchConfig& arch, std::uint32_t gridX, std::uint32_t gridY);
  WeightGradGemm(const GemmShape& shape, Fitted fitted)
      : WeightGradGemm(shape, std::move(fitted.layout), std::move(fitted.blocks), fitted.slices) {}
  // A layout already checked against the architecture (or cut from one), in these blocks.
  WeightGradGemm(const GemmShape& shape, WeightStreamPlan layout, std::vector<Block> blocks, std::uint32_t slices)
      : GemmMapping(outlineOf(shape, layout, blocks, slices)),
        layout_(std::move(layout)),
        blocks_(std::move(blocks)),
        slices_(slices) {}
  // 3 colors; kept: X and dY; a phase per block, of `slices` slices.
  static GemmOutline outlineOf(const GemmShape& shape, const WeightStreamPlan& layout, const std::vector<Block>& blocks,
                               std::uint32_t slices);
  // Whether column c's reduction runs towards higher rows and leaves East.
  // The gradients leave through the edge the weights did not come in by.
  static bool chainsEast(std::uint32_t c) { return !WeightStreamPlan::weightsFromEast(c); }
  bool chainStart(std::uint32_t c, std::uint32_t r) const { return r == (chainsEast(c) ? 0 : layout_.gridY - 1); }
  // Sparse: the runs of consecutive kept n's of each k of column c in
  // phase `phase`, as offsets into the PE's partial dW (k x ns + n).
  struct KeptRun {
    std::uint32_t offset = 0, length = 0;
  };
  std::vector<KeptRun> keptRuns(std::uint32_t c, std::uint32_t phase) const;
  // Per grid column, the gradients it sends off the wafer: ks x N, or the kept ones.
  std::vector<std::uint64_t> columnGradients() const;
  // Where phase `phase`'s n's start in the "dy" buffer of its target column, in n's.
  std::uint32_t dyColumnOffset(std::uint32_t phase) const;
  std::uint32_t target(std::uint32_t phase) const { return layout_.target[blocks_[phase].pass]; }

  WeightStreamPlan layout_;  // of the forward GEMM Y[M x N] = X[M x K] . W[K x N]
  std::vector<Block> blocks_;
  // Slices per block: at most arch.firmware.weight_grad_slices, as many as
  // slicesThatPay says (fit()); one with sparse weights.
  std::uint32_t slices_ = 1;
  unsigned broadcastColor_ = 0;
  unsigned sumColors_[2] = {1, 2};
};

}  // namespace wsesim::firmware
