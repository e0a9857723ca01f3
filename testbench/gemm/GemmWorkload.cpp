#include "testbench/gemm/GemmWorkload.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>

#include "firmware/gemm/registry/GemmAlgorithms.h"
#include "firmware/gemm/GemmMapping.h"
#include "firmware/gemm/Matrix.h"
#include "firmware/runtime/GemmPhases.h"
#include "firmware/runtime/SimulatedGemm.h"
#include "hw/chip/WaferChip.h"
#include "hw/common/ConfigError.h"
#include "hw/system/Cluster.h"
#include "hw/system/OptimizerModel.h"
#include "testbench/results/ClusterReport.h"
#include "testbench/results/EnergyReport.h"
#include "testbench/results/HostStats.h"
#include "testbench/results/WaferMap.h"
#include "testbench/gemm/GemmPassChips.h"
#include "testbench/workload/ClusterModel.h"
#include "testbench/workload/GemmChipParts.h"
#include "testbench/workload/GemmSampling.h"
#include "testbench/workload/Simulation.h"
#include "testbench/workload/SparseLayerWeights.h"

namespace wsesim::gemm {
namespace {

using firmware::Matrix;

using runtime::GemmPhases;
using runtime::GemmSampling;
using runtime::GemmTime;
using runtime::SimulatedGemm;
using runtime::passShape;
using runtime::withMeshColumns;
using runtime::withMeshRows;

struct GemmConfig {
  std::uint32_t m = 0, k = 0, n = 0;
  pe::Precision precision = pe::Precision::Fp32;
  bool fp32Sums = false;  // workload.reduction_dtype: fp32 (GemmShape::fp32Sums)
  std::string algorithm;
  GemmPass pass = GemmPass::Forward;
  std::uint32_t gridX = 0, gridY = 0;
  firmware::Buffering buffering = firmware::Buffering::Auto;  // the resident mappings' panels
  GemmSampling sampling;  // timing mode: how much of the GEMM to simulate (SimulatedGemm.h)
  bool weightsFromMemoryx = false;  // the layer's weights come from MemoryX through the cluster
  std::string optimizer;            // MemoryX's update of the layer (weight gradient, from MemoryX)
  bool integers = true;  // operand values: small integers (exact results) or uniform in [-1, 1)
  int valueRange = 3;
  std::uint64_t seed = 1;
  firmware::WeightSparsity sparsity;  // of the layer's W (K x N)
};

GemmConfig readConfig(config::ParamReader& p) {
  GemmConfig c;
  c.m = std::uint32_t(p.integer("workload.m", 1, 1 << 30));
  c.k = std::uint32_t(p.integer("workload.k", 1, 1 << 30));
  c.n = std::uint32_t(p.integer("workload.n", 1, 1 << 30));
  c.precision = p.choice("workload.dtype", pe::kPrecisionNames, pe::Precision::Fp32);
  const std::string dtype = pe::precisionName(c.precision);
  c.algorithm = p.choice("workload.algorithm", firmware::gemmAlgorithms(), std::string("weight_stream"));
  const firmware::GemmCapabilities& can = firmware::gemmAlgorithm(c.algorithm).capabilities;
  if (!can.supports(c.precision))
    throw config::ConfigError("workload.dtype: " + c.algorithm + " does not compute in " + dtype + " (" + dtype +
                              ": " + firmware::gemmAlgorithmsThat([&](const firmware::GemmCapabilities& a) {
                                return a.supports(c.precision);
                              }) + ")");
  c.fp32Sums = p.choice("workload.reduction_dtype", {"accumulator", "fp32"}, std::string("accumulator")) == "fp32";
  if (c.fp32Sums && !can.fp32Sums)
    throw config::ConfigError("workload.reduction_dtype: " + c.algorithm +
                              " passes its sums on in its accumulator's type only (fp32: " +
                              firmware::gemmAlgorithmsThat([](const firmware::GemmCapabilities& a) {
                                return a.fp32Sums;
                              }) + ")");
  c.pass = p.choice("workload.pass", kGemmPassNames, GemmPass::Forward);
  const std::string pass = gemmPassName(c.pass);
  if (!can.supports(c.pass))
    throw config::ConfigError("workload.pass: " + c.algorithm + " maps the " + can.passList() + " pass only, not " + pass +
                              " (" + pass + ": " + firmware::gemmAlgorithmsThat([&](const firmware::GemmCapabilities& a) {
                                return a.supports(c.pass);
                              }) + ")");
  c.gridX = std::uint32_t(p.integer("workload.grid_x", 0, 65535, 0, "0: as many columns as the mesh and k allow (weight_stream's lie along mesh rows)"));
  c.gridY = std::uint32_t(p.integer("workload.grid_y", 0, 65535, 0, "0: as many rows as the mesh and m allow (weight_stream's lie along mesh columns)"));
  c.buffering = p.choice("workload.buffering", firmware::kBufferingNames, firmware::Buffering::Auto);
  c.sampling = workload::readGemmSampling(p, GemmSampling{});
  c.weightsFromMemoryx = p.choice("workload.weights", {"edge", "memoryx"}, std::string("edge")) == "memoryx";
  if (c.weightsFromMemoryx) {
    if (!can.weightsFromMemoryx)
      throw config::ConfigError(
          "workload.weights: " + c.algorithm +
          (can.streamsWeights ? " cannot take its streamed weights from MemoryX" : " keeps both operands on the wafer") +
          ", weights: edge only (memoryx: " +
          firmware::gemmAlgorithmsThat([](const firmware::GemmCapabilities& a) { return a.weightsFromMemoryx; }) + ")");
    c.optimizer = p.choice("workload.optimizer", system::optimizerNames(), std::string("adam"));
  }
  c.integers = p.choice("workload.values", {"integers", "uniform"}, std::string("integers")) == "integers";
  c.valueRange = int(p.integer("workload.value_range", 1, 1000, 3));
  c.seed = std::uint64_t(p.integer("workload.seed", 0, std::int64_t(1) << 62, 1));
  c.sparsity.density = p.real("workload.weight_density", 1e-6, 1, 1.0,
                              "the fraction of W's weights that are non-zero; 1: dense");
  c.sparsity.pattern = p.choice("workload.weight_sparsity", firmware::kSparsityPatternNames,
                                firmware::SparsityPattern::Uniform);
  c.sparsity.seed = c.seed;
  c.sparsity.layerRows = c.k;
  if (!c.sparsity.dense()) {
    std::ostringstream density;
    density << "workload.weight_density=" << c.sparsity.density;
    if (!can.supportsSparse(c.pass))
      throw config::ConfigError(density.str() + ": " + c.algorithm + " streams no sparse weights in the " + pass +
                                " pass (sparse in " + pass + ": " +
                                firmware::gemmAlgorithmsThat([&](const firmware::GemmCapabilities& a) {
                                  return a.supportsSparse(c.pass);
                                }) + ")");
    if (c.pass != GemmPass::WeightGrad && pe::elementBytes(pe::operandType(pe::Opcode::Fmac, c.precision, 1)) != 2)
      throw config::ConfigError(density.str() + ": a sparse weight streams as 16 bits of value beside 16 of index, so "
                                "workload.dtype must be fp16 or mixed, not " + dtype);
  }
  return c;
}

// What a run found: results() and summary() are both written from it (and
// from the mapping and the configuration, which the workload keeps).
struct GemmResults {
  std::uint32_t rowsSimulated = 0, columnsSimulated = 0, phasesExtrapolated = 0, phasesInterpolated = 0;
  std::uint64_t cyclesSimulated = 0;
  std::vector<std::uint64_t> phaseStarts;
  double weightsPerCycle = 0;  // the I/O ring's, all channels
  double busyFraction = 0;     // of the simulated grid's PE-cycles
  std::uint64_t edgeStallCycles = 0, tasks = 0, sramHighWater = 0;
  unsigned colorsUsed = 0;
  fabric::FabricCounters fabric;
  struct System {  // weights from MemoryX through the cluster model
    double seconds = 0;
    std::uint64_t cycles = 0;
    nlohmann::json bounds, traffic, memoryx, perSystem;  // results/ClusterReport.h
  };
  std::optional<System> system;
  bool checked = false;  // functional mode: the product against the reference
  std::uint64_t mismatches = 0;
  double maxAbsError = 0, maxRelError = 0;
  double elaborationSeconds = 0, simulationSeconds = 0;
  std::uint64_t peBytes = 0, fabricBytes = 0;
  std::uint32_t chips = 1;           // simulated (GemmPassChips.h)
  unsigned fabricBands = 1;           // the fabric's bands (and their PEs'), run.threads of them
  std::uint64_t cyclesInBands = 0;    // the cycles in which the fabric's bands stepped at once
  std::uint64_t peCyclesInBands = 0;  // ... and those in which their PEs were visited at once
  std::uint64_t wavelets = 0;        // of B through the I/O ring, the whole GEMM's
  std::uint64_t nonzeroWeights = 0;  // of B (all of them when dense)
  double columnImbalance = 1;        // sparse, streamed in: the busiest stream's wavelets over the mean stream's
};

class GemmWorkload : public workload::Workload {
 public:
  // `plan` makes the GEMM's SimulatedGemm afresh (it keeps the rounds it ran).
  using Plan = std::function<std::unique_ptr<SimulatedGemm>()>;
  GemmWorkload(const GemmConfig& config, Plan plan, const config::ArchConfig& arch, const config::RunConfig& run)
      : config_(config),
        plan_(std::move(plan)),
        gemm_(plan_()),
        arch_(arch),
        run_(withMeshRows(withMeshColumns(run, gemm_->meshColumns(arch)), gemm_->meshRows())) {}

