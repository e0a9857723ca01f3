#pragma once
// How a weight-streamed GEMM Y[M x N] = X[M x K] . W[K x N] is laid onto a
// gridX x gridY block of PEs (the published WSE mapping): K is split along
// x and M along y in contiguous, balanced blocks; PE (c, r) holds the block
// X[rows of r, ks of c] in SRAM; the weights W[k][n] of column c's ks enter
// at the end of column c, n by n, and are multicast along it; each arriving
// weight triggers an FMAC of the PE's activation column into an accumulator
// and is not stored; after column c's last k of an n, each row reduces its
// partial sums towards a target column, which stores Y[rows of r, n].
//
// N is computed in passes, each a block of n's with its own target column,
// so that the output is spread over the columns (as the next layer reads
// its activations, split along x) and each target's share fits its SRAM.
// Partial sums reach a target at an end of the row along the row. One with
// columns on both sides either has them meet there (east from the PEs
// west of it, west from the others: the target takes two streams per n
// through its one RAMP) or, folded (`foldedPass`), takes them from one chain that
// runs east along the whole row past it (its router passing them on) and
// whose last column sends the total back west to it: every PE takes one
// stream, over a path about a row longer.
//
// The plan fixes the grid, the splits, the buffers and the colors, and
// checks them against the architecture, explaining what does not fit.
//
// The grid lies on the mesh transposed: grid column c is mesh row c and
// grid row r is mesh column r. The wafer's I/O ring has its channels on the
// West and East edges (WSE-FACTS "Wafer I/O"), so a grid column's weights
// enter at the end of its mesh row, from the channel of that row's band,
// and are multicast along the row: even grid columns from the West, odd
// ones from the East, so that both edges' channels carry weights.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "firmware/gemm/GemmShape.h"
#include "firmware/gemm/SramBudget.h"
#include "firmware/routes/LineRoutes.h"
#include "hw/config/ArchConfig.h"
#include "hw/pe/OpKind.h"
#include "hw/wafer/IoRingEdge.h"

namespace wsesim::firmware {

struct WeightStreamPlan {
  // The router of grid PE (c, r).
  static fabric::RouterId pe(const fabric::MeshGeometry& mesh, std::uint32_t c, std::uint32_t r) { return mesh.id(r, c); }
  // Grid column c's mesh line (positions: grid rows) and grid row r's (positions: grid columns).
  static MeshLine column(std::uint32_t c) { return MeshLine{false, c}; }
  static MeshLine row(std::uint32_t r) { return MeshLine{true, r}; }
  static bool weightsFromEast(std::uint32_t c) { return c % 2 == 1; }
  // Hops from the edge to the PE the weights' multicast reaches last, on a
  // mesh `meshWidth` wide: a column fed from the East crosses the whole mesh
  // row to grid row 0, one fed from the West reaches the grid's last row.
  static std::uint32_t multicastHops(std::uint32_t gridX, std::uint32_t gridY, std::uint32_t meshWidth) {
    return gridX > 1 ? meshWidth - 1 : gridY - 1;
  }
  // Cycles the busiest I/O ring feed takes to carry every column's ks x n
  // wavelets: inbound through the edge its weights enter from, or outbound
  // (the weight gradient) through the other one.
  std::uint64_t ringCycles(const wafer::IoRingEdge& ring, std::uint32_t n, bool outbound) const;
  // The same for `wavelets[c]` wavelets of each column c.
  std::uint64_t ringCycles(const wafer::IoRingEdge& ring, const std::vector<std::uint64_t>& wavelets, bool outbound) const;
  // A phase of `ns` n's whose sums meet at (forward) or whose dY leaves
  // from (weight gradient) column `target`: its programs differ from
  // another's of as many n's in the target's k's (its own work), whether
  // it ends the row, its column's parity (which colors carry what: no
  // timing) and its reach, the farther end's distance: the relays its data
  // pass through.
  PhaseLikeness passLikeness(std::uint32_t ns, std::uint32_t target, bool folded = false) const;
  // The grid and blocks every pass runs on, whatever N: `program` names the
  // mapping's program family (GemmOutline::phaseLayout).
  std::string layout(const std::string& program) const;


