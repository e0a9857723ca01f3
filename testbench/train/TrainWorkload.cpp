#include "testbench/train/TrainWorkload.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "firmware/gemm/registry/GemmAlgorithms.h"
#include "firmware/gemm/GemmShape.h"
#include "firmware/runtime/GemmSequence.h"
#include "firmware/runtime/SimulatedGemm.h"
#include "hw/chip/WaferChip.h"
#include "hw/sim/ProgressShare.h"
#include "hw/common/ConfigError.h"
#include "hw/pe/SramAllocator.h"
#include "hw/system/Cluster.h"
#include "hw/system/OptimizerModel.h"
#include "models/TrainingStep.h"
#include "models/TransformerModel.h"
#include "testbench/results/ClusterReport.h"
#include "testbench/results/EnergyReport.h"
#include "testbench/results/WaferMap.h"
#include "testbench/train/GemmGroups.h"
#include "testbench/train/MicroBatches.h"
#include "testbench/train/StepOnCluster.h"
#include "testbench/train/WaferOpCost.h"
#include "testbench/train/WaferTimingCache.h"
#include "testbench/workload/ClusterModel.h"
#include "testbench/workload/GemmChipParts.h"
#include "testbench/workload/GemmSampling.h"
#include "testbench/workload/SparseLayerWeights.h"
#include "testbench/workload/Simulation.h"

