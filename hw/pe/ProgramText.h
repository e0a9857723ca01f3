#pragma once
// Readable text of PE programs, for debugging and error messages:
//
//   program chain_reduce
//     buffer 0 acc: f32[64]
//     task 0 'start' (active at start)
//       0: fadd.fp32 [64] out@c3 <- in@c2, acc[0:+64:1]  on thread 1, then activate 2

#include <string>

#include "hw/pe/Isa.h"

namespace wsesim::pe {

std::string describe(const Program& program, const Descriptor& d);
std::string describe(const Program& program, const TensorOp& op);
std::string describe(const Program& program, const Instruction& in);
std::string dump(const Program& program);

}  // namespace wsesim::pe
