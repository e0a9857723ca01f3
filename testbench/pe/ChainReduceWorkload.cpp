#include "testbench/pe/ChainReduceWorkload.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "firmware/kernels/ChainReduce.h"
#include "hw/chip/WaferChip.h"
#include "hw/pe/Isa.h"
#include "hw/pe/OpTiming.h"
#include "testbench/results/EnergyReport.h"
#include "testbench/results/WaferMap.h"
#include "testbench/workload/Simulation.h"

namespace wsesim::kernels {
namespace {

// workload.pes, rows, length, repeat, dtype, color, seed (their ranges follow the mesh and the colors).
ChainReduceConfig readChainReduceConfig(config::ParamReader& p, const config::ArchConfig& arch) {
  ChainReduceConfig c;
  c.pes = std::uint32_t(p.integer("workload.pes", 2, arch.mesh.width, std::min<std::int64_t>(arch.mesh.width, 16),
                                  "a chain runs along one row of the mesh"));
  c.rows = std::uint32_t(p.integer("workload.rows", 1, arch.mesh.height, 1));
  c.length = std::uint32_t(p.integer("workload.length", 1, 1 << 24, 256));
  // The main task holds the FMUL, repeat - 1 FMACs and the send (pe::kMaxTaskInstructions).
  c.repeat = std::uint32_t(p.integer("workload.repeat", 1, std::int64_t(pe::kMaxTaskInstructions) - 1, 1,
                                     "a task holds at most " + std::to_string(pe::kMaxTaskInstructions) +
                                         " instructions: the FMUL, repeat - 1 FMACs and the send"));
  c.precision = *valueOf(pe::kPrecisionNames, p.choice("workload.dtype", {"fp32", "fp16"}, std::string("fp32")));
  c.color = unsigned(p.integer("workload.color", 0, std::int64_t(arch.fabric.colors) - 2, 0,
                               "the chain uses this color and the next one, of arch.fabric.colors = " +
                                   std::to_string(arch.fabric.colors)));
  c.seed = std::uint64_t(p.integer("workload.seed", 0, std::int64_t(1) << 62, 1));
  return c;
}

// The closed form (chainReduceCycles) counts a chain whose fabric and PEs
// keep up with one element a cycle. Returns why this machine does not, or
// "" when the closed form holds; then a run that differs from it fails.
// The conditions are those of fabric-model.md ("The one-cycle credit rule")
// and pe-model.md (the inbox's round trip), the last two found by runs:
// 0 of 784 random machines within them differ, most outside do.
std::string closedFormOutOfReach(const ChainReduceConfig& c, const config::ArchConfig& arch) {
  const unsigned depth = arch.fabric.queueDepth, hop = arch.fabric.hopLatencyCycles,
                 ramp = arch.fabric.rampLatencyCycles, input = arch.pe.fabricInputCycles;
  const auto n = [](unsigned v) { return std::to_string(v); };
  if (depth < hop + 1)
    return "arch.fabric.queue_depth = " + n(depth) + " < arch.fabric.hop_latency_cycles + 1 = " + n(hop + 1) +
           ": the links run below one wavelet a cycle";
  if (depth < ramp + 1)
    return "arch.fabric.queue_depth = " + n(depth) + " < arch.fabric.ramp_latency_cycles + 1 = " + n(ramp + 1) +
           ": the PEs inject below one wavelet a cycle";
  if (arch.pe.rampInboxDepth < 1 + ramp + input)
    return "arch.pe.ramp_inbox_depth = " + n(arch.pe.rampInboxDepth) +
           " < 1 + arch.fabric.ramp_latency_cycles + arch.pe.fabric_input_cycles = " + n(1 + ramp + input) +
           ": the PEs read below one wavelet a cycle";
  if (2 * ramp + input < 1)
    return "2 x arch.fabric.ramp_latency_cycles + arch.pe.fabric_input_cycles = 0: a relay stage takes a cycle "
           "more than its hop, which the closed form does not count";
  if (arch.pe.sramReadPorts < 2)
    return "arch.pe.sram_read_ports = 1: the FMUL's two vectors take two passes, which the closed form does not count";
  for (const pe::Opcode op : {pe::Opcode::Fmov, pe::Opcode::Fadd})
    if (pe::fabricInterval(arch.pe, op, c.precision, 1) > (1u << 16))
      return "the " + std::string(op == pe::Opcode::Fmov ? "FMOV" : "FADD") +
             " streams below one element a cycle (arch.pe.cycles_per_element." + pe::precisionName(c.precision) +
             (op == pe::Opcode::Fmov ? ".fmov" : ".fadd") + " > 1), where the closed form rounds";
  return "";
}

// The programs: about 0.9 KiB per local op (measured, any number of PEs:
// four programs of repeat + 1 instructions and their timing tables).
constexpr std::uint64_t kProgramBytesPerRepeat = 1024;

// What a run found: results() and summary() are both written from it.
struct ChainReduceResults {
  pe::PeCounters totals;
  double busyFraction = 0, flopUtilisation = 0;
  std::uint64_t busiestCycles = 0, sramHighWater = 0, waveletsDelivered = 0;
  bool checked = false;  // functional mode: the sums against the reference
  std::uint64_t mismatches = 0;
  double maxErrorVsExact = 0;
  double elaborationSeconds = 0, simulationSeconds = 0;
  std::uint64_t peBytes = 0, fabricBytes = 0;
};

class ChainReduceWorkload : public workload::Workload {
 public:
  ChainReduceWorkload(const ChainReduceConfig& config, const config::ArchConfig& arch, const config::RunConfig& run)
      : config_(config), arch_(arch), run_(run) {}

