#include "testbench/train/TrainWorkload.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <tuple>

#include "firmware/gemm/GemmShape.h"
#include "hw/config/ConfigError.h"
#include "hw/system/OptimizerModel.h"
#include "hw/trace/PeVcdTracer.h"
#include "hw/wafer/EdgeCollector.h"
#include "hw/wafer/Wafer.h"
#include "models/TrainingStep.h"
#include "models/TransformerModel.h"
#include "testbench/gemm/GemmSequence.h"
#include "testbench/gemm/SimulatedGemm.h"
#include "testbench/results/WaferMap.h"
#include "testbench/train/WaferOpCost.h"
#include "testbench/workload/Simulation.h"

namespace wsesim::train {
namespace {

struct TrainConfig {
  models::TransformerModel model;
  std::uint32_t batch = 0, seq = 0, steps = 1;
  std::string optimizer;
  bool everyLayer = false;          // simulate every layer's GEMMs, not each distinct GEMM once
  bool representativeRows = true;  // forward and backward-data GEMMs: one row per row size
  pe::Precision precision = pe::Precision::Mixed;
};

firmware::GemmPass firmwarePass(models::GemmPass p) {
  switch (p) {
    case models::GemmPass::Forward: return firmware::GemmPass::Forward;
    case models::GemmPass::BackwardData: return firmware::GemmPass::BackwardData;
    case models::GemmPass::WeightGrad: break;
  }
  return firmware::GemmPass::WeightGrad;
}

// A GEMM of the step as simulated: the mapping (or its representative
// rows) and the cycles the whole GEMM takes.
struct StepGemm {
  std::string name;  // of its first use in the step
  models::GemmPass pass;
  gemm::SimulatedGemm plan;
  std::uint64_t cycles = 0;
  std::uint64_t occurrences = 0;  // in the step
};

class TrainWorkload : public workload::Workload {
 public:
  TrainWorkload(TrainConfig config, const config::ArchConfig& arch, const config::RunConfig& run);

  void run(const workload::RunOptions& options) override;
  std::uint64_t cycles() const override { return stepCycles_ * config_.steps; }
  nlohmann::json results() const override { return results_; }
  std::string summary() const override;

