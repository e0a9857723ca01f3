#pragma once
// What the resident-operand GEMM mappings (SUMMA, Cannon, MeshGEMM) share:
// the block layout (ResidentGemmPlan), one program per PE and phase built
// from a ResidentStep, placing A and B, reading C back, and the bounds.
//
// Each step of an algorithm is a phase: the fabric is idle between phases
// and every PE's program is replaced, keeping all its buffers. Within a
// phase a PE starts its fabric transfers (block copies to and from
// neighbours, each an fmov on its own hardware thread) and at the same time
// multiplies the blocks it already holds, so communication for the next
// step overlaps this step's FMACs. A block product C += A . B is, for each n
// of the block, one task run of ks AXPY FMACs: C[:, n] += A[:, k] * B[k, n],
// with B[k, n] a stride-0 memory scalar; the task re-activates itself until
// its n's are done (see ResidentGemm.cpp).

#include <string>
#include <tuple>
#include <vector>

#include "firmware/gemm/GemmMapping.h"
#include "firmware/gemm/resident/ResidentGemmPlan.h"
#include "firmware/routes/LineRoutes.h"

namespace wsesim::firmware {

// What the PE at a logical position does in one phase.
struct ResidentStep {
  // A block copy over the fabric: sent from or received into `buffer`.
  struct Move {
    bool send = false;
    unsigned color = 0;
    std::string buffer;
    std::uint32_t elements = 0;
    bool operator<(const Move& o) const {
      return std::tie(send, color, buffer, elements) < std::tie(o.send, o.color, o.buffer, o.elements);
    }
  };
  std::vector<Move> moves;
  // C += a . b over ks k's (ks == 0: no product this phase).
  std::string a, b;
  std::uint32_t ks = 0;

  bool operator<(const ResidentStep& o) const { return std::tie(moves, a, b, ks) < std::tie(o.moves, o.a, o.b, o.ks); }
};

// Bounds: compute (the busiest PE's FMACs at full lanes); bandwidth (the
// busiest fabric link's wavelets over all phases, one per cycle); latency
// (per phase, the farthest receiver's hops and ramps, as phases do not
// overlap).
class ResidentGemm : public GemmMapping {
 public:
  // Its colors and phases are the algorithm's: the derived class sets them.
  explicit ResidentGemm(ResidentGemmPlan plan) : GemmMapping(outlineOf(plan)), plan_(std::move(plan)) {}

  const ResidentGemmPlan& plan() const { return plan_; }

  void load(pe::PeControl& pes, const fabric::MeshGeometry& mesh, std::uint32_t phase) const override;
  std::unique_ptr<PhaseLoader> phaseLoader(pe::PeControl& pes, const fabric::MeshGeometry& mesh) const override;
  // A's block (i, j) into the first A buffer of the PE at logical (i, j), B's into the first B buffer.
  void writeOperands(pe::PeControl& pes, const fabric::MeshGeometry& mesh, const Matrix& a,
                     const Matrix& b) const override;
  Matrix readOutput(const pe::PeControl& pes, const fabric::MeshGeometry& mesh,
                    const wafer::EdgeEgress& egress) const override;
  GemmBounds bounds(const config::ArchConfig& arch) const override;
  // Every algorithm states its phases' transfers.
  std::vector<LineTransfer> transfers(std::uint32_t phase) const override = 0;

  // The program of the PE at logical (i, j) in a phase.
  pe::Program program(std::uint32_t i, std::uint32_t j, std::uint32_t phase) const;

 protected:
  virtual ResidentStep step(std::uint32_t i, std::uint32_t j, std::uint32_t phase) const = 0;

  MeshLine row(std::uint32_t i) const { return MeshLine{false, plan_.order[i]}; }
  MeshLine column(std::uint32_t j) const { return MeshLine{true, plan_.order[j]}; }
  fabric::RouterId peAt(const fabric::MeshGeometry& mesh, std::uint32_t i, std::uint32_t j) const {
    return mesh.id(plan_.order[j], plan_.order[i]);
  }

  ResidentGemmPlan plan_;

 private:
  class Loader;
  // Kept: every buffer (the operands stay where the steps leave them).
  static GemmOutline outlineOf(const ResidentGemmPlan& plan);
  pe::Program build(std::uint32_t i, std::uint32_t j, const ResidentStep& step) const;
};

}  // namespace wsesim::firmware