namespace wsesim::train {
namespace {

// How a micro-batch keeps less than every activation its backward pass
// needs, when they do not all fit (workload.activation_offload,
// workload.activation_recompute): its first layers' go to MemoryX and come
// back, or those layers run part or all of their forward pass again before
// their backward pass (models::Recomputation).
enum class ActivationRelief : std::uint8_t { None, Offload, Recompute };

struct TrainConfig {
  models::TransformerModel model;
  std::uint32_t batch = 0, seq = 0, steps = 1;
  std::optional<std::uint32_t> microBatch;  // workload.micro_batch; nullopt: auto
  ActivationRelief relief = ActivationRelief::None;
  bool recomputeAuto = false;  // workload.activation_recompute: auto (relief None or Recompute, by estimate)
  std::string optimizer;
  bool everyLayer = false;          // simulate every layer's GEMMs, not each distinct GEMM once
  bool everyWafer = false;          // simulate every system's wafer, not one for all
  std::string waferTimingCache;     // run.wafer_timing_cache: a directory, or empty
  std::string waferTimingKey;       // what the wafer's timing depends on (WaferTimingCache)
  // How much of each GEMM the wafer model simulates (SimulatedGemm.h). A
  // phase's line holds within 0.5%: GPT-J's LM-head weight gradient at its
  // public batch then keeps the same cycles within 0.005% in a third of the
  // host time (its checks miss their lines by a few tenths of a percent,
  // so at 0.2% each split its line; gemm-mappings.md, "Representative
  // phases").
  runtime::GemmSampling sampling{true, true, 8, 0.002, 0.005, true};
  pe::Precision precision = pe::Precision::Mixed;
  bool fp16PeSums = true;  // workload.precision_opt_level 1 (StepWeights)
  firmware::WeightSparsity sparsity;  // of the transformer blocks' weight matrices (StepWeights)
};

// How the step's GEMMs stream their weights: in the step's precision, the
// transformer blocks' matrices with the sparsity asked (each its own rows
// for a row_imbalanced pattern), the LM head dense (docs/training.md,
// "Sparse weights": a modelling choice).
//
// A mixed step at precision_opt_level 1 sums within a PE in fp16 and
// across PEs in fp32, in every GEMM: the vendor's default level uses "a
// combination of float32 and bfloat16/float16 reductions in matrix
// multiplication"; which sums is not public, and the model's choice keeps
// the long ones, a row's or a column's hundreds of partial sums, in fp32
// (docs/training.md, "Precision").
struct StepWeights {
  pe::Precision precision = pe::Precision::Mixed;
  bool fp16PeSums = false;
  firmware::WeightSparsity blocks;
  bool levelOne() const { return precision == pe::Precision::Mixed && fp16PeSums; }
  // The GEMMs' FMACs: fp16 at level 1.
  pe::Precision gemmPrecision() const { return levelOne() ? pe::Precision::Fp16 : precision; }
  firmware::GemmShape shapeOf(const models::StreamedGemm& g) const {
    firmware::WeightSparsity sparsity;
    if (g.layer != models::kHeadLayer) {
      sparsity = blocks;
      sparsity.layerRows = std::uint32_t(g.k);
    }
    firmware::GemmShape shape = runtime::passShape(std::uint32_t(g.m), std::uint32_t(g.k), std::uint32_t(g.n),
                                                   gemmPrecision(), g.pass, sparsity);
    shape.fp32Sums = levelOne();
    return shape;
  }
};

// The algorithm a training step maps its layers with: the first in the
// registry that streams weights from MemoryX, maps every pass in the step's
// precision (sparse weights too, if the blocks' are) and, if the step
// samples its GEMMs (representative rows or phases, steady-state outputs),
// samples its timing.
std::string stepAlgorithm(const StepWeights& weights, const runtime::GemmSampling& sampling) {
  const bool sampled = sampling.sampled(), sparse = !weights.blocks.dense();
  const GemmPass passes[] = {GemmPass::Forward, GemmPass::BackwardData, GemmPass::WeightGrad};
  for (const firmware::GemmAlgorithm& a : firmware::gemmAlgorithmRegistry()) {
    const firmware::GemmCapabilities& can = a.capabilities;
    if (can.weightsFromMemoryx && (can.sampledTiming || !sampled) &&
        std::all_of(std::begin(passes), std::end(passes), [&](GemmPass p) {
          return can.supports(weights.gemmPrecision()) && (!weights.levelOne() || can.fp32Sums) && can.supports(p) &&
                 (!sparse || can.supportsSparse(p));
        }))
      return a.name;
  }
  throw config::ConfigError(std::string(sparse ? "workload.weight_density" : "workload.dtype") +
                            ": no GEMM algorithm maps a training step in " + pe::precisionName(weights.precision) +
                            " (every pass, weights from MemoryX" + (sparse ? ", sparse" : "") +
                            (sampled ? ", sampled timing" : "") + ": docs/adding-a-gemm-algorithm.md)");
}

// The step of `micro.count` micro-batches, one after another: each a
// whole forward and backward pass (weights streamed in again for each).
models::TrainingStep microBatchedStep(const models::TransformerModel& model, const MicroBatches& micro,
                                      std::uint32_t seq, std::uint32_t lmHeadChunks,
                                      models::Recomputation recompute) {
  const models::TrainingStep full = models::lowerTrainingStep(model, micro.size, seq, lmHeadChunks, recompute);
  const models::TrainingStep last =
      micro.last == micro.size ? full
                               : models::lowerTrainingStep(model, micro.last, seq, lmHeadChunks, recompute);
  models::TrainingStep step;
  for (std::uint32_t i = 0; i < micro.count; ++i) {
    const models::TrainingStep& one = i + 1 < micro.count ? full : last;
    const std::size_t gemms = step.gemms.size(), ops = step.ops.size();
    step.gemms.insert(step.gemms.end(), one.gemms.begin(), one.gemms.end());
    step.ops.insert(step.ops.end(), one.ops.begin(), one.ops.end());
    for (const models::StepItem& item : one.order)
      step.order.push_back({item.isGemm, item.index + (item.isGemm ? gemms : ops)});
    step.tokens += one.tokens;
    step.modelFlops += one.modelFlops;
  }
  return step;
}

// Why a micro-batch does not fit each PE's SRAM (MicroBatches.h), and
// whether it is the LM head's GEMMs that do not.
struct Misfit {
  std::string why;
  bool lmHead = false;
};

// The mapping a GEMM of the step gets on `arch` (its SRAM what is left to it).
std::unique_ptr<firmware::GemmMapping> stepGemmMapping(const std::string& algorithm, const models::StreamedGemm& g,
                                                       const StepWeights& weights, const config::ArchConfig& arch) {
  return firmware::makeGemmMapping(algorithm, weights.shapeOf(g), arch, 0, 0, firmware::Buffering::Auto);
}

// The activations a micro-batch keeps for its backward pass, per PE: the
// input of every forward GEMM, where that GEMM's layout put it (its fullest
// PE's block), by layer. The GEMMs of a layer reading one activation share
// its copy (the LM head's chunks, SwiGLU's gate and up, a parallel block's
// QKV and FFN): all place X by its m and k alone, so a shared input lies
// where each of them reads it. A layer's input is its first GEMM's (the
// first norm's output, of the shape of the residual stream into the
// layer); its FFN's activation is the FFN down matrix's input.
struct KeptActivations {
  std::map<std::uint32_t, std::uint64_t> bytesByLayer;  // ascending: the transformer layers, then the head's
  std::map<std::uint32_t, std::uint64_t> inputBytesByLayer, ffnActivationBytesByLayer;  // the transformer layers'
  // On the wafer with the first layers' offloaded (the first `relieved`)
  // or recomputed (models::Recomputation::step(relieved)): the others' in
  // full; offloaded, room for two of them (one in use while the one before
  // it leaves, or the next comes back: StepOnCluster); recomputed, what
  // each keeps and room for what one of them recomputes (the one whose
  // backward pass runs).
  std::uint64_t onWafer(std::uint32_t relieved, ActivationRelief how) const {
    const models::Recomputation recompute = models::Recomputation::step(relieved, layers());
    std::uint64_t total = 0, largest[2] = {0, 0};
    std::uint32_t layer = 0;
    for (const auto& [index, bytes] : bytesByLayer) {
      const std::uint32_t i = layer++;
      std::uint64_t away = 0;  // offloaded, or recomputed for the backward pass (the head's stay)
      if (index != models::kHeadLayer) {
        if (how == ActivationRelief::Offload && i < relieved) away = bytes;
        if (how == ActivationRelief::Recompute && i < recompute.whole) away = bytes - inputBytesByLayer.at(index);
        else if (how == ActivationRelief::Recompute && i < recompute.layers) away = ffnActivationBytesByLayer.at(index);
      }
      total += bytes - away;
      if (away > largest[1]) {
        largest[1] = away;
        if (largest[1] > largest[0]) std::swap(largest[0], largest[1]);
      }
    }
    return total + largest[0] + (how == ActivationRelief::Offload ? largest[1] : 0);
  }
  std::uint32_t layers() const {
    return std::uint32_t(bytesByLayer.size() - bytesByLayer.count(models::kHeadLayer));
  }
  // The most `relieved` can be: every layer offloaded, or every layer recomputed whole.
  std::uint32_t mostRelieved(ActivationRelief how) const {
    return how == ActivationRelief::Recompute ? 2 * layers() : layers();
  }
};

// "28 layers recompute their FFN's activation, 3 of them their whole forward pass"
std::string recomputationText(const models::Recomputation& r) {
  std::string text = std::to_string(r.layers) + (r.layers == 1 ? " layer recomputes its" : " layers recompute their") +
                     " FFN's activation";
  if (r.whole) text += ", " + std::to_string(r.whole) + " of them " + (r.whole == 1 ? "its" : "their") +
                       " whole forward pass";
  return text;
}

// What keeps `micro`, a micro-batch's step, from fitting with the
// activations of its first `relieved` layers offloaded or recomputed: its
// kept activations, beside the buffers of each of its GEMMs.
std::optional<Misfit> misfitOf(const models::TrainingStep& micro, const config::ArchConfig& arch,
                               const std::string& algorithm, const StepWeights& weights, const KeptActivations& kept,
                               std::uint32_t relieved, ActivationRelief how) {
  const std::uint64_t onWafer = kept.onWafer(relieved, how);
  std::string keptText = std::to_string(onWafer) + " B a PE of activations kept for the backward pass";
  if (relieved && how == ActivationRelief::Offload)
    keptText += " (" + std::to_string(relieved) + " layers offloaded, room kept for two of them)";
  if (relieved && how == ActivationRelief::Recompute)
    keptText += " (" + recomputationText(models::Recomputation::step(relieved, kept.layers())) +
                ", room kept for what one recomputes)";
  if (onWafer >= arch.pe.sramBytes)
    return Misfit{keptText + " exceed arch.pe.sram_bytes = " + std::to_string(arch.pe.sramBytes), false};
  config::ArchConfig beside = arch;
  beside.pe.sramBytes -= onWafer;
  std::set<std::tuple<GemmPass, std::uint64_t, std::uint64_t, std::uint64_t>> tried;
  for (const models::StreamedGemm& g : micro.gemms) {
    if (!tried.insert({g.pass, g.m, g.k, g.n}).second) continue;
    try {
      stepGemmMapping(algorithm, g, weights, beside);
    } catch (const firmware::PlanError& e) {
      return Misfit{g.name + " " + gemmPassName(g.pass) + ": " + e.what() + " (what is left beside " + keptText +
                        " of arch.pe.sram_bytes = " + std::to_string(arch.pe.sramBytes) + ")",
                    g.layer == models::kHeadLayer};
    }
  }
  return std::nullopt;
}

// A micro-batch that fits, and how: the activations of its first
// `relievedLayers` layers offloaded or recomputed (the fewest that let it
// fit, when the step asks for either).
struct MicroBatchFit {
  std::uint32_t relievedLayers = 0;
  std::optional<Misfit> misfit;
};

MicroBatchFit fitOf(const models::TrainingStep& micro, const config::ArchConfig& arch, const std::string& algorithm,
                    const StepWeights& weights, ActivationRelief how) {
  KeptActivations kept;
  std::set<std::pair<std::uint32_t, std::string>> keptInputs;                 // (layer, input)
  std::map<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>, std::uint64_t> blockOf;  // by shape
  const std::uint64_t inputBytes = pe::elementBytes(pe::operandType(pe::Opcode::Fmac, weights.precision, 1));
  for (const models::StreamedGemm& g : micro.gemms) {
    if (g.pass != GemmPass::Forward || !keptInputs.insert({g.layer, g.input}).second) continue;
    auto block = blockOf.find({g.m, g.k, g.n});
    if (block == blockOf.end()) {
      try {
        const std::unique_ptr<firmware::GemmMapping> m = stepGemmMapping(algorithm, g, weights, arch);
        const std::uint64_t bytes = pe::SramAllocator::aligned(((g.k + m->gridX() - 1) / m->gridX()) *
                                                               ((g.m + m->gridY() - 1) / m->gridY()) * inputBytes);
        block = blockOf.emplace(std::make_tuple(g.m, g.k, g.n), bytes).first;
      } catch (const firmware::PlanError& e) {
        return {0, Misfit{g.name + " forward: " + e.what(), g.layer == models::kHeadLayer}};
      }
    }
    kept.bytesByLayer[g.layer] += block->second;
    if (g.layer != models::kHeadLayer) kept.inputBytesByLayer.try_emplace(g.layer, block->second);
    if (g.name == "ffn_down") kept.ffnActivationBytesByLayer[g.layer] = block->second;
  }
  const auto misfit = [&](std::uint32_t relieved) {
    return misfitOf(micro, arch, algorithm, weights, kept, relieved, how);
  };
  std::optional<Misfit> none = misfit(0);
  if (!none || how == ActivationRelief::None || kept.layers() == 0) return {0, none};
  // More layers relieved leave more room: the fewest that fit.
  const std::uint32_t most = kept.mostRelieved(how);
  std::optional<Misfit> all = misfit(most);
  if (all) return {most, all};
  std::uint32_t fails = 0, fits = most;
  while (fits - fails > 1) {
    const std::uint32_t mid = fails + (fits - fails) / 2;
    (misfit(mid) ? fails : fits) = mid;
  }
  return {fits, std::nullopt};
}

// A micro-batch of `sequences` as the step runs it: its LM head in as few
// chunks of the vocabulary as fit, the layers whose activations it
// offloads or recomputes, or why it does not fit.
struct MicroBatchLayout {
  std::uint32_t lmHeadChunks = 1;
  std::uint32_t relievedLayers = 0;
  std::optional<std::string> misfit;
};

MicroBatchLayout layOut(const models::TransformerModel& model, std::uint32_t sequences, std::uint32_t seq,
                        const config::ArchConfig& arch, const std::string& algorithm, const StepWeights& weights,
                        ActivationRelief how) {
  const auto fit = [&](std::uint32_t chunks) {
    return fitOf(models::lowerTrainingStep(model, sequences, seq, chunks), arch, algorithm, weights, how);
  };
  const auto layout = [](std::uint32_t chunks, const MicroBatchFit& f) {
    return MicroBatchLayout{chunks, f.relievedLayers,
                            f.misfit ? std::optional<std::string>(f.misfit->why) : std::nullopt};
  };
  const MicroBatchFit whole = fit(1);
  if (!whole.misfit || !whole.misfit->lmHead) return layout(1, whole);
  // More chunks shrink the forward's logits but narrow the backward-data
  // grid (the chunk's vocabulary lies along x), so the need is not
  // monotone: the first of a geometric series of counts that fits.
  const std::uint32_t most = std::min<std::uint32_t>(model.vocab, 4096);
  for (std::uint32_t chunks = 2;; chunks = std::min(most, chunks + (chunks + 3) / 4)) {
    const MicroBatchFit f = fit(chunks);
    if (!f.misfit || !f.misfit->lmHead) return layout(chunks, f);  // chunks mend the LM head; something else may not fit
    if (chunks == most) return layout(1, whole);
  }
}

// How a step runs its batch: its micro-batches and their layout.
struct StepPlan {
  MicroBatches micro;
  MicroBatchLayout layout;
  ActivationRelief relief = ActivationRelief::None;
  models::Recomputation recompute;  // with relief Recompute, from layout.relievedLayers
};

// The compiler's estimate of a step run as `plan`, which `auto` uses to
// choose between keeping every activation (more micro-batches) and
// recomputing layers (fewer): the larger of two floors, neither simulated.
// The wafer's: its GEMMs' lower bounds (GemmBounds: the FMACs at full
// lanes, the weights in through the I/O ring, the sums out) and its ops'
// cost model, one after another. MemoryX's: its storage's traffic at its
// bandwidth, every weight streamed (dense), the micro-batches' gradients
// accumulated (the first written, the next read and written back, the sum
// read by the update) and the optimizer's update.
double estimatedStepSeconds(const models::TransformerModel& model, const StepPlan& plan, std::uint32_t seq,
                            const config::ArchConfig& arch, const std::string& algorithm, const StepWeights& weights,
                            const system::OptimizerModel& optimizer) {
  const models::TrainingStep step =
      microBatchedStep(model, plan.micro, seq, plan.layout.lmHeadChunks, plan.recompute);
  const double weightBytes = pe::elementBytes(pe::operandType(pe::Opcode::Fmac, weights.precision, 1));
  const double gradientBytes = pe::elementBytes(pe::operandType(pe::Opcode::Fmac, weights.precision, -1));
  std::map<std::tuple<GemmPass, std::uint64_t, std::uint64_t, std::uint64_t>, std::uint64_t> boundOf;
  double waferCycles = 0, storageBytes = 0;
  for (const models::StreamedGemm& g : step.gemms) {
    auto bound = boundOf.find({g.pass, g.m, g.k, g.n});
    if (bound == boundOf.end())
      bound = boundOf.emplace(std::make_tuple(g.pass, g.m, g.k, g.n),
                              stepGemmMapping(algorithm, g, weights, arch)->bounds(arch).max()).first;
    waferCycles += double(bound->second);
    if (g.pass != GemmPass::WeightGrad) storageBytes += double(g.k) * double(g.n) * weightBytes;
  }
  for (const models::WaferOp& op : step.ops) waferCycles += double(waferOpCycles(op, arch, weights.precision));
  const double parameters = double(model.parameters());
  storageBytes += parameters * (gradientBytes * (2.0 * plan.micro.count - 2) + optimizer.touchedBytesPerParameter);
  return std::max(waferCycles / arch.clockHz, storageBytes / arch.memoryx.bandwidthBytesPerS);
}

// A GEMM of the step as simulated (SimulatedGemm: the mapping, or its
// representative rows and steady-state cuts) and the cycles the whole GEMM takes.
struct StepGemm {
  std::string name;  // of its first use in the step
  firmware::GemmShape shape;
  std::unique_ptr<runtime::SimulatedGemm> plan;
  std::uint64_t cycles = 0;
  energy::ActionCounts actions{};  // the whole GEMM's on the wafer
  std::uint64_t occurrences = 0;  // in the step
};

// The products an entry of the wafer-timing cache times, one line each, in
// the entry's order. The configuration's values alone do not fix them:
// `auto` lays the step out (micro-batches, recomputation, the LM head's
// chunks) on an estimate that reads MemoryX's storage, which the wafer's
// timing does not depend on, so two runs of the same key may step
// through other GEMMs.
std::string stepGemmsKey(const std::vector<StepGemm>& gemms) {
  std::string key;
  for (std::size_t i = 0; i < gemms.size(); ++i) {
    const firmware::GemmShape& s = gemms[i].shape;
    std::ostringstream line;
    line << "step.gemm." << i << "=" << s.m << "x" << s.k << "x" << s.n << " " << gemmPassName(s.pass) << " "
         << firmware::gemmPrecisionName(s) << " density " << s.sparsity.density
         << (s.sparsity.transposed ? " transposed" : "") << "\n";
    key += line.str();
  }
  return key;
}

// What the step came to on the system model: report() fills it, results()
// and summary() are both written from it.
struct StepResults {
  double stepSeconds = 0, oneSystemStepSeconds = 0;
  std::uint64_t gemmCycles = 0, opCycles = 0, waferIdleCycles = 0, optimizerTailCycles = 0;  // per step
  std::uint64_t activationWaitCycles = 0, offloadedBytes = 0;  // per step, of one system
  std::map<std::string, std::uint64_t> gemmCyclesByPass, opCyclesByKind;
  unsigned swarmxDepth = 0;
  // From the cluster (results/ClusterReport.h) and per distinct GEMM.
  nlohmann::json phaseBounds, traffic, memoryx, perSystem, gemms;
};

class TrainWorkload : public workload::Workload {
 public:
  TrainWorkload(TrainConfig config, const config::ArchConfig& arch, const config::RunConfig& run);

