#include "testbench/keys/KeyDescriptions.h"

#include "hw/config/ArchKeys.h"
#include "hw/energy/EnergyKeys.h"
#include "hw/fabric/RouterKeys.h"
#include "hw/pe/PeKeys.h"
#include "hw/system/SystemKeys.h"
#include "hw/wafer/IoKeys.h"

namespace wsesim::keys {
namespace {

bool matches(const std::string& pattern, const std::string& key) {
  std::size_t p = 0, k = 0;
  while (p < pattern.size() && k < key.size()) {
    if (pattern[p] == '<') {
      p = pattern.find('>', p) + 1;
      k = key.find('.', k);
      if (k == std::string::npos) k = key.size();
    } else if (pattern[p++] != key[k++]) {
      return false;
    }
  }
  return p == pattern.size() && k == key.size();
}

// The keys declared beside their params structs (common/KeyDecl.h) bring their own meaning.
template <class Params>
void addDeclared(std::vector<KeyDescription>& to, const common::KeyTable<Params>& table) {
  for (const auto& k : table.keys) to.push_back({"", table.prefix + std::string(k.name), k.meaning});
  for (const common::KeyFamily& f : table.families) to.push_back({"", table.prefix + std::string(f.pattern), f.meaning});
}

std::vector<KeyDescription> declaredKeys() {
  std::vector<KeyDescription> declared;
  addDeclared(declared, config::meshKeys());
  addDeclared(declared, pe::peKeys());
  addDeclared(declared, fabric::routerKeys());
  addDeclared(declared, wafer::ioKeys());
  addDeclared(declared, system::memoryxKeys());
  addDeclared(declared, system::swarmxKeys());
  addDeclared(declared, system::clusterKeys());
  addDeclared(declared, config::firmwareKeys());
  addDeclared(declared, energy::energyKeys());
  addDeclared(declared, energy::areaKeys());
  return declared;
}

}  // namespace

const std::vector<KeyDescription>& keyDescriptions() {
  static const std::vector<KeyDescription> descriptions = [] {
    std::vector<KeyDescription> all = declaredKeys();
    const std::vector<KeyDescription> listed = {
      {"", "arch.preset",
       "the preset that supplies every `arch` key the run leaves unset (`wsesim presets`)"},
      {"", "arch.description",
       "free text, shown by `wsesim presets`"},
      {"", "arch.clock_hz",
       "core clock: converts cycles to seconds and sets the VCD time step"},
      {"", "run.mode",
       "functional: PE SRAM holds real bytes and ops compute values; timing: no data, the same cycle counts (pe-model.md)"},
      {"", "run.watchdog_cycles",
       "cycles in which wavelets wait in the fabric while none is injected, delivered or sent off the wafer and no PE work or I/O transfer is due, after which the run is declared deadlocked (fabric-model.md, \"Watchdog\"); its floor and default follow the mesh: max(100000, 10 x the zero-load corner-to-corner crossing)"},
      {"", "run.vcd.region.x0",
       "traced rectangle's west column (the waveform's and the timeline's)"},
      {"", "run.vcd.region.y0",
       "traced rectangle's north row"},
      {"", "run.vcd.region.x1",
       "traced rectangle's east column, inclusive; default min(width - 1, x0 + 3)"},
      {"", "run.vcd.region.y1",
       "traced rectangle's south row, inclusive; default min(height - 1, y0 + 3)"},
      {"", "run.timeline.link_window_cycles",
       "cycles per sample of the link counters in a timeline (`--timeline`)"},
      {"", "run.max_host_bytes",
       "the most host memory the run may plan to take, checked before anything is built; unset: the host's available memory (`MemAvailable` in `/proc/meminfo`), not recorded in the result"},
      {"", "run.max_cycles",
       "a wafer that has not finished by this cycle fails the run (exit 3; a training step's wafers are its groups of GEMMs, training.md); unset: no bound"},
      {"", "run.threads",
       "host threads the run may use (a NoC, GEMM or chain_reduce run steps the fabric in as many bands of routers at once, and visits their PEs at once; a timed GEMM runs its phases on chips of their own, as many at once; a training step simulates its groups of GEMMs on them at once); results are the same for any value; unset: every core of the process's affinity mask, not recorded in the result"},
      {"", "workload.type",
       "workload type (registered in `testbench/registry/WorkloadTypes.cpp`)"},
      {"chain_reduce", "workload.pes",
       "PEs in each chain, along a mesh row"},
      {"chain_reduce", "workload.rows",
       "chains, one per mesh row"},
      {"chain_reduce", "workload.length",
       "elements of each PE's vectors"},
      {"chain_reduce", "workload.repeat",
       "local products per PE before the reduction (an FMUL and `repeat - 1` FMACs)"},
      {"chain_reduce", "workload.dtype",
       "the vectors' precision"},
      {"chain_reduce", "workload.color",
       "the first of the two colors the chain alternates"},
      {"chain_reduce", "workload.seed",
       "operand values"},
      {"gemm", "workload.m",
       "rows of the layer's activations: `Y[m x n] = X[m x k] · W[k x n]`, whichever pass runs"},
      {"gemm", "workload.k",
       "the reduced dimension of `Y[m x n] = X[m x k] · W[k x n]`"},
      {"gemm", "workload.n",
       "columns of the layer's weights and output"},
      {"gemm", "workload.dtype",
       "mixed: fp16 operands, fp32 accumulation"},
      {"gemm", "workload.reduction_dtype",
       "the type of the sums a PE passes on (across PEs, and out as the product): its accumulator's, or fp32 above an fp16 GEMM's fp16 accumulators, as a training step at precision level 1 runs them (weight_stream only; training.md, \"Precision\")"},
      {"gemm", "workload.algorithm",
       "the mapping (gemm-mappings.md)"},
      {"gemm", "workload.pass",
       "the training pass (weight_stream; the resident algorithms: `forward` only)"},
      {"gemm", "workload.grid_x",
       "the grid's columns, 0: auto (resident algorithms: P along mesh x, equal to grid_y; weight_stream: along mesh rows, at most the mesh height)"},
      {"gemm", "workload.grid_y",
       "the grid's rows, 0: auto (resident algorithms: P along mesh y; weight_stream: at most the mesh width)"},
      {"gemm", "workload.buffering",
       "the resident algorithms' receive buffers: double (next step's blocks arrive during this step's product), single (after it; SUMMA only), auto: the algorithm's preferred layout that fits the PE's SRAM (SUMMA: single, as the SDK runs it, else double; Cannon, MeshGEMM: double)"},
      {"", "workload.rows",
       "simulate every row, or representative rows of each GEMM (weight_stream, timing mode; forward and backward data one of the larger row size, weight gradient two; gemm-mappings.md)"},
      {"", "workload.columns",
       "with representative rows, simulate every column, or of a weight gradient two bands of the I/O ring's rows holding each edge's busiest feed, the whole grid's last feed's lateness added per phase (timing mode; gemm-mappings.md); every row asked for, every column by default"},
      {"", "workload.phases",
       "simulate every phase, or of each kind of four or more alike phases (weight_stream passes of as many n's, targets alike) three, the others interpolated on the line their reach gives, checked by the middle one (timing mode; gemm-mappings.md)"},
      {"", "workload.steady_state_outputs",
       "0: simulate every n; S: a pass of more than 16S n's is simulated cut to S, 2S, 4S, ... n's in rounds until its period per n settles, then extrapolated, where its kind's cuts may pay (weight_stream, timing mode; gemm-mappings.md)"},
      {"", "workload.steady_state_tolerance",
       "largest relative difference between the last three periods per n taken as settled"},
      {"", "workload.phase_line_tolerance",
       "largest relative difference between a representative phase's simulated cycles and its kind's line that keeps the line (representative phases; further off, the line splits there and its pieces are checked in turn; gemm-mappings.md)"},
      {"gemm", "workload.weights",
       "weight_stream: weights through the wafer's I/O ring channels (each at `arch.io.bandwidth_bytes_per_s / (2 x arch.io.channels_per_edge)`), or also through the system model (MemoryX, SwarmX, the systems' I/O rings: `workload.system` in the results, system-model.md)"},
      {"gemm", "workload.optimizer",
       "with `weights: memoryx`, the update MemoryX runs after a weight-gradient pass"},
      {"gemm", "workload.values",
       "operand values in functional mode: small integers (exact results) or uniform in [-1, 1)"},
      {"gemm", "workload.value_range",
       "integers in [-range, range]"},
      {"gemm", "workload.seed",
       "operand values, and which weights are zero (`weight_density` < 1)"},
      {"gemm", "workload.weight_density",
       "the fraction of W's weights that are non-zero: below 1 only they stream, each wavelet its 16-bit value and 16-bit index, and each arriving one runs an FMAC (weight_stream forward and backward_data, fp16 or mixed), and only their gradients leave the wafer (weight_grad); simulated whole (sparsity.md)"},
      {"gemm", "workload.weight_sparsity",
       "which weights are zero: uniform (each with probability 1 - density) or row_imbalanced (W's row k non-zero with probability density x (1/2 + k/(K-1)), at most 1: the grid's columns get unequal shares)"},
      {"noc", "workload.pattern",
       "traffic pattern (the patterns table below); by default row_broadcast under arch.fabric.routing: color, uniform_random under xy"},
      {"noc", "workload.injection_rate",
       "wavelets per source PE per cycle (offered load)"},
      {"noc", "workload.packet_wavelets",
       "wavelets per packet"},
      {"noc", "workload.warmup_cycles",
       "cycles before the measurement window"},
      {"noc", "workload.measure_cycles",
       "length of the measurement window"},
      {"noc", "workload.drain_cycles",
       "at most this long after the window for measured packets to arrive"},
      {"noc", "workload.seed",
       "random seed; a run is deterministic for a given configuration"},
      {"noc", "workload.colors",
       "packet patterns only: each packet picks a color (queue) uniformly from the first `colors`"},
      {"noc", "workload.broadcast_sources",
       "broadcast patterns only: sources per row (column), each on its own color"},
      {"noc", "workload.hotspot.x",
       "`hotspot` only: the hotspot's column; default width / 2"},
      {"noc", "workload.hotspot.y",
       "`hotspot` only: the hotspot's row; default height / 2"},
      {"noc", "workload.hotspot.fraction",
       "`hotspot` only: share of packets sent to the hotspot"},
      {"train", "workload.model",
       "the model: a zoo name (`wsesim models`) or a path to a model file"},
      {"train", "workload.batch",
       "sequences per system and step"},
      {"train", "workload.seq",
       "tokens per sequence; default the model's `seq`, at most its learned positions (rotary: 2^20)"},
      {"train", "workload.micro_batch",
       "`auto` or sequences per micro-batch (1 to `batch`): the wafer runs a forward and backward pass per micro-batch, weights streamed in for each, MemoryX sums their gradients; `auto` takes as few as fit each PE's SRAM, as even as they can be (training.md)"},
      {"train", "workload.activation_offload",
       "`on`: a micro-batch may keep more activations than SRAM holds: those of its first layers, as few as let it fit, go to MemoryX as its forward pass computes them and come back for its backward pass, over the system's I/O, SwarmX and MemoryX's storage (training.md); `off`: all stay on the wafer"},
      {"train", "workload.activation_recompute",
       "`on`: a micro-batch may keep more activations than SRAM holds: its first layers, as few as let it fit, run part of their forward pass again (GEMMs, weights streamed again, and ops) just before their backward pass, first the FFN's activation, then the whole layer, keeping only what that part reads (training.md); `off`: every layer keeps all it needs; `auto`: of the counts of micro-batches from the fewest that fit recomputing to the fewest keeping all, the one whose estimated step (its GEMMs' lower bounds and ops, MemoryX's storage traffic) is the lowest. `off` with `activation_offload: on`"},
      {"train", "workload.steps",
       "steps run on the system model; `step_cycles` is the run over its steps (from step 2 on, a step's forward waits for the previous step's updates)"},
      {"train", "workload.optimizer",
       "MemoryX's update (`hw/system/OptimizerModel`)"},
      {"train", "workload.layers",
       "simulate each distinct GEMM once (identical products reuse its timing: identical layers, micro-batches, and, dense, a backward-data pass of a forward one's shape; a last micro-batch a few sequences short whose simulated rows are the same takes their timing) or every GEMM of the step"},
      {"train", "workload.wafers",
       "with `arch.cluster.systems` > 1: time one wafer and reuse it for every system (they are identical), or simulate every system's wafer"},
      {"train", "workload.dtype",
       "the GEMMs' precision"},
      {"train", "workload.precision_opt_level",
       "the vendor's precision optimisation level for a `mixed` step: 0 sums every GEMM in fp32 (the `fmachs` FMAC, 2 fp16 lanes on WSE-2), 1 (the vendor's default) sums within a PE in fp16 (`fmach`, 4 lanes) and across PEs in fp32, in every GEMM (training.md, \"Precision\"); no effect in fp16 or fp32"},
      {"train", "workload.weight_density",
       "the fraction of each transformer block's weight matrix that is non-zero (the LM head stays dense): below 1 MemoryX keeps, streams and updates only the non-zeros, each streamed as its 16-bit value and 16-bit index, each arriving one runs an FMAC, and only their gradients leave the wafer (fp16 or mixed; training.md, sparsity.md)"},
      {"train", "workload.weight_sparsity",
       "which weights are zero: uniform (each with probability 1 - density) or row_imbalanced (a matrix's row k non-zero with probability density x (1/2 + k/(K-1)), at most 1)"},
      {"train", "workload.seed",
       "which weights are zero (`weight_density` < 1): the same for every block's matrix of one shape"},
      {"train", "run.wafer_timing_cache",
       "a directory where the run keeps each wafer timing it simulates and reuses it for runs that differ only outside the wafer (training.md)"},
    };
    all.insert(all.end(), listed.begin(), listed.end());
    return all;
  }();
  return descriptions;
}

const KeyDescription* describe(const std::string& section, const std::string& key) {
  const KeyDescription* any = nullptr;
  for (const KeyDescription& d : keyDescriptions()) {
    if (!matches(d.pattern, key)) continue;
    if (d.section == section) return &d;
    if (d.section.empty() && !any) any = &d;
  }
  return any;
}

}  // namespace wsesim::keys
