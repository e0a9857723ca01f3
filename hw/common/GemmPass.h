#pragma once
// The training pass a GEMM belongs to. The model zoo lowers a training step
// into GEMMs of each pass (models/TrainingStep.h); the firmware maps a GEMM
// by its pass, which decides for weight streaming which operands live on
// the wafer and which stream in or out (firmware/gemm/GemmShape.h). Both
// sides name it here, below them both, so that neither converts.

#include <cstdint>

#include "hw/common/EnumNames.h"

namespace wsesim {

enum class GemmPass : std::uint8_t { Forward, BackwardData, WeightGrad };
inline constexpr EnumName<GemmPass> kGemmPassNames[] = {
    {GemmPass::Forward, "forward"}, {GemmPass::BackwardData, "backward_data"}, {GemmPass::WeightGrad, "weight_grad"}};
constexpr const char* gemmPassName(GemmPass p) { return nameOf(kGemmPassNames, p); }  // "backward_data"

}  // namespace wsesim