  void run(const workload::RunOptions& options) override;
  workload::HostMemoryPlan plannedHostMemory() const override {
    workload::HostMemoryPlan plan = workload::chipHostMemory(arch_, run_, chipParts());
    plan.bytes += std::uint64_t(config_.repeat) * kProgramBytesPerRepeat;
    return plan;
  }
  nlohmann::json typeResults() const override;
  std::string typeSummary() const override;

 private:
  chip::ChipParts chipParts() const {
    chip::ChipParts parts;
    parts.fabricThreads = run_.hostThreads();
    return parts;
  }
  // Compares every chain's sum with the reference; fills the check results.
  void check(const pe::PeArray& pes, ChainReduceResults& r) const;
  double peOpsPerSecond() const {
    return found_.simulationSeconds > 0 ? double(found_.totals.opsCompleted) / found_.simulationSeconds : 0.0;
  }

  ChainReduceConfig config_;
  config::ArchConfig arch_;
  config::RunConfig run_;
  ChainReduceResults found_;
};

void ChainReduceWorkload::run(const workload::RunOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (arch_.fabric.routing != fabric::routingMode<fabric::ColorRouting>())
    throw std::runtime_error("chain_reduce programs route by color; set arch.fabric.routing: color");
  chip::WaferChip chip(arch_, run_, chipParts(), start);
  programChainRoutes(config_, chip.routes());
  pe::PeArray& pes = chip.pes();

  const auto programFor = [&](std::uint32_t x, ChainRole role) {
    return pes.addProgram(chainReduceProgram(config_, role, config_.color + x % 2, config_.color + (x + 1) % 2));
  };
  // Middle PEs alternate colors, so two middle programs serve every row.
  const pe::ProgramId first = programFor(0, ChainRole::First), last = programFor(config_.pes - 1, ChainRole::Last);
  const pe::ProgramId middle[2] = {programFor(0, ChainRole::Middle), programFor(1, ChainRole::Middle)};
  for (std::uint32_t y = 0; y < config_.rows; ++y)
    for (std::uint32_t x = 0; x < config_.pes; ++x) {
      const fabric::RouterId pe = arch_.mesh.id(x, y);
      pes.load(pe, x == 0 ? first : x + 1 == config_.pes ? last : middle[x % 2]);
      if (run_.mode == config::DataMode::Functional) {
        pes.write(pe, "x", 0, chainInput(config_, y, x, false));
        pes.write(pe, "w", 0, chainInput(config_, y, x, true));
      }
    }

  const chip::SimulationTimes times = chip.simulate(options);
  cycles_ = chip.cycles();
  // The closed form is checked on every run (pe-model.md): where it holds, a
  // run that differs is a bug of the model or of the formula, not a result.
  if (const std::uint64_t expected = chainReduceCycles(config_, arch_);
      closedFormOutOfReach(config_, arch_).empty() && cycles_ != expected)
    throw std::runtime_error("chain_reduce took " + std::to_string(cycles_) + " cycles where its closed form, which "
                             "holds on this machine, says " + std::to_string(expected) +
                             " (docs/pe-model.md): the model and the formula disagree");
  if (options.waferMap) waferMap_ = results::waferMap(chip.fabric(), &pes, cycles_, arch_);
  if (times.timeline) timeline_ = workload::finishTimeline(*times.timeline, cycles_);

  ChainReduceResults& r = found_;
  r.totals = pes.totals();
  for (std::uint32_t y = 0; y < config_.rows; ++y)
    for (std::uint32_t x = 0; x < config_.pes; ++x) {
      const fabric::RouterId pe = arch_.mesh.id(x, y);
      r.busiestCycles = std::max(r.busiestCycles, pes.counters(pe).busyCycles);
      r.sramHighWater = std::max(r.sramHighWater, pes.sram(pe).highWater());
    }
  const std::uint64_t chainPes = std::uint64_t(config_.pes) * config_.rows;
  const double peakFlops = 2.0 * pe::LaneTable(arch_.pe.lanes).of(pe::Opcode::Fmac, config_.precision);
  r.busyFraction = double(r.totals.busyCycles) / double(chainPes) / double(cycles_);
  r.flopUtilisation = double(r.totals.flops) / (double(chainPes) * double(cycles_) * peakFlops);
  r.waveletsDelivered = chip.fabric().counters().delivered;
  check(pes, r);
  r.elaborationSeconds = times.elaborationSeconds;
  r.simulationSeconds = times.simulationSeconds;
  r.peBytes = pes.hostBytes();
  r.fabricBytes = chip.fabric().hostBytes();
  results::EnergyScope scope;
  scope.seconds = double(cycles_) * arch_.secondsPerCycle();
  scope.flops = double(r.totals.flops);
  cost_ = results::energyResults(chip.actionsUntil(cycles_), arch_, scope);
}

nlohmann::json ChainReduceWorkload::typeResults() const {
  const ChainReduceResults& f = found_;
  nlohmann::json r;
  r["type"] = "chain_reduce";
  r["dtype"] = pe::precisionName(config_.precision);
  r["pes"] = config_.pes;
  r["rows"] = config_.rows;
  r["length"] = config_.length;
  r["repeat"] = config_.repeat;
  r["expected_cycles"] = chainReduceCycles(config_, arch_);
  // true where the closed form holds (a run that differs fails), null where
  // it does not, and closed_form_out_of_reach says why.
  const std::string outOfReach = closedFormOutOfReach(config_, arch_);
  r["cycles_match_closed_form"] = outOfReach.empty() ? nlohmann::json(true) : nlohmann::json(nullptr);
  if (!outOfReach.empty()) r["closed_form_out_of_reach"] = outOfReach;
  r["pe_ops"] = f.totals.opsCompleted;
  r["pe_tasks"] = f.totals.tasksRun;
  r["flops"] = f.totals.flops;
  r["pe_busy_fraction"] = f.busyFraction;
  r["pe_busy_cycles_max"] = f.busiestCycles;
  r["flop_utilisation"] = f.flopUtilisation;
  r["sram_high_water_bytes"] = f.sramHighWater;
  r["sram_bytes"] = arch_.pe.sramBytes;
  r["wavelets_delivered"] = f.waveletsDelivered;
  r["checked"] = f.checked;
  if (f.checked) {
    r["mismatches"] = f.mismatches;
    r["max_abs_error_vs_exact"] = f.maxErrorVsExact;
  }
  r["pe_ops_per_second"] = peOpsPerSecond();
  r["host"] = {{"elaboration_seconds", f.elaborationSeconds},
               {"simulation_seconds", f.simulationSeconds},
               {"pe_bytes", f.peBytes},
               {"pe_bytes_per_pe", double(f.peBytes) / double(arch_.mesh.routers())},
               {"fabric_bytes", f.fabricBytes},
               {"pe_visits", f.totals.visits}};
  return r;
}

void ChainReduceWorkload::check(const pe::PeArray& pes, ChainReduceResults& r) const {
  r.checked = run_.mode == config::DataMode::Functional;
  if (!r.checked) return;
  std::uint64_t mismatches = 0;
  double maxError = 0;  // against the exact sum of the products, in double precision
  for (std::uint32_t y = 0; y < config_.rows; ++y) {
    const std::vector<float> got = pes.read(arch_.mesh.id(config_.pes - 1, y), "sum", 0, config_.length);
    const std::vector<float> want = chainReference(config_, y);
    std::vector<double> exact(config_.length, 0.0);
    for (std::uint32_t i = 0; i < config_.pes; ++i) {
      const std::vector<float> x = chainInput(config_, y, i, false), w = chainInput(config_, y, i, true);
      for (std::uint32_t k = 0; k < config_.length; ++k) exact[k] += double(config_.repeat) * x[k] * w[k];
    }
    for (std::uint32_t k = 0; k < config_.length; ++k) {
      mismatches += got[k] != want[k];
      maxError = std::max(maxError, std::abs(double(got[k]) - exact[k]));
    }
  }
  r.mismatches = mismatches;
  r.maxErrorVsExact = maxError;
}

std::string ChainReduceWorkload::typeSummary() const {
  const ChainReduceResults& f = found_;
  const std::uint64_t expected = chainReduceCycles(config_, arch_);
  std::ostringstream out;
  char line[512];
  std::snprintf(line, sizeof line, "chain_reduce %s on %ux%u: %u rows x %u PEs, %u elements, %u local ops per PE\n",
                pe::precisionName(config_.precision), arch_.mesh.width, arch_.mesh.height, config_.rows, config_.pes,
                config_.length, config_.repeat);
  out << line;
  const std::string outOfReach = closedFormOutOfReach(config_, arch_);
  std::snprintf(line, sizeof line, "  cycles    %llu simulated, %llu closed form (%s)\n", (unsigned long long)cycles_,
                (unsigned long long)expected, outOfReach.empty() ? "match" : "does not hold here, see below");
  out << line;
  if (!outOfReach.empty()) out << "            the closed form does not hold: " << outOfReach << "\n";
  std::snprintf(line, sizeof line, "  PEs       busy %.1f%%, FLOP utilisation %.1f%%, SRAM high water %llu of %llu bytes\n",
                100 * f.busyFraction, 100 * f.flopUtilisation, (unsigned long long)f.sramHighWater,
                (unsigned long long)arch_.pe.sramBytes);
  out << line;
  out << workload::checkSummaryLine(f.checked, f.mismatches, f.maxErrorVsExact, " vs exact");
  std::snprintf(line, sizeof line, "  host      %.2f M PE ops/s, %.0f bytes per PE\n", peOpsPerSecond() / 1e6,
                double(f.peBytes) / double(arch_.mesh.routers()));
  out << line;
  return out.str();
}

}  // namespace

std::unique_ptr<workload::Workload> makeChainReduceWorkload(config::ParamReader& params,
                                                            const config::ArchConfig& arch,
                                                            const config::RunConfig& run) {
  return std::make_unique<ChainReduceWorkload>(readChainReduceConfig(params, arch), arch, run);
}

}  // namespace wsesim::kernels
