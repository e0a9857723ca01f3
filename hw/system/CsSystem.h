#pragma once
// One CS system: its network interface, its I/O ring and its wafer, as a
// loosely-timed TLM-2.0 module. Weight writes from SwarmX arrive at
// `weights_in`, are spread over the ring's channels (one write per channel
// through the ring's target sockets) and feed the wafer's next streamed
// task; gradients the wafer computes leave through the ring's egress and
// are written to SwarmX through `gradients_out`, cut-through as they are
// computed.
//
// The wafer runs its tasks (WaferWork) one at a time, in order. A streamed
// task starts when the wafer is free and its first weight is in, and ends
// no earlier than its duration after the start nor than its drain after
// its last weight is in:
//   end = max(start + duration, last weight in + drain).
// A weight write completes when the wafer has taken its last byte
// (end - drain), which holds MemoryX's next layer back when the wafer is
// the slower side: backpressure through the sockets.

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <string>
#include <vector>

#include "hw/wafer/IoParams.h"
#include "hw/system/IoRing.h"
#include "hw/system/PayloadPool.h"
#include "hw/system/StreamTiming.h"
#include "hw/system/WaferWork.h"

namespace wsesim::system {

// What held a task back: nothing but the wafer (compute), its weight
// stream arriving late or slowly, or its offloaded activations coming back.
enum class TaskBound { Compute, WeightStream, Activations };
const char* taskBoundName(TaskBound bound);

struct TaskRecord {
  std::size_t task = 0;  // index into the work
  sc_core::sc_time start, end;
  sc_core::sc_time waited;  // the wafer idle before it: end - duration - when it was free
  TaskBound bound = TaskBound::Compute;
};

class CsSystem : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<CsSystem> weights_in;
  tlm_utils::simple_initiator_socket<CsSystem> gradients_out;
  // Offloaded activations: written out and read back (WaferTask).
  tlm_utils::simple_initiator_socket<CsSystem> activations;

  CsSystem(sc_core::sc_module_name name, const wafer::IoParams& io, std::uint32_t meshRows);

  // The wafer's tasks, and when it can begin them; before its first
  // weights arrive. The tasks before the first streamed one run at once,
  // those after a streamed one, up to the next, as soon as it ends (they
  // wait for no weights).
  void setWork(WaferWork work, const sc_core::sc_time& begin);

  const WaferWork& work() const { return work_; }
  const std::vector<TaskRecord>& records() const { return records_; }
  // When the wafer finished its last task so far.
  const sc_core::sc_time& waferFree() const { return waferFree_; }
  const IoRing& ioRing() const { return ring_; }

 private:
  void takeWeights(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  void leaveRing(int channel, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  // Runs the tasks from the cursor up to the next streamed one.
  void runUnstreamed();
  // The task's start, no earlier than its fetched activations are in and
  // the offload it waits for has left; issues the fetches that begin with
  // it. True when activations held it back.
  bool startTask(TaskRecord& record);
  void fetch(std::size_t task, const sc_core::sc_time& at);
  // What the task sends out as it runs: gradients and offloaded activations.
  void sendOutputs(std::size_t task, const sc_core::sc_time& start, const sc_core::sc_time& end);
  // Writes `bytes` for `address`, computed from `start` to `end`, through
  // the ring's egress and on through `socket`; returns when the write is done.
  sc_core::sc_time sendOut(tlm_utils::simple_initiator_socket<CsSystem>& socket, std::uint64_t address, std::uint64_t bytes,
               const sc_core::sc_time& start, const sc_core::sc_time& end, const std::string& what);
  // Writes `payload` through `channels`, a share per channel, each part
  // streaming from `head` to `tail`; returns when its bytes crossed (first
  // byte of any part, last of all).
  StreamTiming spread(tlm::tlm_generic_payload& payload,
                      sc_core::sc_vector<tlm_utils::simple_initiator_socket_tagged<CsSystem>>& channels,
                      const sc_core::sc_time& head, const sc_core::sc_time& tail);

  IoRing ring_;
  // The network interface's side of each ring channel, and the wafer's.
  sc_core::sc_vector<tlm_utils::simple_initiator_socket_tagged<CsSystem>> to_ring_;
  sc_core::sc_vector<tlm_utils::simple_initiator_socket_tagged<CsSystem>> wafer_out_;
  sc_core::sc_vector<tlm_utils::simple_target_socket_tagged<CsSystem>> from_ring_;
  WaferWork work_;
  std::size_t cursor_ = 0;  // the next task to run
  sc_core::sc_time waferFree_ = sc_core::SC_ZERO_TIME;
  std::vector<TaskRecord> records_;
  std::vector<std::vector<std::size_t>> fetchesAt_;  // per task: the tasks whose fetch begins with it
  std::vector<sc_core::sc_time> fetched_;            // per task: when its fetched activations are in
  std::vector<sc_core::sc_time> offloaded_;          // per task: when its offloaded activations have left
  PayloadPool payloads_;
};

}  // namespace wsesim::system
