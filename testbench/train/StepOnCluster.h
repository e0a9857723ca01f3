#pragma once
// How the train workload hands a training step to the system model: the
// model's weights as MemoryX holds them (one entry per weight matrix, plus
// one for the parameters no GEMM streams: embeddings, norms, biases), the
// order MemoryX streams them in (forward through the layers, backward in
// reverse), and each wafer's tasks, timed by the cycle-level run.
//
// Activation offload (docs/training.md): the activations the first
// `offloadedLayers` layers keep for the backward pass leave the wafer as the
// first forward GEMM reading each runs, and come back for the first weight
// gradient reading it, fetched from the start of the backward pass of the
// layer above (so one layer's fetch overlaps the layer before it). The
// forward pass of an offloaded layer waits until the activations of the
// layer two before it have left: the wafer keeps room for two offloaded
// layers' (MicroBatches.h).

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "hw/config/ArchConfig.h"
#include "hw/energy/ActionCounts.h"
#include "hw/pe/OpKind.h"
#include "hw/system/MemoryX.h"
#include "hw/system/WaferWork.h"
#include "models/TrainingStep.h"
#include "models/TransformerModel.h"

namespace wsesim::train {

// A GEMM of the step as one wafer ran it, in cycles.
struct GemmTiming {
  std::uint64_t cycles = 0;         // the whole GEMM
  std::uint64_t inputEnd = 0;       // from its start to its last weight in
  std::uint64_t streamedBytes = 0;  // weights that entered at the edge (several passes may re-stream them)
  energy::ActionCounts actions;     // the whole GEMM's on the wafer (SimulatedGemm::fullActions)
};

class StepOnCluster {
 public:
  // How MemoryX keeps the matrix a GEMM of the step streams, where not
  // dense in `precision` (sparse: its non-zeros, value and index; the
  // entry takes the step's name for it); nullopt: dense.
  using StreamedMatrix = std::function<std::optional<system::LayerWeights>(const models::StreamedGemm&)>;

  StepOnCluster(const models::TransformerModel& model, const models::TrainingStep& step, pe::Precision precision,
                std::uint32_t offloadedLayers = 0, const StreamedMatrix& streamedAs = {});

  const system::ModelWeights& weights() const { return weights_; }
  // The most bytes of offloaded activations MemoryX holds at once, per system.
  std::uint64_t mostOffloadedBytes() const { return mostOffloaded_; }

  // `gemms[i]` times the step's GEMM i, `opCycles[j]` its op j; `memoryx` gives the layers' addresses.
  system::WaferWork waferWork(const std::vector<GemmTiming>& gemms, const std::vector<std::uint64_t>& opCycles,
                              std::uint32_t steps, const system::MemoryX& memoryx,
                              const config::ArchConfig& arch) const;
  std::vector<system::StreamRequest> schedule(const std::vector<GemmTiming>& gemms, std::uint32_t steps) const;

 private:
  // Times the wafer takes GEMM i's weights (system::streamRepeats).
  unsigned repeats(std::size_t gemm, const GemmTiming& timing) const;

  const models::TrainingStep& step_;
  system::ModelWeights weights_;
  std::vector<std::size_t> matrixOf_;  // per GEMM of the step: its entry in weights_
  std::size_t unstreamed_ = 0;         // the entry of the parameters no GEMM streams, if any (else == size)
  unsigned gradientBytes_ = 0;         // per parameter, as the wafer's outputs leave it
  std::uint32_t offloadedLayers_ = 0;
  // Per GEMM of the step: the activations it offloads or fetches back, at `address` in MemoryX.
  struct ActivationMove {
    std::uint64_t address = 0, offloadBytes = 0, fetchBytes = 0;
  };
  std::vector<ActivationMove> moves_;
  std::uint64_t mostOffloaded_ = 0;
};

}  // namespace wsesim::train