  void run(const workload::RunOptions& options) override;
  // The widest mesh any of its GEMMs simulates (always in timing mode: no
  // operands), and the cluster's systems with the one-system reference.
  // A chip per worker simulating groups of GEMMs at once (GemmGroups.h).
  workload::HostMemoryPlan plannedHostMemory() const override {
    workload::HostMemoryPlan plan =
        workload::sampledGemmHostMemory(arch_, runtime::withMeshColumns(arch_, meshColumns_), run_, chipParts());
    plan.bytes *= workers_;
    plan.systemBytes = workload::ClusterModel::plannedHostBytes(arch_, true);
    plan.bytes += plan.systemBytes;
    return plan;
  }
  nlohmann::json typeResults() const override;
  std::string typeSummary() const override;

 private:
  StepWeights stepWeights() const { return {config_.precision, config_.fp16PeSums, config_.sparsity}; }
  // Always in timing mode: the GEMMs have no operands.
  chip::ChipParts chipParts() const {
    return workload::gemmChipParts(arch_, config_.precision, config::DataMode::Timing);
  }
  // Of the whole cluster, per second of a step.
  double samplesPerSecond() const { return double(config_.batch) * arch_.cluster.systems / found_.stepSeconds; }
  double tokensPerSecond() const { return double(step_.tokens) * arch_.cluster.systems / found_.stepSeconds; }
  double achievedFlopsPerSecond() const { return step_.modelFlops * arch_.cluster.systems / found_.stepSeconds; }
  // Of one system's mesh at its FMAC peak.
  double utilisation() const {
    const double peak =
        double(arch_.mesh.routers()) * 2.0 * arch_.pe.lanes.of(pe::Opcode::Fmac, config_.precision) * arch_.clockHz;
    return step_.modelFlops / (found_.stepSeconds * peak);
  }
  // A GEMM of the step as the wafer model simulates it (each simulation
  // its own: a GEMM sampled in rounds keeps their state).
  // `wholeColumns`: without representative columns, for one sequence of
  // every GEMM on one mesh (a run observing the wafer).
  std::unique_ptr<runtime::SimulatedGemm> simulatedGemm(const firmware::GemmShape& shape,
                                                        bool wholeColumns = false) const {
    runtime::GemmSampling sampling = config_.sampling;
    sampling.representativeColumns = sampling.representativeColumns && !wholeColumns;
    return std::make_unique<runtime::SimulatedGemm>(algorithm_, shape, arch_, 0, 0, firmware::Buffering::Auto,
                                                    sampling);
  }
  // Per distinct GEMM, from the timing of those simulated (simulated_, in
  // its order): a GEMM timed like another takes its cycles, with its own
  // streamed bytes and its actions scaled by its multiply-adds.
  std::vector<GemmTiming> everyGemmTiming(const std::vector<GemmTiming>& perSimulated,
                                          const std::vector<std::uint64_t>& streamedBytes) const;
  // The wafer's timing of every distinct GEMM simulated (every wafer's, one
  // after another, with workload.wafers: every), their groups simulated on
  // `workers_` threads (GemmGroups.h); `groupsRun`: each group's GEMMs and
  // host seconds, for the results.
  GroupedTiming simulateGroups(const std::vector<std::uint64_t>& streamedBytes, sim::ProgressObserver* progress,
                               nlohmann::json& groupsRun);
  // The cost side of a step (results: actions, energy, power, area, efficiency).
  void reportEnergy(const system::Cluster& cluster, const std::map<std::string, std::uint64_t>& gemmCyclesByPass,
                    std::uint64_t opCycles);
  // The step on the system model, after the GEMMs the wafer model ran (it
  // starts where they end, in the one simulation), on lanes of their own.
  void addSystemSpans(trace::TimelineRecorder& timeline, const system::Cluster& cluster) const;
  // Per GEMM of the step.
  std::vector<GemmTiming> stepTimings(const std::vector<GemmTiming>& perGemm) const;
  // Throws config::ConfigError, before the run, when MemoryX cannot hold
  // the model's weights and optimizer state (naming workload.model) and
  // every system's offloaded activations beside them (naming
  // workload.activation_offload).
  void checkMemoryXFits() const;
  // What MemoryX keeps of the sparse matrices (StepOnCluster::StreamedMatrix).
  StepOnCluster::StreamedMatrix streamedAs() const {
    return [this](const models::StreamedGemm& g) -> std::optional<system::LayerWeights> {
      const auto it = sparseMatrices_.find({g.k, g.n});
      if (g.layer == models::kHeadLayer || it == sparseMatrices_.end()) return std::nullopt;
      return it->second;
    };
  }
  // Fills sparseMatrices_ and the counts from the step's forward GEMMs.
  void countSparseWeights();
  // The step's micro-batches and layout with `how`: as few as fit, or
  // `count` if more (throws config::ConfigError when they do not fit).
  StepPlan planWith(ActivationRelief how, std::uint32_t count = 0) const;
  // As asked, or with workload.activation_recompute: auto, of the layouts
  // from keeping every activation to recomputing the most, the one whose
  // estimated step (estimatedStepSeconds) is the lowest.
  StepPlan choosePlan();
  // The results of the run, from the cluster after it (and the one-system
  // reference beside a cluster of several).
  void report(const workload::ClusterModel& clusters, const std::vector<std::uint64_t>& opCycles);

