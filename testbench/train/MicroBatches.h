#pragma once
// How a system's batch is split into micro-batches, as the vendor's
// compiler does (WSE-FACTS "Training runs: batch, micro-batch, offload"):
// the wafer runs a whole forward and backward pass per micro-batch, with
// the weights streamed in again for each, and MemoryX sums the
// micro-batches' gradients before it updates the weights once per step.
//
// A micro-batch fits when, on every PE, the activations the backward pass
// needs (the input of every forward GEMM of every layer, kept on the wafer
// from the forward pass, or with workload.activation_offload those of the
// layers not offloaded and room for two that are, or with
// workload.activation_recompute what the recomputed layers still read and
// room for what one of them recomputes) leave room for the
// buffers of each of its GEMMs (the firmware's own SRAM check).
// `auto` takes as few micro-batches as fit and makes them as even as
// possible: `count` of `size` sequences, the last one `last`.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace wsesim::train {

struct MicroBatches {
  std::uint32_t size = 0;   // sequences of every micro-batch but the last
  std::uint32_t last = 0;   // of the last (size when they divide the batch)
  std::uint32_t count = 0;  // micro-batches per step
  std::uint32_t largestFitting = 0;
  bool automatic = true;    // chosen by `auto`, or given by workload.micro_batch
  bool fewest = true;       // by `auto`: as few as fit, or more for a better step (TrainWorkload)
};

// What keeps `sequences` per micro-batch from fitting, or nothing.
using MicroBatchMisfit = std::function<std::optional<std::string>(std::uint32_t sequences)>;

// `requested`: workload.micro_batch's sequences, or nullopt for `auto`.
// Throws config::ConfigError naming workload.micro_batch (or, for `auto`,
// workload.batch) and what does not fit, with the micro-batch that would.
MicroBatches chooseMicroBatches(std::uint32_t batch, std::optional<std::uint32_t> requested,
                                const MicroBatchMisfit& misfit);

// `auto`'s `count` micro-batches (at least as many as fit, as even as they
// can be: fewer when fewer of that size cover the batch), the largest
// that fits being `largestFitting`.
MicroBatches evenMicroBatches(std::uint32_t batch, std::uint32_t count, std::uint32_t largestFitting);

// "auto: 2 micro-batches of 56 sequences (the largest that fits: 60)"
std::string describe(const MicroBatches& m);

}  // namespace wsesim::train