  void run(const workload::RunOptions& options) override;
  workload::HostMemoryPlan plannedHostMemory() const override;
  nlohmann::json typeResults() const override;
  std::string typeSummary() const override;

 private:
  Matrix operand(std::uint32_t rows, std::uint32_t cols, pe::ElementType type, std::uint64_t salt) const {
    return config_.integers ? firmware::integerMatrix(rows, cols, config_.valueRange, config_.seed * 7919 + salt)
                            : firmware::uniformMatrix(rows, cols, type, config_.seed * 7919 + salt);
  }
  void check(const Matrix& got, const Matrix& want, GemmResults& r) const;
  // How many chips the run's phases take at once, each on a chip of its
  // own (GemmPassChips.h): with more than one thread, where they can, as
  // many as there are threads and phases and the host's memory holds; 1:
  // one chip runs them in turn.
  unsigned phaseChipsAtOnce() const;
  // The chip as simulated, alone.
  workload::HostMemoryPlan oneChipHostMemory() const {
    return workload::sampledGemmHostMemory(arch_, simulatedArch(), run_, chipParts());
  }
  // The GEMM on one chip, in SystemC: the operands written and the product
  // checked (functional mode), MemoryX's cluster after it, the waveforms,
  // wafer map and timeline asked for.
  GemmChipFindings runOnOneChip(const workload::RunOptions& options, std::chrono::steady_clock::time_point start);
  // The phases on chips of their own. What fails there (a phase's error,
  // or run.max_cycles reached by the phases together) runs again on one
  // chip from a fresh plan, so that the error, its cycle and its report
  // are one chip's, whatever the threads.
  GemmChipFindings runPhasesApart(const workload::RunOptions& options, std::chrono::steady_clock::time_point start);
  // The GEMM as asked.
  const firmware::GemmMapping& full() const { return gemm_->full(); }
  // Bytes of the whole GEMM's streamed operand through the I/O ring.
  std::uint64_t streamedBytes() const { return found_.wavelets * firmware::streamedWaveletBytes(full().shape()); }
  double flops() const { return 2.0 * full().shape().m * full().shape().k * full().shape().n; }
  double achievedFlopsPerSecond() const {
    const double seconds = double(cycles_) * arch_.secondsPerCycle();
    return seconds > 0 ? flops() / seconds : 0.0;
  }
  double utilisation() const {
    return flops() / (double(cycles_) * double(arch_.mesh.routers()) * 2.0 *
                      arch_.pe.lanes.of(pe::Opcode::Fmac, full().shape().precision));
  }
  const firmware::WeightSparsity& sparsity() const { return full().shape().sparsity; }
  // What sparse weights move through the I/O ring: their non-zeros in
  // (value and index) or, for the weight gradient, the kept gradients out.
  struct SparseTraffic {
    std::uint64_t weights = 0, wavelets = 0, bytes = 0, denseBytes = 0;
  };
  SparseTraffic sparseTraffic() const {
    const bool gradients = config_.pass == GemmPass::WeightGrad;
    const pe::ElementType type = pe::operandType(pe::Opcode::Fmac, full().shape().precision, gradients ? -1 : 1);
    SparseTraffic t;
    t.weights = std::uint64_t(layerWeightRows()) * full().shape().n;
    t.wavelets = gradients ? found_.fabric.toEdge : found_.wavelets;
    t.bytes = t.wavelets * (gradients ? pe::elementBytes(type) : firmware::kSparseWaveletBytes);
    t.denseBytes = t.weights * pe::elementBytes(type);
    return t;
  }
  // Rows of the product's W-shaped operand: B's (forward, backward-data) or,
  // for the weight gradient, the output dW's.
  std::uint32_t layerWeightRows() const {
    return config_.pass == GemmPass::WeightGrad ? full().shape().m : full().shape().k;
  }
  // The architecture the rows (and columns) simulated run on.
  config::ArchConfig simulatedArch() const { return gemm_->simulatedArch(arch_, gemm_->meshColumns(arch_)); }
  // Its I/O ring's, for the mesh simulated.
  chip::ChipParts chipParts() const {
    chip::ChipParts parts = workload::gemmChipParts(simulatedArch(), full().shape(), run_.mode);
    parts.fabricThreads = run_.hostThreads();
    return parts;
  }