  TrainConfig config_;
  config::ArchConfig arch_;
  config::RunConfig run_;  // its VCD region within the rows simulated
  // The widest mesh a GEMM simulated needs: the chip that shows the wafer
  // (timeline, map, waveform); each group of GEMMs runs on its own (GemmGroups.h).
  std::uint32_t meshColumns_ = 1;
  MicroBatches microBatches_;
  std::uint32_t lmHeadChunks_ = 1;  // of the vocabulary, so that the LM head's logits fit
  std::uint32_t offloadedLayers_ = 0;  // whose kept activations go to MemoryX and back (StepOnCluster)
  models::Recomputation recompute_;  // which layers run part or all of their forward pass again
  ActivationRelief relief_ = ActivationRelief::None;  // as run (with `auto`, as chosen)
  std::string recomputeWhy_;  // how `auto` chose, if it did
  models::TrainingStep step_;  // every micro-batch's, in order
  std::string algorithm_;                 // the GEMM algorithm of every layer (stepAlgorithm)
  std::vector<StepGemm> gemms_;           // simulated, in order of first use
  std::vector<std::size_t> gemmOfStep_;  // per GEMM of the step: its entry in gemms_
  std::vector<std::size_t> simulated_;   // the entries of gemms_ the wafer model runs
  std::vector<std::size_t> timedBy_;     // per entry of gemms_: the one of simulated_ whose cycles it takes
  std::vector<std::vector<std::size_t>> gemmGroups_;  // of simulated_, simulated apart (GemmGroups.h)
  unsigned workers_ = 1;  // threads simulating the groups: run.threads, at most one per group
  // Sparse: how MemoryX keeps a block's matrix, by its shape (K, N): every
  // layer's of a shape has the same zeros. And over the step's matrices,
  // the sparse ones' non-zeros and all their weights.
  std::map<std::pair<std::uint64_t, std::uint64_t>, system::LayerWeights> sparseMatrices_;
  std::uint64_t sparseNonzeros_ = 0, sparseWeights_ = 0;
  std::uint64_t stepCycles_ = 0;
  StepResults found_;
  nlohmann::json results_;
};

void TrainWorkload::checkMemoryXFits() const {
  const StepOnCluster onCluster(config_.model, step_, config_.precision, offloadedLayers_, streamedAs());
  const system::OptimizerModel& optimizer = system::optimizerModel(config_.optimizer);
  const double stored = double(onCluster.weights().parameters()) * optimizer.storedBytesPerParameter;
  const double offloaded = double(onCluster.mostOffloadedBytes()) * arch_.cluster.systems;
  if (stored + offloaded <= double(arch_.memoryx.capacityBytes)) return;
  const std::string capacity = "arch.memoryx.capacity_bytes = " + std::to_string(arch_.memoryx.capacityBytes);
  if (offloaded > 0)
    throw config::ConfigError("workload.activation_offload: MemoryX would hold " + std::to_string(offloaded / 1e9) +
                              " GB of offloaded activations (" + std::to_string(arch_.cluster.systems) +
                              " systems) beside the model's " + std::to_string(stored / 1e9) + " GB, more than " +
                              capacity);
  throw config::ConfigError("workload.model: MemoryX would hold " + std::to_string(stored / 1e9) + " GB (" +
                            std::to_string(onCluster.weights().parameters()) + " parameters x " +
                            std::to_string(optimizer.storedBytesPerParameter) + " bytes of weights and " +
                            optimizer.name + " state), more than " + capacity);
}

StepPlan TrainWorkload::planWith(ActivationRelief how, std::uint32_t count) const {
  const auto layOutMicroBatch = [&](std::uint32_t sequences) {
    return layOut(config_.model, sequences, config_.seq, arch_, algorithm_, stepWeights(), how);
  };
  StepPlan plan;
  plan.relief = how;
  plan.micro = chooseMicroBatches(config_.batch, config_.microBatch,
                                  [&](std::uint32_t sequences) { return layOutMicroBatch(sequences).misfit; });
  if (count > plan.micro.count) plan.micro = evenMicroBatches(config_.batch, count, plan.micro.largestFitting);
  // The larger micro-batch's chunks, offload and recomputation serve the last one too.
  plan.layout = layOutMicroBatch(plan.micro.size);
  if (how == ActivationRelief::Recompute)
    plan.recompute = models::Recomputation::step(plan.layout.relievedLayers, config_.model.layers);
  return plan;
}

StepPlan TrainWorkload::choosePlan() {
  if (!config_.recomputeAuto) return planWith(config_.relief);
  // Recomputation only where it saves micro-batches, and as much of it as
  // the compiler's estimate of the step says pays for the forward passes
  // it adds: every count of micro-batches from the fewest that fit with
  // recomputation to the fewest without, each recomputing as little as
  // lets it fit (a given micro-batch: with recomputation or without).
  std::optional<StepPlan> keepAll;
  try {
    keepAll = planWith(ActivationRelief::None);
  } catch (const config::ConfigError&) {  // not even one sequence, or not the given micro-batch: recompute
  }
  const StepPlan fewest = planWith(ActivationRelief::Recompute);
  if (keepAll && keepAll->micro.count <= fewest.micro.count) {
    recomputeWhy_ = "auto: recomputing saves no micro-batch";
    return *keepAll;
  }
  std::vector<StepPlan> candidates{fewest};
  for (std::uint32_t count = fewest.micro.count + 1; keepAll && count < keepAll->micro.count; ++count)
    if (StepPlan p = planWith(ActivationRelief::Recompute, count); p.micro.count > candidates.back().micro.count)
      candidates.push_back(p);
  if (keepAll) candidates.push_back(*keepAll);
  const system::OptimizerModel& optimizer = system::optimizerModel(config_.optimizer);
  recomputeWhy_ = "auto: the step estimated (the larger of its GEMMs' bounds and ops, and MemoryX's storage "
                  "traffic) at";
  std::size_t best = 0;
  double lowest = 0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const StepPlan& p = candidates[i];
    const double seconds =
        estimatedStepSeconds(config_.model, p, config_.seq, arch_, algorithm_, stepWeights(), optimizer);
    if (i == 0 || seconds < lowest) {
      best = i;
      lowest = seconds;
    }
    char line[64];
    std::snprintf(line, sizeof line, "%s %u micro-batch%s of %u (", i ? ";" : "", p.micro.count,
                  p.micro.count == 1 ? "" : "es", p.micro.size);
    recomputeWhy_ += line + (p.recompute.layers ? recomputationText(p.recompute) : std::string("keeping all"));
    std::snprintf(line, sizeof line, "): %.4g s", seconds);
    recomputeWhy_ += line;
  }
  recomputeWhy_ += "; the lowest taken";
  return candidates[best];
}

TrainWorkload::TrainWorkload(TrainConfig config, const config::ArchConfig& arch, const config::RunConfig& run)
    : config_(std::move(config)), arch_(arch), run_(run) {
  algorithm_ = stepAlgorithm(stepWeights(), config_.sampling);
  const StepPlan plan = choosePlan();
  microBatches_ = plan.micro;
  lmHeadChunks_ = plan.layout.lmHeadChunks;
  relief_ = plan.relief;
  if (relief_ == ActivationRelief::Offload) offloadedLayers_ = plan.layout.relievedLayers;
  recompute_ = plan.recompute;
  step_ = microBatchedStep(config_.model, microBatches_, config_.seq, lmHeadChunks_, recompute_);
  // A GEMM is distinct by the product it computes: the forward and
  // backward-data passes stream their weights through one dataflow, so a
  // backward-data product of a forward one's shape (GPT-2's FFN-up
  // backward and FFN-down forward) is simulated once.
  // Sparse, every block's matrix of a shape has the same zeros (one seed),
  // so identical layers stay identical products; a backward-data pass
  // streams its matrix transposed, so it shares a forward one's product
  // only when dense.
  std::map<std::tuple<bool, pe::Precision, bool, bool, std::uint32_t, std::uint32_t, std::uint32_t>, std::size_t>
      distinct;
  for (const models::StreamedGemm& g : step_.gemms) {
    const firmware::GemmShape shape = stepWeights().shapeOf(g);
    const firmware::WeightSparsity& sparsity = shape.sparsity;
    const auto key = std::make_tuple(g.pass == GemmPass::WeightGrad, shape.precision, sparsity.dense(),
                                     !sparsity.dense() && sparsity.transposed, shape.m, shape.k, shape.n);
    auto it = distinct.find(key);
    if (it == distinct.end() || config_.everyLayer) {
      try {
        gemms_.push_back(
            StepGemm{g.name, shape, simulatedGemm(shape)});
      } catch (const firmware::PlanError& e) {
        throw config::ConfigError("workload.model/batch/seq: " + g.name + " " + gemmPassName(g.pass) + ": " +
                                  e.what());
      }
      it = distinct.insert_or_assign(key, gemms_.size() - 1).first;
    }
    ++gemms_[it->second].occurrences;
    gemmOfStep_.push_back(it->second);
  }
  // A GEMM timed like an earlier one (the last micro-batch's, a few
  // sequences short, with rows of as many tokens) is not simulated again,
  // unless every layer is asked for.
  for (std::size_t i = 0; i < gemms_.size(); ++i) {
    std::size_t like = simulated_.size();
    if (!config_.everyLayer)
      for (like = 0; like < simulated_.size(); ++like)
        if (gemms_[simulated_[like]].plan->timesLike(*gemms_[i].plan)) break;
    if (like == simulated_.size()) simulated_.push_back(i);
    timedBy_.push_back(like);
  }
  std::vector<const runtime::SimulatedGemm*> plans;
  for (std::size_t i : simulated_) {
    meshColumns_ = std::max(meshColumns_, gemms_[i].plan->meshColumns(arch_));
    plans.push_back(gemms_[i].plan.get());
  }
  run_ = runtime::withMeshColumns(run_, meshColumns_);
  countSparseWeights();
  checkMemoryXFits();
  gemmGroups_ = independentGemmGroups(plans, config_.sampling.representativePhases);
  workers_ = std::min<unsigned>(run_.hostThreads(), unsigned(gemmGroups_.size()));
}

void TrainWorkload::countSparseWeights() {
  std::set<std::pair<std::uint32_t, std::string>> counted;  // (layer, matrix)
  for (std::size_t i = 0; i < step_.gemms.size(); ++i) {
    const models::StreamedGemm& g = step_.gemms[i];
    const StepGemm& simulated = gemms_[gemmOfStep_[i]];
    if (g.pass != GemmPass::Forward || simulated.shape.sparsity.dense() || !counted.insert({g.layer, g.name}).second)
      continue;
    auto it = sparseMatrices_.find({g.k, g.n});
    if (it == sparseMatrices_.end()) {
      // As the forward pass streams it.
      const firmware::GemmShape& shape = simulated.shape;
      it = sparseMatrices_
               .emplace(std::make_pair(g.k, g.n),
                        workload::sparseLayerWeights(
                            "", shape.sparsity.keptCount(shape.k, shape.n),
                            simulated.plan->streamedWavelets(arch_.mesh) * firmware::kSparseWaveletBytes))
               .first;
    }
    sparseNonzeros_ += it->second.parameters;
    sparseWeights_ += g.k * g.n;
  }
}

void TrainWorkload::run(const workload::RunOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::uint64_t> opCycles;
  for (const models::WaferOp& op : step_.ops) opCycles.push_back(waferOpCycles(op, arch_, config_.precision));
  const StepOnCluster onCluster(config_.model, step_, config_.precision, offloadedLayers_, streamedAs());
  const system::OptimizerModel& optimizer = system::optimizerModel(config_.optimizer);
  // Builds the cluster's work from each simulated wafer's timing (per distinct GEMM).
  const auto clusterWork = [&](const std::vector<std::vector<GemmTiming>>& wafers, const system::MemoryX& memoryx) {
    system::ClusterWork work;
    for (const std::vector<GemmTiming>& perGemm : wafers) {
      const std::vector<GemmTiming> timing = stepTimings(perGemm);
      if (work.wafers.empty()) work.schedule = onCluster.schedule(timing, config_.steps);
      work.wafers.push_back(onCluster.waferWork(timing, opCycles, config_.steps, memoryx, arch_));
    }
    return work;
  };

  // The cluster, with the one-system reference for the scaling efficiency.
  // `timings` gives each simulated wafer's timing once the cluster starts.
  std::unique_ptr<workload::ClusterModel> clusters;
  const auto makeClusters = [&](const sc_core::sc_event* trigger,
                                std::function<std::vector<std::vector<GemmTiming>>()> timings) {
    clusters = std::make_unique<workload::ClusterModel>(
        arch_, onCluster.weights(), optimizer, trigger,
        [&, timings](const system::MemoryX& memoryx, bool reference) {
          std::vector<std::vector<GemmTiming>> wafers = timings();
          if (reference) wafers.resize(1);  // one system: the first wafer's timing
          return clusterWork(wafers, memoryx);
        },
        true);
  };

  std::vector<std::uint64_t> streamedBytes;
  for (const StepGemm& g : gemms_)
    streamedBytes.push_back(g.plan->streamedWavelets(arch_.mesh) * firmware::streamedWaveletBytes(g.shape));
  // The wafer's timing comes from the cache or from the GEMMs' groups,
  // each on a chip of its own (GemmGroups.h), whatever the run observes. A
  // run that asks for the wafer's timeline, map or waveform simulates the
  // GEMMs again for them, in one sequence on the SystemC chip, before the
  // step runs on the system model: the same timing either way.
  std::unique_ptr<WaferTimingCache> cache;
  std::optional<std::vector<std::vector<GemmTiming>>> wafers;  // per wafer simulated, per GEMM of gemms_
  WaferTiming simulated;
  if (!config_.waferTimingCache.empty() && !config_.everyWafer && !options.timeline && !options.waferMap) {
    cache = std::make_unique<WaferTimingCache>(config_.waferTimingCache, config_.waferTimingKey + stepGemmsKey(gemms_));
    if (std::optional<WaferTiming> stored = cache->load()) {
      simulated = *stored;
      wafers = std::vector<std::vector<GemmTiming>>{stored->gemms};
    } else {
      cache->checkStorable();
    }
  }
  const bool fromCache = wafers.has_value();
  const bool observesWafer = !fromCache && (options.timeline || options.waferMap || !options.vcdBaseName.empty());
  // Simulated twice, the wafer tells one progress: half each.
  sim::ProgressShare groupsProgress(options.progress, 0.0, observesWafer ? 0.5 : 1.0, !observesWafer);
  sim::ProgressShare chipProgress(options.progress, 0.5, 1.0, true);
  const auto elaborated = std::chrono::steady_clock::now();
  nlohmann::json groups = nlohmann::json::array();  // host seconds per group of GEMMs simulated at once
  double waferSeconds = 0;  // simulating the groups, all threads together
  if (!fromCache) {
    GroupedTiming grouped = simulateGroups(streamedBytes, groupsProgress.observer(), groups);
    waferSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - elaborated).count();
    simulated = grouped.timing;
    wafers = std::vector<std::vector<GemmTiming>>();
    for (std::size_t first = 0; first < simulated.gemms.size(); first += simulated_.size())
      wafers->push_back(everyGemmTiming(std::vector<GemmTiming>(simulated.gemms.begin() + first,
                                                                simulated.gemms.begin() + first + simulated_.size()),
                                        streamedBytes));
    simulated.gemms = wafers->front();
    if (cache) cache->store(simulated);
  }
  for (std::size_t i = 0; i < gemms_.size(); ++i) {
    gemms_[i].cycles = simulated.gemms.at(i).cycles;
    gemms_[i].actions = simulated.gemms.at(i).actions;
  }
  const auto timings = [&] { return *wafers; };

