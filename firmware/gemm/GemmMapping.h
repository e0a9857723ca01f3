#pragma once
// A way of computing C[M x N] = A[M x K] · B[K x N] on the mesh. A mapping
// programs the routes, loads a program on every PE it uses, places the
// operands that live on the wafer, describes the streams that enter at the
// edge (if any), reads the result back, and states analytic lower bounds on
// its cycle count. The gemm workload runs any mapping the same way.
//
// A mapping is data (GemmOutline: shape, grid, colors, phases, kept
// buffers, buffering, phase outputs, placement), filled once, plus what
// really varies (the virtual functions below). It sees the PEs through
// pe::PeControl only.
//
// A mapping runs in one or more phases (e.g. passes over blocks of the
// output), each with its own programs and streams. A phase ends when its
// streams are in and every PE and the fabric are idle; then each PE's
// program is unloaded, keeping only `keptBuffers()` (with their data), and
// the next phase's programs are loaded. Routes that change with the phase
// are reprogrammed before it loads, while the fabric is empty, and the
// phase starts arch.fabric.route_switch_cycles later. A mapping whose
// outline says `pacedPhases` runs its phases PE by PE instead, without the
// wafer-wide barrier (firmware/runtime/PePacing.h).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "firmware/gemm/Buffering.h"
#include "firmware/gemm/GemmShape.h"
#include "firmware/gemm/Matrix.h"
#include "firmware/routes/LineRoutes.h"
#include "hw/config/ArchConfig.h"
#include "hw/fabric/ColorRouteTable.h"
#include "hw/pe/PeControl.h"
#include "hw/wafer/EdgeEgress.h"
#include "hw/wafer/EdgeStream.h"

namespace wsesim::firmware {

struct GemmBounds {
  std::uint64_t compute = 0;    // the busiest PE's FMACs at full lanes, no overhead
  std::uint64_t bandwidth = 0;  // operands entering through the I/O (and its links); resident: the busiest fabric link
  std::uint64_t reduction = 0;  // partial sums over the busiest link at one wavelet per cycle
  std::uint64_t latency = 0;    // the critical path of hops and ramps
  std::uint64_t max() const { return std::max({compute, bandwidth, reduction, latency}); }
  // The name of the largest.
  const char* bound() const {
    return max() == compute ? "compute" : max() == bandwidth ? "bandwidth" : max() == reduction ? "reduction" : "latency";
  }
};

// What a mapping is, as plain data filled once when it is built: what the
// runner and the results read.
struct GemmOutline {
  GemmShape shape;
  std::uint32_t gridX = 0, gridY = 0;
  unsigned colorsUsed = 0;
  std::string line;  // one line: the algorithm, the shape, the grid and the blocks
  // How the resident mappings hold the blocks they receive (never Auto); none for the others.
  std::optional<Buffering> buffering;
  std::uint32_t phases = 1;
  std::vector<std::string> keptBuffers;
  // Per phase, the output columns (n's) it computes, when the mapping's
  // phases are blocks of n's streamed one after another; empty otherwise.
  std::vector<std::uint32_t> phaseOutputs;
  // Per phase, when phases of one kind differ only in where their target
  // lies: their cycles then grow linearly with its reach (the longest
  // pipeline of hops the phase fills and drains), which timing mode may
  // interpolate (SimulatedGemm's representative phases). Empty otherwise.
  std::vector<PhaseLikeness> phaseLikeness;
  // What phases of one kind run on besides their kind: the program family,
  // grid, blocks and element types. GEMMs of one layout share their kinds'
  // lines (the train workload's GEMMs that differ only in N).
  std::string phaseLayout;
  // Grid PE (c, r) is the mesh's (c, r), or its (r, c) when the grid lies
  // transposed (weight streaming: grid columns along mesh rows).
  bool transposed = false;
  // Each PE goes on to its next phase when its own program has ended, as
  // a program looping over its steps does on the machine, instead of all
  // PEs together once the wafer is idle (PePacing). For mappings that
  // stream nothing in and whose phases' transfers (GemmMapping::transfers)
  // are broadcasts delivering to every PE they pass.
  bool pacedPhases = false;
};

// Loads one PE's program of a phase, sharing programs between PEs (a
// paced mapping's PEs enter their phases one by one).
class PhaseLoader {
 public:
  virtual ~PhaseLoader() = default;
  virtual void load(fabric::RouterId pe, std::uint32_t phase) = 0;
};

class GemmMapping {
 public:
  virtual ~GemmMapping() = default;

