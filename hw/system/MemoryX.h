#pragma once
// MemoryX: the cluster's weight store and optimizer, as a loosely-timed
// TLM-2.0 module (docs/system-model.md).
//
// Weight streaming: one thread walks the schedule (the order the wafer needs
// layers in; a layer the wafer needs several times in a row, as a GEMM
// that re-streams its weights for each pass over its rows, is fetched once
// and streamed `repeats` times as one write). Each layer is fetched from storage into a staging buffer, at
// the storage bandwidth, then written out through `weights_out`. The staging
// buffers hold the layer streaming out plus `prefetch_layers` fetched ahead,
// so the next layer's fetch overlaps the current layer's stream (and with it
// the wafer's compute, which paces the stream). What the fetch cannot hide
// shows as exposed time before a layer's stream starts. A layer is not
// fetched while its gradients are due or its optimizer update is still
// running: the next training step streams updated weights (WSE-FACTS,
// "MemoryX"). Prefetches go to storage before the current layer streams
// out, so the updates its gradients bring do not hold them back.
//
// Gradients: SwarmX writes each layer's summed gradients to `gradients_in`;
// MemoryX then runs the optimizer update on its storage, bound by the bytes
// the optimizer touches or by its FLOPs, one layer at a time. A step in
// micro-batches sends a layer's gradients once per micro-batch: all but the
// last are added into an accumulator in storage (written, then read and
// written again), and the last one's update reads the sum.
//
// Activation offload: a system writes the activations its backward pass
// will need to `activations_in` and reads them back from there, through
// SwarmX (its own, neither broadcast nor summed); both go through storage.

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <deque>
#include <map>
#include <vector>

#include "hw/system/SystemParams.h"
#include "hw/system/Link.h"
#include "hw/system/ModelWeights.h"
#include "hw/system/OptimizerModel.h"
#include "hw/system/PayloadPool.h"

namespace wsesim::system {

// One entry of the schedule: a layer's weights, streamed `repeats` times
// back to back; with `gradients`, the wafer sends the layer's gradients
// back after it (a backward pass), so the layer is not fetched again until
// they have updated it; with `accumulate` as well, they are one micro-batch's
// of several, summed in storage, and the layer may be fetched again at once.
struct StreamRequest {
  StreamRequest(std::size_t layer = 0, unsigned repeats = 1, bool gradients = false, bool accumulate = false)
      : layer(layer), repeats(repeats), gradients(gradients), accumulate(gradients && accumulate) {}
  std::size_t layer;
  unsigned repeats;
  bool gradients;
  bool accumulate;
};

// One layer's way out of MemoryX, in absolute simulated time.
struct LayerStream {
  std::size_t layer = 0;
  sc_core::sc_time fetchStart, fetchEnd;    // storage -> staging buffer
  sc_core::sc_time streamStart, streamEnd;  // weights_out: the write's start and completion
  // streamStart minus the previous layer's streamEnd (for the first layer,
  // minus when streaming started): how long the stream stood still waiting for this fetch.
  sc_core::sc_time exposed;
};

enum class UpdateBound { StorageBandwidth, OptimizerThroughput };
const char* updateBoundName(UpdateBound bound);

struct OptimizerUpdate {
  std::size_t layer = 0;
  sc_core::sc_time gradientsArrived, start, end;
  std::uint64_t bytesTouched = 0;
  double flops = 0;
  UpdateBound bound = UpdateBound::StorageBandwidth;
};

// A micro-batch's gradients added into the layer's accumulator in storage.
struct GradientAccumulation {
  std::size_t layer = 0;
  sc_core::sc_time gradientsArrived, end;
  std::uint64_t bytesTouched = 0;
};

// One system's offloaded activations into storage (a write) or out of it
// (a read), in absolute simulated time.
struct ActivationTransfer {
  std::uint64_t address = 0, bytes = 0;
  bool write = true;
  sc_core::sc_time offered, end;  // storage's transfer: its first byte offered, its last byte done
};

class MemoryX : public sc_core::sc_module {
 public:
  // Writes of layer weights, in schedule order, towards SwarmX. Address: the
  // layer's base address (layerAddress); length: its streamed bytes.
  tlm_utils::simple_initiator_socket<MemoryX> weights_out;
  // Writes of a layer's summed gradients from SwarmX, at the layer's base address.
  tlm_utils::simple_target_socket<MemoryX> gradients_in;
  // Writes and reads of one system's offloaded activations, from SwarmX.
  // A read's StreamTiming, if it carries one, is set to when its bytes
  // leave storage.
  tlm_utils::simple_target_socket<MemoryX> activations_in;

  SC_HAS_PROCESS(MemoryX);
  // Throws config::ConfigError naming the model's size and
  // arch.memoryx.capacity_bytes when the weights and optimizer state do not fit.
  MemoryX(sc_core::sc_module_name name, const MemoryXParams& params, ModelWeights model,
          const OptimizerModel& optimizer);

  // Layers to stream, by index into the model, in order: set before
  // sc_start() to stream from time zero, or start streaming later from
  // inside the simulation.
  void setSchedule(std::vector<StreamRequest> schedule) { schedule_ = std::move(schedule); }
  void startStreaming(std::vector<StreamRequest> schedule);

  const ModelWeights& model() const { return model_; }
  std::uint64_t layerAddress(std::size_t layer) const { return layerAddress_.at(layer); }
  // Weights and optimizer state, as checked against the capacity.
  std::uint64_t storedBytes() const;

  const std::vector<LayerStream>& streams() const { return streams_; }
  const std::vector<OptimizerUpdate>& updates() const { return updates_; }
  const std::vector<GradientAccumulation>& accumulations() const { return accumulations_; }
  const std::vector<ActivationTransfer>& activationTransfers() const { return activationTransfers_; }
  const LinkStats& storageStats() const { return storage_.stats(); }

 private:
  void streamWeights();
  void receiveGradients(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  void serveActivations(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);

  MemoryXParams params_;
  ModelWeights model_;
  const OptimizerModel& optimizer_;
  std::vector<std::uint64_t> layerAddress_;
  std::map<std::uint64_t, std::size_t> layerAt_;  // base address -> layer
  std::vector<StreamRequest> schedule_;
  sc_core::sc_event start_;
  std::vector<sc_core::sc_time> updatedAt_;  // per layer: when its last update ended
  std::vector<bool> gradientsDue_;           // per layer: streamed for a backward pass, not yet updated
  // Per layer, in arrival order: whether each gradient write the schedule
  // asked for is accumulated; and how many have been since the last update.
  std::vector<std::deque<bool>> arrivals_;
  std::vector<unsigned> accumulated_;
  Link storage_;  // fetches, optimizer traffic and activations share it, each in the earliest idle time
  sc_core::sc_time optimizerFreeAt_ = sc_core::SC_ZERO_TIME;
  PayloadPool payloads_;
  std::vector<LayerStream> streams_;
  std::vector<OptimizerUpdate> updates_;
  std::vector<GradientAccumulation> accumulations_;
  std::vector<ActivationTransfer> activationTransfers_;
};

}  // namespace wsesim::system
