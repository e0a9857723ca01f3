#pragma once
// `workload.type: chain_reduce`: on each of `rows` rows, the first `pes` PEs
// each compute a local partial vector p_i = x_i * w_i (an FMUL, then
// `repeat - 1` FMACs p_i += x_i * w_i), and pass partial sums east along
// the row: PE 0 sends p_0, PE i adds p_i to what arrives from the west and
// forwards it, the last PE stores sum_i p_i. The partial sums stream: each
// PE forwards element k as soon as it arrives, one wavelet per cycle.
//
// Neighbouring PEs send on alternating colors, because a router's route for
// one color cannot both deliver a color to its PE and forward the same
// color from it.

#include <cstdint>
#include <vector>

#include "hw/config/ArchConfig.h"
#include "hw/fabric/ColorRouteTable.h"
#include "hw/pe/Isa.h"

namespace wsesim::kernels {

struct ChainReduceConfig {
  std::uint32_t pes = 0;      // PEs per chain, from x = 0
  std::uint32_t rows = 1;     // chains, on rows 0 .. rows-1
  std::uint32_t length = 0;   // elements per vector
  std::uint32_t repeat = 1;   // local ops per PE before the reduction
  pe::Precision precision = pe::Precision::Fp32;
  unsigned color = 0;         // chains use `color` and `color + 1`
  std::uint64_t seed = 1;
};

// Position of a PE in its chain: first, middle or last.
enum class ChainRole { First, Middle, Last };

pe::Program chainReduceProgram(const ChainReduceConfig& c, ChainRole role, unsigned sendColor, unsigned receiveColor);

// Routes of every chain: PE i sends east on color + (i % 2).
void programChainRoutes(const ChainReduceConfig& c, fabric::ColorRouteTable& routes);

// The cycle count of a chain without contention, in closed form:
//   task start + (overhead + elements(fmul, L)) + (repeat - 1)(overhead + elements(fmac, L) * passes)
//   + overhead + stream(L) + (pes - 1)(2 ramp + hop + fabric input) + 1
// with elements() as OpTiming charges them and stream(L) the cycles of L
// elements at the slower of FMOV's and FADD's fabric interval (L when one a cycle);
// that is HPDC'24's B + (2 TR + 2)(P - 1) plus the local ops and overheads
// (the last PE stores element L-1 that many cycles after cycle 0; +1
// counts cycle 0 itself).
std::uint64_t chainReduceCycles(const ChainReduceConfig& c, const config::ArchConfig& arch);

// The chain's inputs, generated from the seed: x and w of PE i of row y.
std::vector<float> chainInput(const ChainReduceConfig& c, std::uint32_t row, std::uint32_t pe, bool weights);

// What the last PE of `row` must hold, computed element by element in the
// hardware's order and rounding.
std::vector<float> chainReference(const ChainReduceConfig& c, std::uint32_t row);

}  // namespace wsesim::kernels
