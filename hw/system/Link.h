#pragma once
// One direction of a point-to-point link: the single source of truth for
// transfer timing in the system model (MemoryX storage, SwarmX tree edges,
// I/O ring channels). A transfer of B bytes occupies the sender's side for
// B / bandwidth (serialisation); each byte arrives `latency` after it left.
// Transfers in one direction are serialised, in one of two orders
// (LinkOrder): as they are offered, a second transfer leaving when the first
// has left; or each in the earliest idle time from its offer on.

#include <systemc>

#include <cstdint>
#include <map>
#include <utility>

namespace wsesim::system {

// When a transfer crossed the link, in absolute simulated time.
struct LinkTransfer {
  sc_core::sc_time start;  // the first byte leaves
  sc_core::sc_time head;   // the first byte arrives
  sc_core::sc_time tail;   // the last byte arrives
};

// What a link carried: the figures a run reports per link class.
struct LinkStats {
  std::uint64_t bytes = 0;
  std::uint64_t transfers = 0;
  sc_core::sc_time busy = sc_core::SC_ZERO_TIME;  // serialisation time, summed

  LinkStats& operator+=(const LinkStats& other);
};

enum class LinkOrder {
  Offered,      // a wire or a FIFO channel: in the order offered
  // A store serving requests as they come due: in a loosely-timed model
  // its users offer transfers out of time order (one thread runs ahead of
  // another), and one offered late for an early time takes the idle time
  // there, ahead of those offered before it for later.
  EarliestGap,
};

class Link {
 public:
  // `bytesPerSecond` must be positive.
  Link(double bytesPerSecond, sc_core::sc_time latency, LinkOrder order = LinkOrder::Offered);

  sc_core::sc_time serialisation(std::uint64_t bytes) const;

  // A transfer whose bytes are all at the sender from `offered`.
  LinkTransfer send(const sc_core::sc_time& offered, std::uint64_t bytes) { return forward(offered, offered, bytes); }
  // Cut-through: the bytes reach the sender as a stream whose first byte is
  // there at `headReady` and last at `tailReady`; the link cannot finish
  // before the last byte is in, nor start before the first.
  LinkTransfer forward(const sc_core::sc_time& headReady, const sc_core::sc_time& tailReady, std::uint64_t bytes);

  double bytesPerSecond() const { return bytesPerSecond_; }
  const sc_core::sc_time& latency() const { return latency_; }
  const LinkStats& stats() const { return stats_; }

 private:
  // Where the transfer leaving from `headReady` on (its last byte no earlier
  // than `tailReady`) fits: its first and last byte's departure.
  std::pair<sc_core::sc_time, sc_core::sc_time> place(const sc_core::sc_time& headReady,
                                                      const sc_core::sc_time& tailReady,
                                                      const sc_core::sc_time& serialised) const;

  double bytesPerSecond_;
  sc_core::sc_time latency_;
  LinkOrder order_;
  sc_core::sc_time freeAt_ = sc_core::SC_ZERO_TIME;  // Offered: when the last byte offered so far has left
  std::map<sc_core::sc_time, sc_core::sc_time> busy_;  // EarliestGap: when it sends, start -> end
  LinkStats stats_;
};

}  // namespace wsesim::system