  GemmConfig config_;
  Plan plan_;
  std::unique_ptr<SimulatedGemm> gemm_;  // the GEMM as asked (full()), and what the run simulated of it
  config::ArchConfig arch_;
  config::RunConfig run_;  // its VCD region within the rows simulated
  GemmResults found_;
  energy::ActionCounts clusterActions_;  // weights from MemoryX: the cluster's
};

// The chip as simulated (a chip per phase run at once); in functional mode
// the operands, the result and the reference, each of them once more while
// being built or compared.
workload::HostMemoryPlan GemmWorkload::plannedHostMemory() const {
  workload::HostMemoryPlan plan = oneChipHostMemory();
  plan.bytes *= phaseChipsAtOnce();
  const firmware::GemmShape& s = full().shape();
  const std::uint64_t elements = std::uint64_t(s.m) * s.k + std::uint64_t(s.k) * s.n + 2 * std::uint64_t(s.m) * s.n;
  if (run_.mode == config::DataMode::Functional) plan.bytes += 2 * elements * sizeof(float);
  if (config_.weightsFromMemoryx) {
    plan.systemBytes = workload::ClusterModel::plannedHostBytes(arch_, false);
    plan.bytes += plan.systemBytes;
  }
  return plan;
}

void GemmWorkload::run(const workload::RunOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const firmware::GemmShape s = full().shape();
  GemmResults& r = found_;
  r.wavelets = gemm_->streamedWavelets(arch_.mesh);
  if (!s.sparsity.dense() && config_.pass != GemmPass::WeightGrad) {
    // Each stream feeds one grid column, whose PEs run an FMAC per wavelet.
    std::vector<std::uint64_t> perStream;
    for (std::uint32_t phase = 0; phase < full().phases(); ++phase) {
      const std::vector<wafer::EdgeStream> streams = full().streams(arch_.mesh, nullptr, phase);
      perStream.resize(streams.size(), 0);
      for (std::size_t i = 0; i < streams.size(); ++i) perStream[i] += streams[i].count;
    }
    if (!perStream.empty() && r.wavelets > 0)
      r.columnImbalance = double(*std::max_element(perStream.begin(), perStream.end())) * double(perStream.size()) /
                          double(r.wavelets);
  }
  r.nonzeroWeights = s.sparsity.keptCount(layerWeightRows(), s.n);

  // Waveforms, a wafer map and a timeline are one chip's records.
  const GemmChipFindings found =
      phaseChipsAtOnce() > 1 && options.vcdBaseName.empty() && !options.waferMap && !options.timeline
          ? runPhasesApart(options, start)
          : runOnOneChip(options, start);
  const firmware::GemmMapping& mapping = gemm_->rows();
  const GemmTime& time = found.time;
  cycles_ = time.cycles;
  r.sramHighWater = found.sramHighWater;
  r.rowsSimulated = mapping.gridY();
  r.columnsSimulated = mapping.gridX();
  r.phasesExtrapolated = time.phasesExtrapolated;
  r.phasesInterpolated = time.phasesInterpolated;
  r.cyclesSimulated = found.cycles;
  r.phaseStarts = found.phaseStarts;
  const wafer::IoRingEdge ingress = *chipParts().ingress;
  r.weightsPerCycle = ingress.waveletsPerChannelCycle() * ingress.channels();
  r.busyFraction = double(found.busyCycles) / (double(mapping.gridX()) * mapping.gridY() * found.cycles);
  r.edgeStallCycles = found.edgeStalls;
  r.tasks = found.tasks;
  r.colorsUsed = mapping.colorsUsed();
  r.fabric = found.fabric;
  r.peBytes = found.peBytes;
  r.fabricBytes = found.fabricBytes;
  r.chips = found.chips;
  r.fabricBands = found.fabricBands;
  r.cyclesInBands = found.cyclesInBands;
  r.peCyclesInBands = found.peCyclesInBands;

  energy::ActionCounts actions = gemm_->fullActions(found.actions);
  // The whole GEMM's weights in and, for the weight gradient, its outputs out.
  actions.ioRingBytes = double(streamedBytes()) +
                        (config_.pass == GemmPass::WeightGrad
                             ? double(s.m) * double(s.n) * pe::elementBytes(firmware::sumType(s))
                             : 0.0);
  results::EnergyScope scope;
  scope.seconds = r.system ? r.system->seconds : double(cycles_) * arch_.secondsPerCycle();
  scope.flops = flops();
  scope.samples = config_.m;  // a row of the layer's input: a token
  // The whole mesh over the whole run: every PE-cycle not active was idle.
  actions.peIdleCycles = double(arch_.mesh.routers()) * scope.seconds * arch_.clockHz - actions.peActiveCycles;
  if (r.system) {
    // Every system's wafer runs the GEMM; the system model's rings carry the I/O.
    actions.ioRingBytes = 0;
    scope.systems = arch_.cluster.systems;
    actions = actions * double(scope.systems) + clusterActions_;
  }
  cost_ = results::energyResults(actions, arch_, scope);
}

unsigned GemmWorkload::phaseChipsAtOnce() const {
  const bool apart = run_.hostThreads() > 1 && run_.mode == config::DataMode::Timing && !config_.weightsFromMemoryx &&
                     gemm_->rows().phases() > 1 && !gemm_->rows().outline().pacedPhases;
  if (!apart) return 1;
  // No more chips at once than the host's memory holds: a GEMM that fits on
  // one chip runs, on fewer cores if need be.
  const std::uint64_t chip = oneChipHostMemory().bytes, limit = results::hostMemoryLimit(run_);
  const std::uint64_t fit = limit == 0 || chip == 0 ? run_.hostThreads() : limit / chip;
  return unsigned(std::max<std::uint64_t>(1, std::min<std::uint64_t>({run_.hostThreads(), gemm_->rows().phases(), fit})));
}

GemmChipFindings GemmWorkload::runPhasesApart(const workload::RunOptions& options,
                                              std::chrono::steady_clock::time_point start) {
  const PassChipsRun how{arch_,         simulatedArch(), run_, chipParts(), run_.hostThreads(), phaseChipsAtOnce(),
                         options.progress};
  try {
    const auto simulating = std::chrono::steady_clock::now();
    GemmChipFindings found = simulatePassChips(*gemm_, how);
    if (!run_.maxCycles || found.cycles < *run_.maxCycles) {
      found_.elaborationSeconds = std::chrono::duration<double>(simulating - start).count();
      found_.simulationSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - simulating).count();
      return found;
    }
  } catch (const std::exception&) {
    // One chip says what failed, below.
  }
  gemm_ = plan_();
  return runOnOneChip(options, start);
}

GemmChipFindings GemmWorkload::runOnOneChip(const workload::RunOptions& options,
                                            std::chrono::steady_clock::time_point start) {
  // Its rows as simulated (in the rounds' every phase, on their grid).
  const firmware::GemmMapping& mapping = gemm_->rows();
  // The mesh simulated: as wide as the rows simulated need (they lie along
  // mesh columns), as tall as the columns simulated.
  const config::ArchConfig simulatedArch = this->simulatedArch();
  const fabric::MeshGeometry mesh = simulatedArch.mesh;
  const bool functional = run_.mode == config::DataMode::Functional;
  chip::WaferChip chip(simulatedArch, run_, chipParts(), start);
  wafer::Wafer& wafer = chip.wafer();
  pe::PeArray& pes = chip.pes();

  // A (M x K) and B (K x N) of C = A . B: forward X and W; backward-data dY
  // and W^T (W drawn as K x N of the layer, then transposed); weight-gradient
  // X^T and dY.
  const firmware::GemmShape& s = full().shape();
  const pe::ElementType inputType = pe::operandType(pe::Opcode::Fmac, s.precision, 1);
  Matrix a, b;
  if (functional) {
    a = operand(s.m, s.k, inputType, 1);
    b = config_.pass == GemmPass::BackwardData ? operand(s.n, s.k, inputType, 2).transposed()
                                               : operand(s.k, s.n, inputType, 2);
    // The zeros of sparse weights where they stream, in the reference product too.
    if (config_.pass != GemmPass::WeightGrad)
      for (std::uint32_t k = 0; k < b.rows; ++k)
        for (std::uint32_t n = 0; n < b.cols; ++n)
          if (!s.sparsity.kept(k, n)) b.at(k, n) = 0;
  }
  GemmPhases phases(*gemm_, pes, chip.routes(), chip.ingress(), chip.egress(), functional ? &b : nullptr,
                    arch_.fabric.routeSwitchCycles);
  const auto fullTime = [&] { return phases.fullTime(wafer.cycles(), arch_, mesh.width); };
  const pe::ElementType outputType = firmware::sumType(s);
  if (functional) mapping.writeOperands(pes, mesh, a, b);
  chip.setController(&phases);

  // Weights from MemoryX: once the wafer has timed the GEMM, the cluster
  // places it against the weights' way in (and the gradients' way out).
  std::unique_ptr<workload::ClusterModel> cluster;
  GemmResults& r = found_;
  if (config_.weightsFromMemoryx) {
    wafer.setStopWhenFinished(false);
    const std::uint64_t streamedBytes = this->streamedBytes();
    // Sparse, MemoryX keeps and streams the non-zeros (value and index)
    // and each pass's last wavelets, and updates only the non-zeros.
    // (The weight gradient streams no weights in: nothing beside them.)
    system::LayerWeights layer{"W", std::uint64_t(config_.k) * config_.n, pe::elementBytes(inputType)};
    if (!s.sparsity.dense())
      layer = workload::sparseLayerWeights(
          "W", r.nonzeroWeights,
          config_.pass != GemmPass::WeightGrad ? streamedBytes : r.nonzeroWeights * firmware::kSparseWaveletBytes);
    // The cluster calls this during the simulation, after this block has
    // ended: the layer is copied in, the rest lives as long as this function.
    cluster = std::make_unique<workload::ClusterModel>(
        arch_, system::ModelWeights{"gemm", {layer}}, system::optimizerModel(config_.optimizer),
        &wafer.finishedEvent(), [&, layer, streamedBytes](const system::MemoryX& memoryx, bool) {
          system::WaferTask t;
          t.name = full().describe();
          t.kind = gemmPassName(config_.pass);
          const GemmTime time = fullTime();
          t.duration = system::cyclesToTime(time.cycles, arch_.clockHz);
          if (config_.pass == GemmPass::WeightGrad) {
            t.gradients = true;
            t.gradientAddress = memoryx.layerAddress(0);
            t.gradientBytes = layer.parameters * pe::elementBytes(outputType);
            return system::ClusterWork{{}, {{t}}};
          }
          const unsigned repeats =
              system::streamRepeats(streamedBytes, layer.streamedBytes());
          t.streamed = true;
          t.streamBytes = layer.streamedBytes() * repeats;
          t.drain = system::cyclesToTime(time.cycles - time.inputEnd, arch_.clockHz);
          return system::ClusterWork{{system::StreamRequest(0, repeats)}, {{t}}};
        },
        false);
  }

  const chip::SimulationTimes times = chip.simulate(options);
  // Of the simulated rows (all of them unless representative).
  if (options.waferMap) waferMap_ = results::waferMap(wafer.fabric(), &pes, wafer.cycles(), simulatedArch);
  if (times.timeline) {
    const std::vector<std::uint64_t>& starts = phases.phaseStarts();
    for (std::size_t p = 0; p < starts.size(); ++p)
      times.timeline->addSpan("phase " + std::to_string(p), starts[p],
                              p + 1 < starts.size() ? starts[p + 1] : wafer.cycles());
    timeline_ = workload::finishTimeline(*times.timeline, wafer.cycles());
  }
  GemmChipFindings found = chipFindings(chip, mapping, phases.edgeStalls());
  found.phaseStarts = phases.phaseStarts();
  found.time = fullTime();
  if (cluster) {
    if (!options.vcdBaseName.empty()) systemWaveform_ = cluster->waveform();
    const system::Cluster& c = cluster->cluster();
    const double seconds = cluster->seconds();
    r.system = GemmResults::System{seconds, std::uint64_t(std::llround(seconds * arch_.clockHz)),
                                   results::streamBounds(c, arch_), results::clusterTraffic(c),
                                   results::memoryxFigures(c), results::perSystemTiming(c)};
    clusterActions_ = results::clusterActions(c);
  }
  r.checked = functional;
  if (functional) {
    Matrix want = firmware::referenceProduct(a, b);
    // The weight gradient of sparse weights: only the kept ones.
    if (config_.pass == GemmPass::WeightGrad)
      for (std::uint32_t k = 0; k < want.rows; ++k)
        for (std::uint32_t n = 0; n < want.cols; ++n)
          if (!s.sparsity.kept(k, n)) want.at(k, n) = 0;
    check(mapping.readOutput(pes, mesh, chip.egress()), want, r);
  }
  r.elaborationSeconds = times.elaborationSeconds;
  r.simulationSeconds = times.simulationSeconds;
  return found;
}

nlohmann::json GemmWorkload::typeResults() const {
  const GemmResults& f = found_;
  const firmware::GemmBounds bounds = full().bounds(arch_);
  nlohmann::json r;
  r["type"] = "gemm";
  r["algorithm"] = config_.algorithm;
  r["mapping"] = full().describe();
  r["pass"] = gemmPassName(config_.pass);
  r["dtype"] = pe::precisionName(full().shape().precision);
  r["reduction_dtype"] = pe::elementTypeName(firmware::sumType(full().shape()));
  r["m"] = config_.m;
  r["k"] = config_.k;
  r["n"] = config_.n;
  r["grid"] = {{"x", full().gridX()}, {"y", full().gridY()}};
  r["rows_simulated"] = f.rowsSimulated;
  r["columns_simulated"] = f.columnsSimulated;
  r["phases_extrapolated"] = f.phasesExtrapolated;
  r["phases_interpolated"] = f.phasesInterpolated;
  r["rounds_simulated"] = gemm_->roundsRun();
  r["cycles_simulated"] = f.cyclesSimulated;
  r["phases"] = full().phases();
  r["phase_start_cycles"] = f.phaseStarts;
  r["flops"] = flops();
  r["achieved_flops_per_second"] = achievedFlopsPerSecond();
  r["utilisation"] = utilisation();
  r["lower_bounds"] = {{"compute", bounds.compute},
                       {"bandwidth", bounds.bandwidth},
                       {"reduction", bounds.reduction},
                       {"latency", bounds.latency},
                       {"max", bounds.max()}};
  r["cycles_over_bound"] = double(cycles_) / double(bounds.max());
  r["weights_per_cycle"] = f.weightsPerCycle;
  r["breakdown"] = {{"pe_busy_fraction", f.busyFraction}, {"edge_stall_cycles", f.edgeStallCycles}, {"tasks", f.tasks}};
  r["sram_high_water_bytes"] = f.sramHighWater;
  if (const std::optional<firmware::Buffering> b = full().buffering()) r["buffering"] = firmware::bufferingName(*b);
  r["colors_used"] = f.colorsUsed;
  if (!sparsity().dense()) {
    const SparseTraffic t = sparseTraffic();
    r["sparsity"] = {{"density", sparsity().density},
                     {"pattern", firmware::sparsityPatternName(sparsity().pattern)},
                     {"weights", t.weights},
                     {"nonzero_weights", f.nonzeroWeights},
                     {"wavelets_streamed", t.wavelets},
                     {"wavelets_saved", std::int64_t(t.weights) - std::int64_t(t.wavelets)},
                     {"bytes_streamed", t.bytes},
                     {"dense_bytes", t.denseBytes},
                     {"flops_done", config_.pass == GemmPass::WeightGrad ? flops() : 2.0 * full().shape().m * double(f.nonzeroWeights)},
                     {"column_imbalance", f.columnImbalance},
                     {"bound", bounds.bound()}};
  }
  r["wavelets"] = {{"weights_in", f.fabric.fromEdge}, {"from_pes", f.fabric.injected},
                   {"delivered", f.fabric.delivered}, {"hops", f.fabric.hops}, {"out_of_wafer", f.fabric.toEdge}};
  if (f.system)
    r["system"] = {{"seconds", f.system->seconds}, {"cycles", f.system->cycles}, {"bounds", f.system->bounds},
                   {"traffic", f.system->traffic},  {"memoryx", f.system->memoryx}, {"per_system", f.system->perSystem}};
  r["checked"] = f.checked;
  if (f.checked) {
    r["mismatches"] = f.mismatches;
    r["max_abs_error"] = f.maxAbsError;
    r["max_rel_error"] = f.maxRelError;
  }
  r["host"] = {{"elaboration_seconds", f.elaborationSeconds},
               {"simulation_seconds", f.simulationSeconds},
               {"pe_bytes", f.peBytes},
               {"fabric_bytes", f.fabricBytes},
               {"chips", f.chips},
               {"fabric_bands", f.fabricBands},
               {"cycles_in_bands", f.cyclesInBands},
               {"pe_cycles_in_bands", f.peCyclesInBands}};
  return r;
}

void GemmWorkload::check(const Matrix& got, const Matrix& want, GemmResults& r) const {
  std::uint64_t mismatches = 0;
  double maxAbs = 0, maxRel = 0;
  for (std::size_t i = 0; i < want.values.size(); ++i) {
    const double diff = std::abs(double(got.values[i]) - want.values[i]);
    mismatches += diff != 0;
    maxAbs = std::max(maxAbs, diff);
    maxRel = std::max(maxRel, diff / std::max(1e-30, std::abs(double(want.values[i]))));
  }
  r.mismatches = mismatches;
  r.maxAbsError = maxAbs;
  r.maxRelError = maxRel;
}

std::string GemmWorkload::typeSummary() const {
  const GemmResults& f = found_;
  const firmware::GemmBounds b = full().bounds(arch_);
  std::ostringstream out;
  char line[512];
  const std::optional<firmware::Buffering> buffered = full().buffering();
  const std::string buffering = buffered ? ", " + std::string(firmware::bufferingName(*buffered)) + "-buffered" : "";
  std::snprintf(line, sizeof line, "gemm %s %s %ux%ux%u %s on %ux%u (grid %ux%u%s)\n", config_.algorithm.c_str(),
                gemmPassName(config_.pass), config_.m, config_.k, config_.n, firmware::gemmPrecisionName(full().shape()).c_str(),
                arch_.mesh.width, arch_.mesh.height, full().gridX(), full().gridY(), buffering.c_str());
  out << line;
  std::snprintf(line, sizeof line,
                "  cycles    %llu (lower bound %llu: compute %llu, bandwidth %llu, reduction %llu, latency %llu)\n",
                (unsigned long long)cycles_, (unsigned long long)b.max(), (unsigned long long)b.compute,
                (unsigned long long)b.bandwidth, (unsigned long long)b.reduction, (unsigned long long)b.latency);
  out << line;
  std::snprintf(line, sizeof line, "  speed     %.3g FLOP/s, %.2f%% of the mesh's peak, PEs busy %.1f%%\n",
                achievedFlopsPerSecond(), 100 * utilisation(), 100 * f.busyFraction);
  out << line;
  if (!sparsity().dense()) {
    const SparseTraffic t = sparseTraffic();
    const bool gradients = config_.pass == GemmPass::WeightGrad;
    std::snprintf(line, sizeof line,
                  "  sparsity  density %g (%s): %llu of %llu weights non-zero, %llu %s (%llu B; dense: %llu B); "
                  "busiest column x%.3g the mean; bound: %s\n",
                  sparsity().density, firmware::sparsityPatternName(sparsity().pattern),
                  (unsigned long long)f.nonzeroWeights, (unsigned long long)t.weights,
                  (unsigned long long)t.wavelets,
                  gradients ? "gradients out" : "wavelets streamed (value and index)", (unsigned long long)t.bytes,
                  (unsigned long long)t.denseBytes, f.columnImbalance, b.bound());
    out << line;
  }
  if (f.system) {
    std::string bound = "gradients out";
    for (const auto& [kind, byBound] : f.system->bounds.items())
      for (const auto& [name, v] : byBound.items()) bound = name;
    std::snprintf(line, sizeof line, "  system    %.6g s = %llu cycles, weights from MemoryX via SwarmX to %u system%s (bound: %s)\n",
                  f.system->seconds, (unsigned long long)f.system->cycles, arch_.cluster.systems,
                  arch_.cluster.systems == 1 ? "" : "s", bound.c_str());
    out << line;
  }
  out << workload::checkSummaryLine(f.checked, f.mismatches, f.maxAbsError, "");
  return out.str();
}

}  // namespace