  double simulationSeconds = 0;
  if (observesWafer) {
    const config::ArchConfig simulatedArch = runtime::withMeshColumns(arch_, meshColumns_);
    chip::WaferChip chip(simulatedArch, run_, chipParts(), start);
    wafer::Wafer& wafer = chip.wafer();
    // The GEMMs as the groups ran them, afresh (a GEMM sampled in rounds
    // keeps their state) and on every column (a weight gradient's
    // representative columns would need a mesh of their own), one after
    // another on one mesh as wide as the widest needs: the first wafer's.
    std::vector<std::unique_ptr<runtime::SimulatedGemm>> plans;
    std::vector<runtime::SimulatedGemm*> sequence;
    for (std::size_t i : simulated_) {
      plans.push_back(simulatedGemm(gemms_[i].shape, true));
      sequence.push_back(plans.back().get());
    }
    runtime::GemmSequence driver(sequence, chip.pes(), chip.routes(), chip.ingress(), chip.egress(), chip,
                                 arch_.fabric.routeSwitchCycles);
    chip.setController(&driver);
    wafer.setStopWhenFinished(false);
    // When the wafer is done, the cluster runs the step from the groups' timing.
    makeClusters(&wafer.finishedEvent(), timings);
    workload::RunOptions observed = options;
    observed.progress = chipProgress.observer();
    chip::SimulationTimes times = chip.simulate(observed);
    simulationSeconds = times.simulationSeconds;
    for (std::size_t j = 0; j < simulated_.size() && times.timeline; ++j)
      times.timeline->addSpan(gemms_[simulated_[j]].plan->full().describe(), driver.starts()[j],
                              j + 1 < driver.starts().size() ? driver.starts()[j + 1] : wafer.cycles(),
                              "wafer model: each distinct GEMM");
    if (options.waferMap) waferMap_ = results::waferMap(wafer.fabric(), &chip.pes(), wafer.cycles(), simulatedArch);
    if (times.timeline) {
      addSystemSpans(*times.timeline, clusters->cluster());
      timeline_ = workload::finishTimeline(*times.timeline, wafer.cycles());
    }
  } else {
    // The wafer's timing is known: only the system model runs.
    makeClusters(nullptr, timings);
    const auto started = std::chrono::steady_clock::now();
    sc_core::sc_start();
    simulationSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  report(*clusters, opCycles);
  if (!options.vcdBaseName.empty()) systemWaveform_ = clusters->waveform();
  results_["wafer_timing"] = fromCache ? "from " + cache->file().string()
                                       : cache ? "simulated, kept in " + cache->file().string() : "simulated";
  results_["simulated_wavelets"] = {{"weights_in", simulated.weightsIn}, {"gradients_out", simulated.gradientsOut}};
  results_["host"] = {{"elaboration_seconds", std::chrono::duration<double>(elaborated - start).count()},
                      {"simulation_seconds", waferSeconds + simulationSeconds},
                      {"simulated_gemm_cycles", simulated.simulatedCycles},
                      {"threads", fromCache ? 1u : workers_},
                      {"wafer_seconds", waferSeconds},
                      {"gemm_groups", groups}};
}

std::vector<GemmTiming> TrainWorkload::everyGemmTiming(const std::vector<GemmTiming>& perSimulated,
                                                       const std::vector<std::uint64_t>& streamedBytes) const {
  std::vector<GemmTiming> perGemm;
  for (std::size_t i = 0; i < gemms_.size(); ++i) {
    const std::size_t by = simulated_[timedBy_[i]];
    GemmTiming t = perSimulated[timedBy_[i]];
    if (by != i) {
      t.streamedBytes = streamedBytes[i];
      t.actions = t.actions * (gemms_[i].plan->multiplyAdds() / gemms_[by].plan->multiplyAdds());
    }
    perGemm.push_back(t);
  }
  return perGemm;
}

GroupedTiming TrainWorkload::simulateGroups(const std::vector<std::uint64_t>& streamedBytes,
                                          sim::ProgressObserver* progress, nlohmann::json& groupsRun) {
  // Every wafer simulated: each further one's GEMMs after the first's (a
  // GEMM sampled in rounds keeps their state), in groups with them.
  const unsigned wafers = config_.everyWafer ? arch_.cluster.systems : 1;
  std::vector<std::unique_ptr<runtime::SimulatedGemm>> otherWafers;
  std::vector<runtime::SimulatedGemm*> plans;
  std::vector<std::uint64_t> simulatedBytes;
  for (unsigned w = 0; w < wafers; ++w)
    for (std::size_t i : simulated_) {
      if (w > 0)
        otherWafers.push_back(simulatedGemm(gemms_[i].shape));
      plans.push_back(w > 0 ? otherWafers.back().get() : gemms_[i].plan.get());
      simulatedBytes.push_back(streamedBytes[i]);
    }
  const std::vector<const runtime::SimulatedGemm*> constPlans(plans.begin(), plans.end());
  const std::vector<std::vector<std::size_t>> groups =
      wafers > 1 ? independentGemmGroups(constPlans, config_.sampling.representativePhases) : gemmGroups_;
  GroupedTiming grouped =
      simulateGemmGroups(plans, groups, simulatedBytes, GroupedRun{arch_, run_, chipParts(), workers_, progress});
  groupsRun = nlohmann::json::array();
  for (std::size_t g = 0; g < groups.size(); ++g) {
    nlohmann::json members = nlohmann::json::array(), ofWafer = nlohmann::json::array();
    for (std::size_t m : groups[g]) {
      members.push_back(simulated_[m % simulated_.size()]);  // of the step's distinct GEMMs
      ofWafer.push_back(m / simulated_.size());
    }
    groupsRun.push_back({{"gemms", members}, {"seconds", grouped.groupSeconds[g]}});
    if (wafers > 1) groupsRun.back()["wafers"] = ofWafer;
  }
  return grouped;
}

void TrainWorkload::addSystemSpans(trace::TimelineRecorder& timeline, const system::Cluster& cluster) const {
  const auto cycle = [&](const sc_core::sc_time& t) { return std::uint64_t(std::llround(t.to_seconds() * arch_.clockHz)); };
  const system::CsSystem& first = cluster.systems[0];
  for (const system::TaskRecord& r : first.records())
    timeline.addSpan(first.work()[r.task].name, cycle(r.start), cycle(r.end), "step: system 0's wafer");
  const system::MemoryX& mx = cluster.memoryx;
  for (const system::LayerStream& l : mx.streams())
    timeline.addSpan(mx.model().layers[l.layer].name, cycle(l.streamStart), cycle(l.streamEnd), "step: MemoryX streams");
  for (const system::OptimizerUpdate& u : mx.updates())
    timeline.addSpan(mx.model().layers[u.layer].name, cycle(u.start), cycle(u.end), "step: MemoryX updates");
}

std::vector<GemmTiming> TrainWorkload::stepTimings(const std::vector<GemmTiming>& perGemm) const {
  std::vector<GemmTiming> perStepGemm;
  for (std::size_t i = 0; i < step_.gemms.size(); ++i) perStepGemm.push_back(perGemm[gemmOfStep_[i]]);
  return perStepGemm;
}

void TrainWorkload::report(const workload::ClusterModel& clusters, const std::vector<std::uint64_t>& opCycles) {
  const system::Cluster& cluster = clusters.cluster();
  const auto toCycles = [&](double seconds) { return std::uint64_t(std::llround(seconds * arch_.clockHz)); };
  const double total = clusters.seconds();
  const double stepSeconds = total / config_.steps;
  cycles_ = toCycles(total);
  stepCycles_ = toCycles(stepSeconds);

  // The wafer's work in a step, as timed on the wafer model.
  std::map<std::string, std::uint64_t> byPass, byOpKind;
  std::uint64_t gemmCycles = 0, opTotal = 0;
  for (std::size_t i = 0; i < step_.gemms.size(); ++i) {
    const std::uint64_t c = gemms_[gemmOfStep_[i]].cycles;
    gemmCycles += c;
    byPass[step_.gemms[i].stepPart()] += c;
  }
  for (std::size_t j = 0; j < step_.ops.size(); ++j) {
    const models::WaferOp& op = step_.ops[j];
    opTotal += opCycles[j];
    byOpKind[std::string(models::opKindName(op.kind)) + (op.backward ? "_backward" : op.recompute ? "_recompute" : "")] +=
        opCycles[j];
  }

  // Each system's wafer in time: busy on its tasks, idle waiting for weights.
  const nlohmann::json perSystem = results::perSystemTiming(cluster);
  sc_core::sc_time lastWafer = cluster.began();
  for (const system::CsSystem& cs : cluster.systems) lastWafer = std::max(lastWafer, cs.waferFree());
  const double idle = perSystem[0]["wafer_idle_seconds"].get<double>();
  const double forActivations = perSystem[0]["wafer_activation_wait_seconds"].get<double>();
  const double optimizerTail = (cluster.finished() - lastWafer).to_seconds();

  StepResults& r = found_;
  nlohmann::json gemmRows = nlohmann::json::array();
  for (std::size_t i = 0; i < gemms_.size(); ++i) {
    const StepGemm& g = gemms_[i];
    const firmware::GemmBounds b = g.plan->full().bounds(arch_);
    gemmRows.push_back({{"name", g.name},
                        {"pass", gemmPassName(g.shape.pass)},
                        {"mapping", g.plan->full().describe()},
                        {"cycles", g.cycles},
                        {"occurrences", g.occurrences},
                        {"lower_bound", b.max()},
                        {"bound", b.bound()},
                        {"rows_simulated", g.plan->rows().gridY()},
                        {"columns_simulated", g.plan->rows().gridX()},
                        {"cycles_of", simulated_[timedBy_[i]]}});
  }
  r.stepSeconds = stepSeconds;
  r.gemmCycles = gemmCycles;
  r.opCycles = opTotal;
  // Per step (the run's totals over its steps): the wafer's wait for weights,
  // and the optimizer update still running after the wafer is done.
  r.waferIdleCycles = toCycles((idle - forActivations) / config_.steps);
  r.activationWaitCycles = toCycles(forActivations / config_.steps);
  for (const system::WaferTask& t : cluster.systems[0].work()) r.offloadedBytes += t.offloadBytes;
  r.offloadedBytes /= config_.steps;
  r.optimizerTailCycles = toCycles(optimizerTail / config_.steps);
  r.gemmCyclesByPass = byPass;
  r.opCyclesByKind = byOpKind;
  r.phaseBounds = results::streamBounds(cluster, arch_);  // of system 0, over the run
  r.traffic = results::clusterTraffic(cluster);
  r.memoryx = results::memoryxFigures(cluster);
  r.perSystem = perSystem;
  // Weak scaling: each system has the same batch, so the ideal step is one system's.
  r.oneSystemStepSeconds = clusters.oneSystemSeconds() / config_.steps;
  r.swarmxDepth = cluster.swarmx.tree().depth();
  r.gemms = gemmRows;
  reportEnergy(cluster, byPass, opTotal);
}

void TrainWorkload::reportEnergy(const system::Cluster& cluster,
                                 const std::map<std::string, std::uint64_t>& gemmCyclesByPass, std::uint64_t opCycles) {
  const double routers = double(arch_.mesh.routers());
  // One system's wafer in a step, by part: its GEMMs by pass, the ops.
  std::map<std::string, std::pair<energy::ActionCounts, std::uint64_t>> parts;  // actions, cycles
  for (std::size_t i = 0; i < step_.gemms.size(); ++i) {
    const std::string part = step_.gemms[i].stepPart();
    parts["gemms_" + part].first += gemms_[gemmOfStep_[i]].actions;
    parts["gemms_" + part].second = gemmCyclesByPass.at(part);
  }
  for (const models::WaferOp& op : step_.ops) parts["ops"].first += waferOpActions(op, arch_, config_.precision);
  parts["ops"].second = opCycles;
  const auto withIdle = [&](energy::ActionCounts a, double cycles) {
    a.peIdleCycles = std::max(0.0, routers * cycles - a.peActiveCycles);  // every other PE-cycle of the mesh
    return a;
  };
  const energy::EnergyModel model = arch_.energyModel();
  energy::ActionCounts wafer;
  nlohmann::json byPart = nlohmann::json::object();
  double partsJoules = 0;
  for (const auto& [name, part] : parts) {
    wafer += part.first;
    const double joules =
        model.energyOf(withIdle(part.first, double(part.second)), double(part.second) * arch_.secondsPerCycle())
            .total();
    byPart[name] = joules;
    partsJoules += joules;
  }
  wafer = withIdle(wafer, double(stepCycles_));
  // The rest of one system's step: its wafer waiting for weights and for the optimizer.
  byPart["waiting"] = model.energyOf(wafer, found_.stepSeconds).total() - partsJoules;

  const unsigned systems = arch_.cluster.systems;
  const energy::ActionCounts step = wafer * double(systems) + results::clusterActions(cluster) * (1.0 / config_.steps);
  results::EnergyScope scope;
  scope.seconds = found_.stepSeconds;
  scope.systems = systems;
  scope.flops = step_.modelFlops * systems;
  scope.samples = double(config_.batch) * systems;
  scope.tokens = double(step_.tokens) * systems;
  cost_ = results::energyResults(step, arch_, scope);
  cost_["energy"]["per_system_by_part_j"] = byPart;
}

nlohmann::json TrainWorkload::typeResults() const {
  const StepResults& f = found_;
  const unsigned systems = arch_.cluster.systems;
  nlohmann::json r = results_;  // how the wafer was timed, and the host
  r["type"] = "train";
  r["model"] = config_.model.name;
  r["parameters"] = config_.model.parameters();
  r["systems"] = systems;
  r["batch"] = config_.batch;
  r["global_batch"] = std::uint64_t(config_.batch) * systems;
  r["seq"] = config_.seq;
  r["micro_batch"] = {{"size", microBatches_.size},
                      {"count", microBatches_.count},
                      {"last", microBatches_.last},
                      {"largest_fitting", microBatches_.largestFitting},
                      {"chosen_by", microBatches_.automatic ? "auto" : "workload.micro_batch"},
                      {"lm_head_chunks", lmHeadChunks_},
                      {"why", describe(microBatches_)}};
  r["activation_offload"] = {{"enabled", relief_ == ActivationRelief::Offload},
                             {"layers_offloaded", offloadedLayers_},
                             {"layers", config_.model.layers},
                             {"bytes_each_way_per_system", f.offloadedBytes}};
  r["activation_recompute"] = {{"enabled", relief_ == ActivationRelief::Recompute},
                               {"chosen_by", config_.recomputeAuto ? "auto" : "workload.activation_recompute"},
                               {"layers_recomputed", recompute_.layers},
                               {"whole_layers_recomputed", recompute_.whole},
                               {"layers", config_.model.layers},
                               {"why", recomputeWhy_}};
  if (!config_.sparsity.dense())
    r["sparsity"] = {{"density", config_.sparsity.density},
                     {"pattern", firmware::sparsityPatternName(config_.sparsity.pattern)},
                     {"seed", config_.sparsity.seed},
                     {"matrices", "every transformer block's weight matrix; the LM head dense"},
                     {"weights", sparseWeights_},
                     {"nonzero_weights", sparseNonzeros_},
                     {"streamed_bytes_per_weight", firmware::kSparseWaveletBytes}};
  r["tokens_per_step"] = step_.tokens * systems;
  r["steps"] = config_.steps;
  r["dtype"] = pe::precisionName(config_.precision);
  r["precision_opt_level"] = config_.fp16PeSums ? 1 : 0;
  const StepWeights weights = stepWeights();
  r["gemm_precision"] = pe::precisionName(weights.gemmPrecision());
  firmware::GemmShape any;  // every GEMM of the step sums alike
  any.precision = weights.gemmPrecision();
  any.fp32Sums = weights.levelOne();
  r["gemm_reduction_dtype"] = pe::elementTypeName(firmware::sumType(any));
  r["optimizer"] = config_.optimizer;
  r["step_cycles"] = stepCycles_;
  r["step_seconds"] = f.stepSeconds;
  r["samples_per_second"] = samplesPerSecond();
  r["tokens_per_second"] = tokensPerSecond();
  r["model_flops_per_step"] = step_.modelFlops * systems;
  r["achieved_flops_per_second"] = achievedFlopsPerSecond();
  r["utilisation"] = utilisation();
  r["breakdown_cycles"] = {{"gemms", f.gemmCycles}, {"ops", f.opCycles},
                           {"wafer_idle", f.waferIdleCycles}, {"activation_wait", f.activationWaitCycles},
                           {"optimizer_tail", f.optimizerTailCycles},
                           {"gemms_by_pass", f.gemmCyclesByPass}, {"ops_by_kind", f.opCyclesByKind}};
  r["phase_bounds"] = f.phaseBounds;
  r["traffic"] = f.traffic;
  r["memoryx"] = f.memoryx;
  r["per_system"] = f.perSystem;
  r["scaling"] = {{"one_system_step_seconds", f.oneSystemStepSeconds},
                  {"efficiency", f.oneSystemStepSeconds / f.stepSeconds},
                  {"loss_seconds", f.stepSeconds - f.oneSystemStepSeconds},
                  {"swarmx_depth", f.swarmxDepth}};
  r["layers_simulated"] = config_.everyLayer ? "all"
                                             : "each distinct GEMM once, its timing reused for identical layers "
                                               "and for GEMMs whose simulated rows are the same";
  r["wafers_simulated"] = config_.everyWafer ? "every system's" : "one, its timing reused for every system";
  r["gemms"] = f.gemms;
  r["gemm_count"] = step_.gemms.size();
  r["op_count"] = step_.ops.size();
  return r;
}

std::string TrainWorkload::typeSummary() const {
  const StepResults& f = found_;
  const unsigned systems = arch_.cluster.systems;
  std::ostringstream out;
  char line[256];
  std::snprintf(line, sizeof line, "train %s (%s parameters) batch %u x seq %u per system, %u system%s of %ux%u, %s, %s\n",
                config_.model.name.c_str(), std::to_string(config_.model.parameters()).c_str(), config_.batch,
                config_.seq, systems, systems == 1 ? "" : "s", arch_.mesh.width, arch_.mesh.height,
                pe::precisionName(config_.precision), config_.optimizer.c_str());
  out << line;
  if (stepWeights().levelOne())
    out << "  precision level 1: every GEMM sums in fp16 within a PE (fp16 FMACs), in fp32 across PEs\n";
  out << "  micro     " << describe(microBatches_) << "; the LM head in " << lmHeadChunks_
      << (lmHeadChunks_ == 1 ? " chunk" : " chunks") << " of the vocabulary\n";
  if (!config_.sparsity.dense()) {
    std::snprintf(line, sizeof line,
                  "  sparsity  the blocks' matrices at density %g (%s): %llu of %llu weights non-zero, each streamed "
                  "as value and index (%u B); the LM head dense\n",
                  config_.sparsity.density, firmware::sparsityPatternName(config_.sparsity.pattern),
                  (unsigned long long)sparseNonzeros_, (unsigned long long)sparseWeights_, firmware::kSparseWaveletBytes);
    out << line;
  }
  if (relief_ == ActivationRelief::Offload) {
    std::snprintf(line, sizeof line,
                  "  offload   the kept activations of %u of %u layers, %.4g GB out and back per system and step\n",
                  offloadedLayers_, config_.model.layers, double(f.offloadedBytes) / 1e9);
    out << line;
  }
  if (relief_ == ActivationRelief::Recompute) {
    std::snprintf(line, sizeof line,
                  "  recompute %s (of %u), each before its backward pass\n", recomputationText(recompute_).c_str(),
                  config_.model.layers);
    out << line;
    if (!recomputeWhy_.empty()) out << "            " << recomputeWhy_ << "\n";
  }
  std::snprintf(line, sizeof line, "  step      %llu cycles = %.6g s: %.4g samples/s, %.4g tokens/s, %.3g FLOP/s, %.1f%% of peak\n",
                (unsigned long long)stepCycles_, f.stepSeconds, samplesPerSecond(), tokensPerSecond(),
                achievedFlopsPerSecond(), 100 * utilisation());
  out << line;
  out << "  where                        cycles  share\n";
  const auto row = [&](const std::string& name, std::uint64_t cycles) {
    std::snprintf(line, sizeof line, "  %-24s %12llu %5.1f%%\n", name.c_str(), (unsigned long long)cycles,
                  100.0 * double(cycles) / double(stepCycles_));
    out << line;
  };
  for (const auto& [pass, cycles] : f.gemmCyclesByPass) row("GEMMs " + pass, cycles);
  row("ops (cost model)", f.opCycles);
  row("wafer waits for weights", f.waferIdleCycles);
  if (relief_ == ActivationRelief::Offload) row("wafer waits for activations", f.activationWaitCycles);
  row("optimizer after the wafer", f.optimizerTailCycles);
  if (systems > 1) {
    std::snprintf(line, sizeof line, "  scaling   %.1f%% of one system's step (%.4g s), SwarmX depth %u\n",
                  100 * f.oneSystemStepSeconds / f.stepSeconds, f.oneSystemStepSeconds, f.swarmxDepth);
    out << line;
  }
  out << "  streamed GEMMs bound by";
  for (const auto& [pass, byBound] : f.phaseBounds.items())
    for (const auto& [bound, v] : byBound.items())
      out << "  " << pass << ": " << bound << " x" << v["tasks"].get<std::uint64_t>();
  out << "\n";
  std::snprintf(line, sizeof line, "  simulated %zu GEMMs for the step's %zu (%s) on %s\n", simulated_.size(),
                step_.gemms.size(),
                config_.everyLayer ? "every layer"
                                   : "identical products, and products whose simulated rows are the same, reuse their timing",
                config_.everyWafer ? "every system's wafer" : "one wafer");
  out << line;
  return out.str();
}

}  // namespace

