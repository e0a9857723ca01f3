#pragma once
// The cost model for the work of a training step that involves no streamed
// weights (attention matmuls, softmax, layer or RMS norms, GELU or SwiGLU,
// residual adds, embeddings): it is not simulated cycle by cycle. Each op is spread evenly
// over every PE of the mesh, which holds its share of the activations:
//
//   cycles = task start + op overhead + elementCycles(ceil(elements / PEs) x
//            (FLOPs per element) / FLOPs per lane op)
//
// with FMAC lane ops (2 FLOPs) for the attention matmuls and FADD lane ops
// (1 FLOP) for the elementwise ops, at the step's precision, charged as
// OpTiming charges them (the SIMD width or cycles_per_element, the slower). It
// leaves out moving data between PEs (e.g. K and V across the rows of a
// sequence for the attention matmuls), so it is optimistic: a lower bound
// for those ops. docs/training.md says so.

#include <cstdint>

#include "hw/config/ArchConfig.h"
#include "hw/energy/ActionCounts.h"
#include "hw/pe/OpKind.h"
#include "models/TrainingStep.h"

namespace wsesim::train {

std::uint64_t waferOpCycles(const models::WaferOp& op, const config::ArchConfig& arch, pe::Precision precision);

// The op's actions in the same model: its FLOPs as FMAC (2 FLOPs) or FADD
// (1 FLOP) elements, each reading its sources from and writing its result
// to SRAM, every PE active for waferOpCycles; no data moves between PEs.
energy::ActionCounts waferOpActions(const models::WaferOp& op, const config::ArchConfig& arch,
                                    pe::Precision precision);

}  // namespace wsesim::train