std::unique_ptr<workload::Workload> makeGemmWorkload(config::ParamReader& params, const config::ArchConfig& arch,
                                                     const config::RunConfig& run) {
  const GemmConfig c = readConfig(params);
  const bool sampled = firmware::gemmAlgorithm(c.algorithm).capabilities.sampledTiming;
  if (c.sampling.sampled() && (!sampled || run.mode != config::DataMode::Timing))
    throw config::ConfigError(std::string(c.sampling.representativeRows     ? "workload.rows: representative"
                                          : c.sampling.representativePhases ? "workload.phases: representative"
                                                                            : "workload.steady_state_outputs") +
                              " needs run.mode: timing and an algorithm that samples its timing (" +
                              firmware::gemmAlgorithmsThat([](const firmware::GemmCapabilities& a) {
                                return a.sampledTiming;
                              }) + "), but " +
                              (sampled ? "run.mode is functional" : c.algorithm + " simulates every row and output") +
                              " (what is not simulated holds no results)");
  try {
    firmware::GemmShape shape = passShape(c.m, c.k, c.n, c.precision, c.pass, c.sparsity);
    shape.fp32Sums = c.fp32Sums;
    return std::make_unique<GemmWorkload>(
        c,
        [c, shape, arch] {
          return std::make_unique<SimulatedGemm>(c.algorithm, shape, arch, c.gridX, c.gridY, c.buffering, c.sampling);
        },
        arch, run);
  } catch (const firmware::PlanError& e) {
    throw config::ConfigError(std::string("workload.m/k/n/grid_x/grid_y/buffering: ") + e.what());
  }
}

}  // namespace wsesim::gemm
