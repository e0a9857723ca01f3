#include "testbench/train/StepOnCluster.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "hw/pe/OpKind.h"

namespace wsesim::train {
namespace {

std::string matrixName(const models::StreamedGemm& g) {
  return g.layer == models::kHeadLayer ? g.name : "layer " + std::to_string(g.layer) + " " + g.name;
}

}  // namespace

StepOnCluster::StepOnCluster(const models::TransformerModel& model, const models::TrainingStep& step,
                             pe::Precision precision, std::uint32_t offloadedLayers, const StreamedMatrix& streamedAs)
    : step_(step), offloadedLayers_(offloadedLayers) {
  const unsigned weightBytes = pe::elementBytes(pe::operandType(pe::Opcode::Fmac, precision, 1));
  gradientBytes_ = pe::elementBytes(pe::operandType(pe::Opcode::Fmac, precision, -1));
  weights_.name = model.name;
  std::map<std::pair<std::uint32_t, std::string>, std::size_t> entry;
  std::uint64_t streamed = 0;  // the matrices' parameters, zeros included
  for (const models::StreamedGemm& g : step.gemms) {
    auto [it, fresh] = entry.try_emplace({g.layer, g.name}, weights_.layers.size());
    if (fresh) {
      const std::optional<system::LayerWeights> as = streamedAs ? streamedAs(g) : std::nullopt;
      weights_.layers.push_back(as ? *as : system::LayerWeights{"", g.k * g.n, weightBytes});
      weights_.layers.back().name = matrixName(g);
      streamed += g.k * g.n;
    }
    matrixOf_.push_back(it->second);
  }
  unstreamed_ = weights_.layers.size();
  // Which GEMMs move activations: the first forward GEMM reading an
  // offloaded layer's input sends it out, the first weight gradient reading
  // it (in its micro-batch's backward pass) takes it back.
  std::map<std::pair<std::uint32_t, std::string>, ActivationMove> away;  // by (layer, input)
  std::uint64_t nextAddress = 0, held = 0;
  for (const models::StreamedGemm& g : step.gemms) {
    ActivationMove move;
    if (g.layer != models::kHeadLayer && g.layer < offloadedLayers_) {
      const std::pair<std::uint32_t, std::string> input{g.layer, g.input};
      const auto there = away.find(input);
      if (g.pass == GemmPass::Forward && there == away.end()) {
        move.address = nextAddress;
        move.offloadBytes = g.m * g.k * weightBytes;  // the GEMMs' inputs are all of one type
        away.emplace(input, move);
        nextAddress += move.offloadBytes;
        mostOffloaded_ = std::max(mostOffloaded_, held += move.offloadBytes);
      } else if (g.pass == GemmPass::WeightGrad && there != away.end()) {
        move.address = there->second.address;
        move.fetchBytes = there->second.offloadBytes;
        held -= move.fetchBytes;
        away.erase(there);
      }
    }
    moves_.push_back(move);
  }
  if (model.parameters() > streamed)
    weights_.layers.push_back(
        system::LayerWeights{"embeddings, norms and biases", model.parameters() - streamed, weightBytes});
}

unsigned StepOnCluster::repeats(std::size_t gemm, const GemmTiming& timing) const {
  return system::streamRepeats(timing.streamedBytes, weights_.layers[matrixOf_[gemm]].streamedBytes());
}

std::vector<system::StreamRequest> StepOnCluster::schedule(const std::vector<GemmTiming>& gemms,
                                                           std::uint32_t steps) const {
  // In a step of micro-batches, MemoryX sums a matrix's gradients until
  // its last backward pass of the step, and updates it after that one.
  std::vector<std::size_t> lastBackward(weights_.layers.size(), step_.gemms.size());
  for (std::size_t i = 0; i < step_.gemms.size(); ++i)
    if (step_.gemms[i].pass == GemmPass::BackwardData) lastBackward[matrixOf_[i]] = i;
  std::vector<system::StreamRequest> order;
  for (std::uint32_t s = 0; s < steps; ++s)
    for (std::size_t i = 0; i < step_.gemms.size(); ++i)
      if (step_.gemms[i].pass != GemmPass::WeightGrad) {
        const bool backward = step_.gemms[i].pass == GemmPass::BackwardData;
        order.emplace_back(matrixOf_[i], repeats(i, gemms[i]), backward, backward && lastBackward[matrixOf_[i]] != i);
      }
  return order;
}

system::WaferWork StepOnCluster::waferWork(const std::vector<GemmTiming>& gemms,
                                           const std::vector<std::uint64_t>& opCycles, std::uint32_t steps,
                                           const system::MemoryX& memoryx, const config::ArchConfig& arch) const {
  system::WaferWork work;
  // The backward pass by layer: the first task of the layer's and of the one before it in the pass.
  bool inBackward = false;
  std::uint32_t backwardLayer = 0;
  std::size_t layerStart = 0, previousLayerStart = 0;
  // The forward pass by layer: each layer's last task that offloads, if any.
  std::vector<std::pair<std::uint32_t, std::optional<std::size_t>>> forwardLayers;
  for (std::uint32_t s = 0; s < steps; ++s) {
    for (const models::StepItem& item : step_.order) {
      // A recomputed layer's forward pass opens its backward pass.
      const bool backward = item.isGemm ? step_.gemms[item.index].pass != GemmPass::Forward ||
                                              step_.gemms[item.index].recompute
                                        : step_.ops[item.index].backward || step_.ops[item.index].recompute;
      const std::uint32_t layer = item.isGemm ? step_.gemms[item.index].layer : step_.ops[item.index].layer;
      system::WaferTask t;
      if (backward && (!inBackward || backwardLayer != layer)) {
        previousLayerStart = inBackward ? layerStart : work.size();
        layerStart = work.size();
        backwardLayer = layer;
        forwardLayers.clear();
      } else if (!backward && (forwardLayers.empty() || forwardLayers.back().first != layer)) {
        // An offloaded layer's activations take the room of the one two before it, once that one's have left.
        const bool offloaded = layer != models::kHeadLayer && layer < offloadedLayers_;
        if (offloaded && forwardLayers.size() >= 2) t.afterOffloadOf = forwardLayers[forwardLayers.size() - 2].second;
        forwardLayers.emplace_back(layer, std::nullopt);
      }
      inBackward = backward;
      if (!item.isGemm) {
        const models::WaferOp& op = step_.ops[item.index];
        t.name = op.name + (op.backward ? " backward" : op.recompute ? " recompute" : "");
        t.kind = "op";
        t.duration = system::cyclesToTime(opCycles[item.index], arch.clockHz);
        work.push_back(t);
        continue;
      }
      const models::StreamedGemm& g = step_.gemms[item.index];
      const ActivationMove& move = moves_[item.index];
      t.activationAddress = move.address;
      t.offloadBytes = move.offloadBytes;
      t.fetchBytes = move.fetchBytes;
      if (move.offloadBytes) forwardLayers.back().second = work.size();
      if (move.fetchBytes) t.fetchFrom = previousLayerStart;
      const GemmTiming& timing = gemms[item.index];
      const std::size_t matrix = matrixOf_[item.index];
      t.name = weights_.layers[matrix].name + " " + g.stepPart();
      t.kind = g.stepPart();
      t.duration = system::cyclesToTime(timing.cycles, arch.clockHz);
      if (g.pass == GemmPass::WeightGrad) {
        t.gradients = true;
        t.gradientAddress = memoryx.layerAddress(matrix);
        t.gradientBytes = weights_.layers[matrix].parameters * gradientBytes_;
      } else {
        t.streamed = true;
        t.streamBytes = weights_.layers[matrix].streamedBytes() * repeats(item.index, timing);
        t.drain = system::cyclesToTime(timing.cycles - std::min(timing.cycles, timing.inputEnd), arch.clockHz);
      }
      work.push_back(t);
    }
    if (unstreamed_ < weights_.layers.size()) {
      // Their gradients are ready at the end of the backward pass and leave then.
      system::WaferTask t;
      t.name = weights_.layers[unstreamed_].name + " gradients";
      t.kind = "gradients";
      t.gradients = true;
      t.gradientAddress = memoryx.layerAddress(unstreamed_);
      t.gradientBytes = weights_.layers[unstreamed_].parameters * gradientBytes_;
      work.push_back(t);
    }
  }
  return work;
}

}  // namespace wsesim::train
