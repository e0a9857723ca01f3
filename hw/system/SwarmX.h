#pragma once
// SwarmX: the broadcast/reduce tree between MemoryX and N systems, as one
// loosely-timed TLM-2.0 module holding the whole tree (docs/system-model.md
// says why one module and not one per node).
//
// Broadcast: a weight payload written to `from_memoryx` is written to every
// system through `to_systems`, each copy annotated with the time its last
// byte reaches that system and carrying its StreamTiming (first and last
// byte), so a system can consume it as it streams in.
// Reduce: the systems write gradient payloads of one address to
// `from_systems` (cut-through from their StreamTiming when they carry one:
// a wafer sends gradients out as it computes them); each node sums its
// children's payloads as they stream through (cut-through, at line rate),
// and once all N are in, the sum is written to MemoryX through
// `to_memoryx`. In functional mode payloads are fp32 arrays and really
// summed; in timing mode they carry no data (PayloadPool.h).
//
// Unicast: a system's offloaded activations (written to MemoryX and read
// back, `activations_from_systems`, the i-th binding system i) cross only
// the edges between that system and MemoryX, neither copied nor summed, and
// reach MemoryX through `activations_to_memoryx`.
//
// Timing: every tree edge is a Link per direction at the link bandwidth
// (NIC bandwidth x NICs per link); each node adds the node latency and
// forwards as the bytes arrive, so a payload of B bytes crosses the tree in
// B / bandwidth + depth x node latency when nothing else is in the way.

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <map>
#include <vector>

#include "hw/system/SystemParams.h"
#include "hw/system/Link.h"
#include "hw/system/PayloadPool.h"
#include "hw/system/SwarmXTree.h"

namespace wsesim::system {

// A finished reduction, in absolute simulated time.
struct Reduction {
  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
  sc_core::sc_time firstSent;  // the earliest system's write
  sc_core::sc_time lastSent;   // the latest system's write
  sc_core::sc_time arrived;    // the sum's last byte at MemoryX
};

class SwarmX : public sc_core::sc_module {
 public:
  // Weight payloads from MemoryX, to broadcast.
  tlm_utils::simple_target_socket<SwarmX> from_memoryx;
  // Summed gradient payloads, to MemoryX.
  tlm_utils::simple_initiator_socket<SwarmX> to_memoryx;
  // Weight copies to the systems; the i-th binding is system i.
  tlm_utils::multi_passthrough_initiator_socket<SwarmX> to_systems;
  // Gradient payloads from the systems; the i-th binding is system i.
  tlm_utils::multi_passthrough_target_socket<SwarmX> from_systems;
  // Each system's activation writes and reads; the i-th binding is system i.
  tlm_utils::multi_passthrough_target_socket<SwarmX> activations_from_systems;
  tlm_utils::simple_initiator_socket<SwarmX> activations_to_memoryx;

  SwarmX(sc_core::sc_module_name name, const SwarmXParams& params, unsigned systems, bool functional);

  const SwarmXTree& tree() const { return tree_; }
  // Over every tree edge, towards the systems (broadcast, and activations
  // read back) and towards MemoryX (reduce, and activations offloaded).
  LinkStats broadcastStats() const;
  LinkStats reduceStats() const;
  const std::vector<Reduction>& reductions() const { return reductions_; }
  const PayloadPool& payloads() const { return payloads_; }

 private:
  // A node's running sum for one reduction.
  struct PartialSum {
    unsigned arrived = 0;
    sc_core::sc_time head, tail;  // of its children's streams, the latest
    tlm::tlm_generic_payload* sum = nullptr;
  };
  struct PendingReduction {
    Reduction record;
    std::vector<std::vector<PartialSum>> nodes;  // [level][index], levels 0 .. depth - 1
    std::vector<bool> contributed;               // per system
  };

  void end_of_elaboration() override;
  void broadcast(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  void reduce(int system, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  void unicast(int system, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  // The tree's entries from the root (level 0) down to `system` (level depth).
  std::vector<unsigned> pathTo(unsigned system) const;
  // Entry (level, index) has sent `carrying` over its link to its parent as
  // `sent`; the parent adds it in, and forwards when complete (the root to MemoryX).
  void passUp(PendingReduction& r, unsigned level, unsigned index, const LinkTransfer& sent,
              tlm::tlm_generic_payload& carrying);
  void deliverToMemoryX(PendingReduction& r, const LinkTransfer& sent, tlm::tlm_generic_payload& sum);

  SwarmXTree tree_;
  sc_core::sc_time nodeLatency_;
  bool functional_;
  // [level][index]: the link from entry (level, index) to its parent (level 0: to MemoryX).
  std::vector<std::vector<Link>> down_, up_;
  std::map<std::uint64_t, PendingReduction> pending_;  // by address
  std::vector<Reduction> reductions_;
  PayloadPool payloads_;
};

}  // namespace wsesim::system
