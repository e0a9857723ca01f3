#include "hw/system/SwarmX.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "hw/system/StreamTiming.h"

namespace wsesim::system {
namespace {

void addFloats(tlm::tlm_generic_payload& into, const tlm::tlm_generic_payload& from) {
  const std::size_t n = from.get_data_length() / sizeof(float);
  for (std::size_t i = 0; i < n; ++i) {
    float a, b;
    std::memcpy(&a, into.get_data_ptr() + i * sizeof(float), sizeof a);
    std::memcpy(&b, from.get_data_ptr() + i * sizeof(float), sizeof b);
    a += b;
    std::memcpy(into.get_data_ptr() + i * sizeof(float), &a, sizeof a);
  }
}

LinkStats sum(const std::vector<std::vector<Link>>& links) {
  LinkStats total;
  for (const auto& level : links)
    for (const Link& l : level) total += l.stats();
  return total;
}

}  // namespace

SwarmX::SwarmX(sc_core::sc_module_name name, const SwarmXParams& params, unsigned systems,
               bool functional)
    : sc_core::sc_module(name),
      from_memoryx("from_memoryx"),
      to_memoryx("to_memoryx"),
      to_systems("to_systems"),
      from_systems("from_systems"),
      activations_from_systems("activations_from_systems"),
      activations_to_memoryx("activations_to_memoryx"),
      tree_(systems, params.fanOut),
      nodeLatency_(params.nodeLatencyS, sc_core::SC_SEC),
      functional_(functional) {
  // The cable's latency is part of the node latency, so links add none.
  for (unsigned level = 0; level <= tree_.depth(); ++level) {
    down_.emplace_back(tree_.width(level), Link(params.linkBandwidthBytesPerS(), sc_core::SC_ZERO_TIME));
    up_.emplace_back(tree_.width(level), Link(params.linkBandwidthBytesPerS(), sc_core::SC_ZERO_TIME));
  }
  from_memoryx.register_b_transport(this, &SwarmX::broadcast);
  from_systems.register_b_transport(this, &SwarmX::reduce);
  activations_from_systems.register_b_transport(this, &SwarmX::unicast);
}

void SwarmX::end_of_elaboration() {
  if (to_systems.size() != tree_.systems() || from_systems.size() != tree_.systems() ||
      activations_from_systems.size() != tree_.systems())
    SC_REPORT_ERROR(name(), ("to_systems, from_systems and activations_from_systems need one binding per system (" +
                             std::to_string(tree_.systems()) + "), have " + std::to_string(to_systems.size()) +
                             ", " + std::to_string(from_systems.size()) + " and " +
                             std::to_string(activations_from_systems.size()))
                                .c_str());
}

LinkStats SwarmX::broadcastStats() const { return sum(down_); }
LinkStats SwarmX::reduceStats() const { return sum(up_); }

void SwarmX::broadcast(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  if (payload.get_command() != tlm::TLM_WRITE_COMMAND) {
    payload.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  const std::uint64_t bytes = payload.get_data_length();
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  // Level by level from MemoryX: every edge carries the payload once, each
  // node forwarding the stream to its children a node latency after it.
  std::vector<LinkTransfer> reached{down_[0][0].send(now + delay, bytes)};
  for (unsigned level = 1; level <= tree_.depth(); ++level) {
    std::vector<LinkTransfer> next;
    for (unsigned j = 0; j < tree_.width(level); ++j) {
      const LinkTransfer& atParent = reached[tree_.parent(j)];
      next.push_back(down_[level][j].forward(atParent.head + nodeLatency_, atParent.tail + nodeLatency_, bytes));
    }
    reached = std::move(next);
  }
  // The write completes when the last system has taken its copy.
  sc_core::sc_time done = now + delay;
  for (unsigned system = 0; system < tree_.systems(); ++system) {
    sc_core::sc_time atSystem = reached[system].tail - now;
    const StreamTimingScope stream(payload, reached[system].head, reached[system].tail);
    to_systems[int(system)]->b_transport(payload, atSystem);
    if (payload.is_response_error()) return;
    done = std::max(done, now + atSystem);
  }
  delay = done - now;
}

void SwarmX::reduce(int system, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  if (payload.get_command() != tlm::TLM_WRITE_COMMAND) {
    payload.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  const std::uint64_t bytes = payload.get_data_length();
  if (functional_ && (!payload.get_data_ptr() || bytes % sizeof(float) != 0)) {
    payload.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);  // functional gradients are fp32 arrays
    return;
  }
  const sc_core::sc_time sent = sc_core::sc_time_stamp() + delay;
  const std::uint64_t address = payload.get_address();
  auto [it, fresh] = pending_.try_emplace(address);
  PendingReduction& r = it->second;
  if (fresh) {
    r.record.address = address;
    r.record.bytes = bytes;
    r.record.firstSent = r.record.lastSent = sent;
    for (unsigned level = 0; level < tree_.depth(); ++level) r.nodes.emplace_back(tree_.width(level));
    r.contributed.assign(tree_.systems(), false);
  }
  if (bytes != r.record.bytes || r.contributed[unsigned(system)]) {
    // Every system sends one payload of the same size per address.
    payload.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  r.contributed[unsigned(system)] = true;
  r.record.firstSent = std::min(r.record.firstSent, sent);
  r.record.lastSent = std::max(r.record.lastSent, sent);
  const LinkTransfer uplink = forwardOver(up_[tree_.depth()][unsigned(system)], payload, sent);
  // The system's write is done when its last byte has reached the tree.
  delay = uplink.tail - sc_core::sc_time_stamp();
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
  passUp(r, tree_.depth(), unsigned(system), uplink, payload);
  if (std::count(r.contributed.begin(), r.contributed.end(), true) == tree_.systems()) pending_.erase(it);
}

std::vector<unsigned> SwarmX::pathTo(unsigned system) const {
  std::vector<unsigned> path(tree_.depth() + 1);
  path[tree_.depth()] = system;
  for (unsigned level = tree_.depth(); level > 0; --level) path[level - 1] = tree_.parent(path[level]);
  return path;
}

void SwarmX::unicast(int system, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  const bool write = payload.get_command() == tlm::TLM_WRITE_COMMAND;
  if (!write && payload.get_command() != tlm::TLM_READ_COMMAND) {
    payload.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  const std::uint64_t bytes = payload.get_data_length();
  const sc_core::sc_time now = sc_core::sc_time_stamp(), offered = now + delay;
  const std::vector<unsigned> path = pathTo(unsigned(system));
  const unsigned depth = tree_.depth();
  // The stream's timing as it crosses the tree: the system's, or one of our own.
  std::optional<StreamTimingScope> own;
  if (!payload.get_extension<StreamTiming>()) own.emplace(payload, offered, offered);
  StreamTiming& stream = *payload.get_extension<StreamTiming>();
  // Over one edge, a node latency after the node it leaves had the bytes
  // (the edges at the system's and at MemoryX's end leave no node).
  const auto cross = [&](Link& link, bool fromNode) {
    const sc_core::sc_time wait = fromNode ? nodeLatency_ : sc_core::SC_ZERO_TIME;
    const LinkTransfer t = link.forward(stream.head + wait, stream.tail + wait, bytes);
    stream.head = t.head;
    stream.tail = t.tail;
  };
  if (write) {
    cross(up_[depth][path[depth]], false);
    const sc_core::sc_time inTree = stream.tail;  // the system's write is done when its last byte is in the tree
    for (unsigned level = depth; level-- > 0;) cross(up_[level][path[level]], true);
    sc_core::sc_time toMemoryx = stream.tail - now;
    activations_to_memoryx->b_transport(payload, toMemoryx);
    delay = inTree - now;
    return;
  }
  // A read: MemoryX sets when the bytes leave its storage; they stream down from there.
  sc_core::sc_time atMemoryx = delay;
  activations_to_memoryx->b_transport(payload, atMemoryx);
  if (payload.is_response_error()) return;
  for (unsigned level = 0; level <= depth; ++level) cross(down_[level][path[level]], level > 0);
  delay = stream.tail - now;
}

void SwarmX::passUp(PendingReduction& r, unsigned level, unsigned index, const LinkTransfer& sent,
                    tlm::tlm_generic_payload& carrying) {
  if (level == 0) {
    deliverToMemoryX(r, sent, carrying);
    return;
  }
  const unsigned parent = tree_.parent(index);
  PartialSum& node = r.nodes[level - 1][parent];
  if (node.arrived == 0) {
    node.sum = &payloads_.allocate(r.record.bytes, functional_);
    node.sum->set_command(tlm::TLM_WRITE_COMMAND);
    node.sum->set_address(r.record.address);
    node.head = sent.head;
    node.tail = sent.tail;
  }
  node.head = std::max(node.head, sent.head);
  node.tail = std::max(node.tail, sent.tail);
  if (functional_) addFloats(*node.sum, carrying);
  if (++node.arrived < tree_.children(level - 1, parent)) return;
  // All children in: the node's output streams a node latency behind its slowest input.
  const LinkTransfer out =
      up_[level - 1][parent].forward(node.head + nodeLatency_, node.tail + nodeLatency_, r.record.bytes);
  passUp(r, level - 1, parent, out, *node.sum);
  node.sum->release();
  node.sum = nullptr;
}

void SwarmX::deliverToMemoryX(PendingReduction& r, const LinkTransfer& sent, tlm::tlm_generic_payload& sum) {
  sc_core::sc_time delay = sent.tail - sc_core::sc_time_stamp();
  to_memoryx->b_transport(sum, delay);
  if (sum.is_response_error())
    SC_REPORT_ERROR(name(), ("MemoryX refused the gradients at address " + std::to_string(r.record.address) + ": " +
                             sum.get_response_string())
                                .c_str());
  r.record.arrived = sent.tail;
  reductions_.push_back(r.record);
}

}  // namespace wsesim::system
