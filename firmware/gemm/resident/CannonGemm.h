#pragma once
// Cannon's algorithm: the logical grid is the mesh's, so A shifts west and
// B north by one PE per step, and the PE at the west (north) end sends its
// block to the east (south) end: on a mesh, without the torus's wrap-around
// links, that path runs back the whole length of the line, P - 1 hops,
// which every step waits for (what makes Cannon slow at scale).

#include "firmware/gemm/resident/RingShiftGemm.h"

namespace wsesim::firmware {

class CannonGemm : public RingShiftGemm {
 public:
  CannonGemm(const GemmShape& shape, const config::ArchConfig& arch, std::uint32_t gridX, std::uint32_t gridY,
             Buffering buffering)
      : RingShiftGemm("cannon", shape, arch, gridX, gridY, ResidentGemmPlan::inOrder, buffering) {}
};

}  // namespace wsesim::firmware
