#pragma once
// A way of computing C[M x N] = A[M x K] · B[K x N] on the mesh. A mapping
// programs the routes, loads a program on every PE it uses, places the
// operands that live on the wafer, describes the streams that enter at the
// edge (if any), reads the result back, and states analytic lower bounds on
// its cycle count. The gemm workload runs any mapping the same way.
//
// A mapping runs in one or more phases (e.g. passes over blocks of the
// output), each with its own programs and streams. A phase ends when its
// streams are in and every PE and the fabric are idle; then each PE's
// program is unloaded, keeping only `keptBuffers()` (with their data), and
// the next phase's programs are loaded. Routes that change with the phase
// are reprogrammed before it loads, while the fabric is empty (the hardware
// would switch route positions with control wavelets; we model the switch
// as free).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "firmware/gemm/Buffering.h"
#include "firmware/gemm/GemmShape.h"
#include "firmware/gemm/Matrix.h"
#include "hw/config/ArchConfig.h"
#include "hw/fabric/ColorRouteTable.h"
#include "hw/pe/PeArray.h"
#include "hw/wafer/EdgeCollector.h"
#include "hw/wafer/EdgeInjector.h"

namespace wsesim::firmware {

struct GemmBounds {
  std::uint64_t compute = 0;    // the busiest PE's FMACs at full lanes, no overhead
  std::uint64_t bandwidth = 0;  // operands entering through the I/O (and its links); resident: the busiest fabric link
  std::uint64_t reduction = 0;  // partial sums over the busiest link at one wavelet per cycle
  std::uint64_t latency = 0;    // the critical path of hops and ramps
  std::uint64_t max() const { return std::max({compute, bandwidth, reduction, latency}); }
};

class GemmMapping {
 public:
  virtual ~GemmMapping() = default;

  virtual const GemmShape& shape() const = 0;
  virtual std::uint32_t gridX() const = 0;
  virtual std::uint32_t gridY() const = 0;
  virtual unsigned colorsUsed() const = 0;
  // One line: the algorithm, the shape, the grid and the blocks.
  virtual std::string describe() const = 0;
  // How the resident mappings hold the blocks they receive (never Auto); none for the others.
  virtual std::optional<Buffering> buffering() const { return std::nullopt; }

  virtual std::uint32_t phases() const { return 1; }
  virtual std::vector<std::string> keptBuffers() const { return {}; }

  // The router of grid PE (c, r): the mesh's (c, r) unless the mapping lays its grid otherwise.
  virtual fabric::RouterId pe(const fabric::MeshGeometry& mesh, std::uint32_t c, std::uint32_t r) const {
    return mesh.id(c, r);
  }

  virtual void programRoutes(fabric::ColorRouteTable& routes) const = 0;
  // Routes that change from phase to phase, programmed before the phase's
  // programs are loaded (the hardware would advance switch positions with
  // control wavelets). The fabric is idle when they change.
  virtual void programPhaseRoutes(fabric::ColorRouteTable&, std::uint32_t /*phase*/) const {}
  virtual void load(pe::PeArray& pes, const fabric::MeshGeometry& mesh, std::uint32_t phase) const = 0;
  // Places the resident operands (functional mode) after phase 0 is loaded; `b` only if it is resident.
  virtual void writeOperands(pe::PeArray& pes, const fabric::MeshGeometry& mesh, const Matrix& a,
                             const Matrix& b) const = 0;
  // A phase's streams entering at the edge; payloads from `b` (null in
  // timing mode). None by default: mappings whose operands all stay on the
  // wafer stream nothing in.
  virtual std::vector<wafer::EdgeStream> streams(const fabric::MeshGeometry& /*mesh*/, const Matrix* /*b*/,
                                                 std::uint32_t /*phase*/) const {
    return {};
  }
  // The result, from the PEs' SRAM or from what left the wafer (`egress`).
  virtual Matrix readOutput(const pe::PeArray& pes, const fabric::MeshGeometry& mesh,
                            const wafer::EdgeCollector& egress) const = 0;
  virtual GemmBounds bounds(const config::ArchConfig& arch) const = 0;

  // The output columns (n's) phase `phase` computes, when the mapping's
  // phases are blocks of n's streamed one after another; 0 otherwise.
  virtual std::uint32_t phaseOutputs(std::uint32_t /*phase*/) const { return 0; }
  // The same mapping with its phase i being phase cuts[i].phase cut to its
  // first cuts[i].outputs n's: what timing mode simulates to extrapolate a
  // long phase from its steady state (testbench/gemm/SimulatedGemm.h). Null
  // when phaseOutputs is 0; its results are not the GEMM's.
  virtual std::unique_ptr<GemmMapping> cutPhases(const std::vector<PhaseCut>& /*cuts*/) const { return nullptr; }
};

}  // namespace wsesim::firmware
