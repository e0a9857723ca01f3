#pragma once
// How a resident GEMM mapping holds the operand blocks it receives each
// step (`workload.buffering`): double-buffered, so the next step's blocks
// arrive while this step multiplies, or single-buffered, so they arrive
// only once this step's product has consumed the buffer. Auto: the
// algorithm's first layout that fits the PE's SRAM, in its order of
// preference (SUMMA: single, the SDK's program; Cannon, MeshGEMM: double,
// the only one they have).

#include <cstdint>

#include "hw/common/EnumNames.h"

namespace wsesim::firmware {

enum class Buffering : std::uint8_t { Auto, Double, Single };

inline constexpr EnumName<Buffering> kBufferingNames[] = {
    {Buffering::Auto, "auto"}, {Buffering::Double, "double"}, {Buffering::Single, "single"}};

constexpr const char* bufferingName(Buffering b) { return nameOf(kBufferingNames, b); }

}  // namespace wsesim::firmware