 private:
  TrainConfig config_;
  config::ArchConfig arch_;
  config::RunConfig run_;
  models::TrainingStep step_;
  std::vector<StepGemm> gemms_;           // simulated, in order of first use
  std::vector<std::size_t> gemmOfStep_;  // per GEMM of the step: its entry in gemms_
  std::uint64_t stepCycles_ = 0;
  nlohmann::json results_;
};

TrainWorkload::TrainWorkload(TrainConfig config, const config::ArchConfig& arch, const config::RunConfig& run)
    : config_(std::move(config)), arch_(arch), run_(run) {
  step_ = models::lowerTrainingStep(config_.model, config_.batch, config_.seq);
  std::map<std::tuple<models::GemmPass, std::uint64_t, std::uint64_t, std::uint64_t>, std::size_t> distinct;
  for (const models::StreamedGemm& g : step_.gemms) {
    const auto key = std::make_tuple(g.pass, g.m, g.k, g.n);
    auto it = distinct.find(key);
    if (it == distinct.end() || config_.everyLayer) {
      const firmware::GemmPass pass = firmwarePass(g.pass);
      const firmware::GemmShape shape =
          gemm::passShape(std::uint32_t(g.m), std::uint32_t(g.k), std::uint32_t(g.n), config_.precision, pass);
      // The weight-gradient pass's rows differ (each adds the sums of the rows above), so all are simulated.
      const bool representative = config_.representativeRows && pass != firmware::GemmPass::WeightGrad;
      try {
        gemms_.push_back(StepGemm{g.name, g.pass, gemm::planGemm("weight_stream", shape, arch_, 0, 0, representative)});
      } catch (const firmware::PlanError& e) {
        throw config::ConfigError("workload.model/batch/seq: " + g.name + " " + models::passName(g.pass) + ": " +
                                  e.what());
      }
      it = distinct.insert_or_assign(key, gemms_.size() - 1).first;
    }
    ++gemms_[it->second].occurrences;
    gemmOfStep_.push_back(it->second);
  }
}

void TrainWorkload::run(const workload::RunOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const fabric::MeshGeometry mesh = arch_.mesh;
  fabric::ColorRouteTable routes(mesh, arch_.fabric.colors);
  wafer::Wafer wafer("wafer", arch_, run_, &routes);
  pe::PeArray pes(arch_, run_.mode, wafer.fabric(), &routes);
  std::vector<const firmware::GemmMapping*> sequence;
  for (const StepGemm& g : gemms_) sequence.push_back(&g.plan.simulated());
  const pe::ElementType inputType = pe::operandType(pe::Opcode::Fmac, config_.precision, 1);
  const pe::ElementType outputType = pe::operandType(pe::Opcode::Fmac, config_.precision, -1);
  const double perCycle = arch_.io.bandwidthBytesPerS / arch_.clockHz;
  gemm::GemmSequence driver(sequence, pes, routes, perCycle / pe::elementBytes(inputType));
  wafer::EdgeCollector egress(perCycle / pe::elementBytes(outputType), false);
  wafer.fabric().setEdgeSink(&egress);
  wafer.setDriver(&driver);
  wafer.fabric().setSink(&pes);

  std::unique_ptr<trace::PeVcdTracer> peTracer;
  workload::SimulationTimes times = workload::simulate(wafer, options, start, [&](sc_core::sc_trace_file* f) {
    peTracer = std::make_unique<trace::PeVcdTracer>(f, "wafer", arch_, run_.vcdRegion, pes);
    wafer.addTraceObserver(peTracer.get());
  }, &pes);
  pes.checkQuiescent();

  const std::vector<std::uint64_t>& starts = driver.starts();
  for (std::size_t i = 0; i < gemms_.size(); ++i) {
    const std::uint64_t end = i + 1 < starts.size() ? starts[i + 1] : wafer.cycles();
    gemms_[i].cycles = gemms_[i].plan.fullCycles(end - starts[i], arch_);
    if (times.timeline) times.timeline->addSpan(gemms_[i].plan.full->describe(), starts[i], end);
  }
  if (options.waferMap) waferMap_ = results::waferMap(wafer.fabric(), &pes, wafer.cycles());
  if (times.timeline) timeline_ = workload::finishTimeline(*times.timeline, wafer.cycles());

  // The step: its GEMMs, its ops, then the optimizer update in MemoryX (the
  // next step's weights cannot stream before it: WSE-FACTS, "MemoryX").
  std::map<std::string, std::uint64_t> byPass, byOpKind;
  std::uint64_t gemmCycles = 0, opCycles = 0;
  nlohmann::json gemmRows = nlohmann::json::array();
  for (std::size_t i = 0; i < step_.gemms.size(); ++i) {
    const std::uint64_t c = gemms_[gemmOfStep_[i]].cycles;
    gemmCycles += c;
    byPass[models::passName(step_.gemms[i].pass)] += c;
  }
  for (const models::WaferOp& op : step_.ops) {
    const std::uint64_t c = waferOpCycles(op, arch_, config_.precision);
    opCycles += c;
    byOpKind[std::string(models::opKindName(op.kind)) + (op.backward ? "_backward" : "")] += c;
  }
  const system::OptimizerModel& optimizer = system::optimizerModel(config_.optimizer);
  const double parameters = double(config_.model.parameters());
  // As MemoryX prices an update (hw/system/MemoryX.cpp): its storage traffic
  // (one access latency, then the bytes at the storage bandwidth) and its
  // arithmetic overlap, the slower bounds it.
  const double optimizerSeconds =
      std::max(arch_.memoryx.latencyS + parameters * optimizer.touchedBytesPerParameter / arch_.memoryx.bandwidthBytesPerS,
               parameters * optimizer.flopsPerParameter / arch_.memoryx.optimizerFlopsPerS);
  const std::uint64_t optimizerCycles = std::uint64_t(std::ceil(optimizerSeconds * arch_.clockHz));
  stepCycles_ = gemmCycles + opCycles + optimizerCycles;

  for (const StepGemm& g : gemms_) {
    const firmware::GemmBounds b = g.plan.full->bounds(arch_);
    const char* bound = b.max() == b.compute ? "compute" : b.max() == b.bandwidth ? "bandwidth"
                        : b.max() == b.reduction ? "reduction" : "latency";
    gemmRows.push_back({{"name", g.name},
                        {"pass", models::passName(g.pass)},
                        {"mapping", g.plan.full->describe()},
                        {"cycles", g.cycles},
                        {"occurrences", g.occurrences},
                        {"lower_bound", b.max()},
                        {"bound", bound},
                        {"rows_simulated", g.plan.simulated().gridY()}});
  }
  const double stepSeconds = double(stepCycles_) * arch_.secondsPerCycle();
  const double peak = double(mesh.routers()) * 2.0 * arch_.pe.lanes.of(pe::Opcode::Fmac, config_.precision) * arch_.clockHz;
  nlohmann::json& r = results_;
  r["type"] = "train";
  r["model"] = config_.model.name;
  r["parameters"] = config_.model.parameters();
  r["batch"] = config_.batch;
  r["seq"] = config_.seq;
  r["tokens_per_step"] = step_.tokens;
  r["steps"] = config_.steps;
  r["dtype"] = pe::precisionName(config_.precision);
  r["optimizer"] = config_.optimizer;
  r["step_cycles"] = stepCycles_;
  r["step_seconds"] = stepSeconds;
  r["samples_per_second"] = config_.batch / stepSeconds;
  r["tokens_per_second"] = double(step_.tokens) / stepSeconds;
  r["model_flops_per_step"] = step_.modelFlops;
  r["achieved_flops_per_second"] = step_.modelFlops / stepSeconds;
  r["utilisation"] = step_.modelFlops / (stepSeconds * peak);
  r["breakdown_cycles"] = {{"gemms", gemmCycles}, {"ops", opCycles}, {"optimizer", optimizerCycles},
                           {"gemms_by_pass", byPass}, {"ops_by_kind", byOpKind}};
  r["layers_simulated"] = config_.everyLayer ? "all" : "each distinct GEMM once, its timing reused for identical layers";
  r["gemms"] = gemmRows;
  r["gemm_count"] = step_.gemms.size();
  r["op_count"] = step_.ops.size();
  // Of the GEMMs simulated (each distinct one once, unless layers: all).
  r["simulated_wavelets"] = {{"weights_in", wafer.fabric().counters().fromEdge}, {"gradients_out", egress.received()}};
  r["host"] = {{"elaboration_seconds", times.elaborationSeconds}, {"simulation_seconds", times.simulationSeconds},
               {"simulated_gemm_cycles", wafer.cycles()}};
}

std::string TrainWorkload::summary() const {
  const nlohmann::json& r = results_;
  std::ostringstream out;
  char line[256];
  std::snprintf(line, sizeof line, "train %s (%s parameters) batch %u x seq %u on %ux%u, %s, %s\n",
                config_.model.name.c_str(), std::to_string(config_.model.parameters()).c_str(), config_.batch,
                config_.seq, arch_.mesh.width, arch_.mesh.height, r["dtype"].get<std::string>().c_str(),
                config_.optimizer.c_str());
  out << line;
  std::snprintf(line, sizeof line, "  step      %llu cycles = %.6g s: %.4g samples/s, %.4g tokens/s, %.3g FLOP/s, %.1f%% of peak\n",
                (unsigned long long)stepCycles_, r["step_seconds"].get<double>(), r["samples_per_second"].get<double>(),
                r["tokens_per_second"].get<double>(), r["achieved_flops_per_second"].get<double>(),
                100 * r["utilisation"].get<double>());
  out << line;
  const nlohmann::json& b = r["breakdown_cycles"];
  out << "  where     cycles        share\n";
  const auto row = [&](const std::string& name, std::uint64_t cycles) {
    std::snprintf(line, sizeof line, "  %-22s %12llu %6.1f%%\n", name.c_str(), (unsigned long long)cycles,
                  100.0 * double(cycles) / double(stepCycles_));
    out << line;
  };
  for (const auto& [pass, cycles] : b["gemms_by_pass"].items()) row("GEMMs " + pass, cycles.get<std::uint64_t>());
  row("ops (cost model)", b["ops"].get<std::uint64_t>());
  row("optimizer (MemoryX)", b["optimizer"].get<std::uint64_t>());
  std::snprintf(line, sizeof line, "  simulated %zu GEMMs for the step's %zu (%s)\n", gemms_.size(),
                step_.gemms.size(), config_.everyLayer ? "every layer" : "identical layers reuse their timing");
  out << line;
  return out.str();
}

}  // namespace

std::unique_ptr<workload::Workload> makeTrainWorkload(config::ParamReader& p, const config::ArchConfig& arch,
                                                      const config::RunConfig& run) {
  TrainConfig c;
  const std::string model = p.text("workload.model");
  try {
    c.model = models::loadModel(model);
  } catch (const models::ModelError& e) {
    throw config::ConfigError(std::string("workload.model: ") + e.what());
  }
  c.batch = std::uint32_t(p.integer("workload.batch", 1, 1 << 20));
  c.seq = std::uint32_t(p.integer("workload.seq", 1, c.model.learnedPositions ? c.model.seq : 1 << 20, c.model.seq,
                                  c.model.learnedPositions ? "at most the model's learned positions" : ""));
  if (std::uint64_t(c.batch) * c.seq > (1u << 30)) throw config::ConfigError("workload.batch x workload.seq: at most 2^30 tokens");
  c.steps = std::uint32_t(p.integer("workload.steps", 1, 1 << 20, 1));
  c.optimizer = p.choice("workload.optimizer", system::optimizerNames(), std::string("adam"));
  c.everyLayer = p.choice("workload.layers", {"representative", "all"}, std::string("representative")) == "all";
  c.representativeRows = p.choice("workload.rows", {"representative", "all"}, std::string("representative")) ==
                         "representative";
  const std::string dtype = p.choice("workload.dtype", {"fp16", "mixed", "fp32"}, std::string("mixed"));
  c.precision = dtype == "fp16" ? pe::Precision::Fp16 : dtype == "mixed" ? pe::Precision::Mixed : pe::Precision::Fp32;
  if (run.mode != config::DataMode::Timing)
    throw config::ConfigError("run.mode: the train workload runs in timing mode (its operands carry no data)");
  if (arch.cluster.systems != 1)
    throw config::ConfigError("arch.cluster.systems: the train workload runs one CS system; clusters (SwarmX, "
                              "MemoryX shared by N systems) are not wired to it yet");
  return std::make_unique<TrainWorkload>(std::move(c), arch, run);
}

}  // namespace wsesim::train