  GemmShape shape;
  std::uint32_t gridX = 0, gridY = 0;
  std::vector<std::uint32_t> kBegin;  // gridX + 1 boundaries: column c holds k in [kBegin[c], kBegin[c+1])
  std::vector<std::uint32_t> mBegin;  // gridY + 1 boundaries: row r holds m in [mBegin[r], mBegin[r+1])
  std::vector<std::uint32_t> nBegin;  // passes + 1 boundaries: pass p computes n in [nBegin[p], nBegin[p+1])
  std::vector<std::uint32_t> nFrom;   // per pass: the GEMM's n its first n is (nBegin's, unless the plan was cut)
  std::vector<std::uint32_t> target;  // per pass: the column that reduces and keeps its n's
  std::uint32_t loopCycles = 0;  // the kernel's own, per op (arch.firmware.weight_stream_loop_cycles)
  std::vector<bool> foldedPass;  // per pass: its target, between the ends, takes the sums folded back (above)
  unsigned weightColor = 0;
  unsigned eastColors[2] = {1, 2};  // partial sums flowing east: PE c sends on eastColors[c % 2]
  unsigned westColors[2] = {3, 4};  // and west: PE c sends on westColors[c % 2]
  // Folded: the last column sends the total back to the target on westColors[0];
  // east of the target the chain's colors swap, because the target's router passes them on.

  pe::ElementType inputType() const { return pe::operandType(pe::Opcode::Fmac, shape.precision, 1); }
  pe::ElementType accumulatorType() const { return pe::operandType(pe::Opcode::Fmac, shape.precision, -1); }
  std::uint32_t ks(std::uint32_t c) const { return kBegin[c + 1] - kBegin[c]; }
  std::uint32_t ms(std::uint32_t r) const { return mBegin[r + 1] - mBegin[r]; }
  std::uint32_t passes() const { return std::uint32_t(nBegin.size() - 1); }
  std::uint32_t ns(std::uint32_t p) const { return nBegin[p + 1] - nBegin[p]; }
  // Output elements PE column c keeps per row element: the n's of every pass targeting it.
  std::uint64_t outputColumns(std::uint32_t c) const { return outputColumns_[c]; }
  // Whether pass p's sums fold back to its target, and whether any pass's do.
  bool folds(std::uint32_t p) const { return foldedPass[p]; }
  bool anyFolds() const { return std::find(foldedPass.begin(), foldedPass.end(), true) != foldedPass.end(); }
  // Whether column c is the target of a pass whose sums meet there from both of its sides.
  bool twoSidedTarget(std::uint32_t c) const { return twoSidedTarget_[c]; }
  // What the plan holds in the SRAM of PE (c, r): a SramDemand or SramBytes (SramBudget.h).
  template <class Demand>
  Demand sramParts(std::uint32_t c, std::uint32_t r) const;
  std::string describe() const;
  // This plan with pass i being pass cuts[i].phase cut to its first
  // cuts[i].outputs n's (same grid, splits and targets; N their sum).
  WeightStreamPlan cut(const std::vector<PhaseCut>& cuts) const;
  // This plan on grid columns `columns` alone (column i of the result is
  // `columns[i]`, with its k's), pass p reduced to (or, a weight gradient,
  // broadcast from) `targets[p]`, a position in `columns`.
  WeightStreamPlan onColumns(const std::vector<std::uint32_t>& columns, const std::vector<std::uint32_t>& targets) const;

  // Grid: the requested size (0: as large as the mesh and the matrix allow).
  // Throws PlanError naming what does not fit: the grid, the colors, or the
  // buffer of the PE that needs the most SRAM.
  static WeightStreamPlan make(const GemmShape& shape, const config::ArchConfig& arch, std::uint32_t gridX = 0,
                               std::uint32_t gridY = 0);

 private:
  // Per column, from the targets (their scans would cost passes x columns).
  void indexTargets();
  // Whether folding pass p's sums past its target (between the ends) beats
  // their meeting there, by the plan's estimate of the pass's cycles.
  bool foldPays(const config::ArchConfig& arch, std::uint32_t p) const;
  // What a PE holding ks x ms activations keeps beside them, with `outputs`
  // output columns (a target: twoSided when columns lie on both its sides).
  template <class Demand>
  Demand sramParts(std::uint32_t ks, std::uint32_t ms, bool twoSided, std::uint64_t outputs) const;
  std::vector<std::uint64_t> outputColumns_;
  std::vector<bool> twoSidedTarget_;
};

}  // namespace wsesim::firmware