  const GemmOutline& outline() const { return outline_; }
  const GemmShape& shape() const { return outline_.shape; }
  std::uint32_t gridX() const { return outline_.gridX; }
  std::uint32_t gridY() const { return outline_.gridY; }
  unsigned colorsUsed() const { return outline_.colorsUsed; }
  const std::string& describe() const { return outline_.line; }
  std::optional<Buffering> buffering() const { return outline_.buffering; }
  std::uint32_t phases() const { return outline_.phases; }
  const std::vector<std::string>& keptBuffers() const { return outline_.keptBuffers; }
  std::uint32_t phaseOutputs(std::uint32_t phase) const {
    return outline_.phaseOutputs.empty() ? 0 : outline_.phaseOutputs[phase];
  }
  // The router of grid PE (c, r).
  fabric::RouterId pe(const fabric::MeshGeometry& mesh, std::uint32_t c, std::uint32_t r) const {
    return outline_.transposed ? mesh.id(r, c) : mesh.id(c, r);
  }

  // What varies from mapping to mapping: routes, programs and operands,
  // streams, the output, bounds and cutting phases.

  virtual void programRoutes(fabric::ColorRouteTable& routes) const = 0;
  // Routes that change from phase to phase, programmed before the phase's
  // programs are loaded (the hardware would advance switch positions with
  // control wavelets). The fabric is idle when they change.
  virtual void programPhaseRoutes(fabric::ColorRouteTable&, std::uint32_t /*phase*/) const {}
  virtual void load(pe::PeControl& pes, const fabric::MeshGeometry& mesh, std::uint32_t phase) const = 0;
  // Loads programs PE by PE onto `pes` (which must outlive it); null unless the phases are paced.
  virtual std::unique_ptr<PhaseLoader> phaseLoader(pe::PeControl& /*pes*/, const fabric::MeshGeometry& /*mesh*/) const {
    return nullptr;
  }
  // A phase's fabric transfers along the mesh's lines, where the mapping
  // states them (the resident mappings); paced phases need them.
  virtual std::vector<LineTransfer> transfers(std::uint32_t /*phase*/) const { return {}; }
  // Places the resident operands (functional mode) after phase 0 is loaded; `b` only if it is resident.
  virtual void writeOperands(pe::PeControl& pes, const fabric::MeshGeometry& mesh, const Matrix& a,
                             const Matrix& b) const = 0;
  // A phase's streams entering at the edge; payloads from `b` (null in
  // timing mode). None by default: mappings whose operands all stay on the
  // wafer stream nothing in.
  virtual std::vector<wafer::EdgeStream> streams(const fabric::MeshGeometry& /*mesh*/, const Matrix* /*b*/,
                                                 std::uint32_t /*phase*/) const {
    return {};
  }
  // The result, from the PEs' SRAM or from what left the wafer (`egress`).
  virtual Matrix readOutput(const pe::PeControl& pes, const fabric::MeshGeometry& mesh,
                            const wafer::EdgeEgress& egress) const = 0;
  virtual GemmBounds bounds(const config::ArchConfig& arch) const = 0;
  // The same mapping with its phase i being phase cuts[i].phase cut to its
  // first cuts[i].outputs n's: what timing mode simulates to extrapolate a
  // long phase from its steady state (firmware/runtime/SimulatedGemm.h). Null
  // when phaseOutputs is 0; its results are not the GEMM's.
  virtual std::unique_ptr<GemmMapping> cutPhases(const std::vector<PhaseCut>& /*cuts*/) const { return nullptr; }

 protected:
  explicit GemmMapping(GemmOutline outline) : outline_(std::move(outline)) {}

  GemmOutline outline_;
};

}  // namespace wsesim::firmware