std::unique_ptr<workload::Workload> makeTrainWorkload(config::ParamReader& p, const config::ArchConfig& arch,
                                                      const config::RunConfig& run) {
  TrainConfig c;
  const std::string model = p.text("workload.model", std::nullopt, models::modelNames(models::defaultModelDir()));
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
  const std::string micro = p.text("workload.micro_batch", std::string("auto"));
  if (micro != "auto") {
    const bool digits = !micro.empty() && micro.size() <= 7 && micro.find_first_not_of("0123456789") == std::string::npos;
    const unsigned long sequences = digits ? std::stoul(micro) : 0;
    if (sequences < 1 || sequences > c.batch)
      throw config::ConfigError("workload.micro_batch: '" + micro.substr(0, 40) + "' is neither auto nor " +
                                "a number of sequences from 1 to workload.batch = " + std::to_string(c.batch));
    c.microBatch = std::uint32_t(sequences);
  }
  const bool offload = p.choice("workload.activation_offload", {"off", "on"}, std::string("off")) == "on";
  const std::string recompute = p.choice("workload.activation_recompute", {"auto", "off", "on"}, std::string("auto"));
  if (offload && recompute == "on")
    throw config::ConfigError("workload.activation_recompute: on with workload.activation_offload: on; a step "
                              "keeps less on the wafer by one of them, not both");
  c.relief = offload               ? ActivationRelief::Offload
             : recompute == "on" ? ActivationRelief::Recompute
                                 : ActivationRelief::None;
  c.recomputeAuto = !offload && recompute == "auto";
  c.optimizer = p.choice("workload.optimizer", system::optimizerNames(), std::string("adam"));
  c.everyLayer = p.choice("workload.layers", {"representative", "all"}, std::string("representative")) == "all";
  c.everyWafer = p.choice("workload.wafers", {"one", "every"}, std::string("one")) == "every";
  c.sampling = workload::readGemmSampling(p, c.sampling);
  c.precision = p.choice("workload.dtype", pe::kPrecisionNames, pe::Precision::Mixed);
  c.fp16PeSums = p.integer("workload.precision_opt_level", 0, 1, 1) == 1;
  c.sparsity.density = p.real("workload.weight_density", 1e-6, 1, 1.0,
                              "the fraction of each block's weight matrix that is non-zero; 1: dense");
  c.sparsity.pattern = p.choice("workload.weight_sparsity", firmware::kSparsityPatternNames,
                                firmware::SparsityPattern::Uniform);
  c.sparsity.seed = std::uint64_t(p.integer("workload.seed", 0, std::int64_t(1) << 62, 1));
  if (!c.sparsity.dense() && pe::elementBytes(pe::operandType(pe::Opcode::Fmac, c.precision, 1)) != 2) {
    std::ostringstream density;
    density << "workload.weight_density=" << c.sparsity.density;
    throw config::ConfigError(density.str() + ": a sparse weight streams as 16 bits of value beside 16 of index, so "
                              "workload.dtype must be fp16 or mixed, not " + pe::precisionName(c.precision));
  }
  // A run option only this workload has, so it is read here, not in RunConfig.
  c.waferTimingCache = p.text("run.wafer_timing_cache", std::string());
  c.waferTimingKey = waferTimingKey(p.resolved());
  if (run.mode != config::DataMode::Timing)
    throw config::ConfigError("run.mode: the train workload runs in timing mode (its operands carry no data)");
  return std::make_unique<TrainWorkload>(std::move(c), arch, run);
}

}  // namespace wsesim::train
