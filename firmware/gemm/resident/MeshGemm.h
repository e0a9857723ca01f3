#pragma once
// A MeshGEMM-style algorithm (WaferLLM, OSDI'25): Cannon's shifts on a
// logical ring laid onto each mesh line interleaved, mesh positions
// 0, 2, 4, ..., 5, 3, 1, so that every logical neighbour, the ring's
// closing pair included, is at most two hops away.

#include "firmware/gemm/resident/RingShiftGemm.h"

namespace wsesim::firmware {

class MeshGemm : public RingShiftGemm {
 public:
  MeshGemm(const GemmShape& shape, const config::ArchConfig& arch, std::uint32_t gridX, std::uint32_t gridY,
           Buffering buffering)
      : RingShiftGemm("meshgemm", shape, arch, gridX, gridY, interleaved, buffering) {}

  // Logical position -> mesh position: the even positions going out, the odd ones coming back.
  static std::vector<std::uint32_t> interleaved(std::uint32_t grid) {
    std::vector<std::uint32_t> order;
    for (std::uint32_t x = 0; x < grid; x += 2) order.push_back(x);
    for (std::uint32_t x = grid - 1 - grid % 2; x < grid; x -= 2) order.push_back(x);
    return order;
  }
};

}  // namespace wsesim::firmware
