#pragma once
// Storage for the per-(router, input port, color) wavelet queues.
//
// A full wafer has 745k routers x 5 ports x 24 colors = 89M queues, almost
// all empty at any moment, so queues are fixed-depth rings taken from a
// shared pool when they first hold a wavelet and returned when they drain.
// Handles are stable; references into the pool are not (it grows).

#include <cstdint>
#include <vector>

#include "hw/fabric/Port.h"
#include "hw/fabric/Wavelet.h"

namespace wsesim::fabric {

struct QueuedWavelet {
  Wavelet wavelet;
  // First cycle the router may forward it (link or ramp latency elapsed).
  std::uint64_t readyAt = 0;
};

class WaveletQueuePool {
 public:
  using Handle = std::uint32_t;
  static constexpr Handle kNone = ~Handle(0);

  explicit WaveletQueuePool(unsigned depth);

  Handle acquire();
  void release(Handle h);

  unsigned depth() const { return depth_; }
  unsigned size(Handle h) const { return headers_[h].count; }
  bool empty(Handle h) const { return headers_[h].count == 0; }

  // A slot freed by a pop becomes usable by the upstream router one cycle
  // later (the credit travels back over the link), so the answer does not
  // depend on the order in which routers are visited within a cycle.
  bool hasSpace(Handle h, std::uint64_t now) const {
    const Header& q = headers_[h];
    return q.count + (q.poppedAtPlusOne == now + 1 ? 1u : 0u) < depth_;
  }

  const QueuedWavelet& front(Handle h) const { return slots_[std::size_t(h) * depth_ + headers_[h].head]; }
  const QueuedWavelet& at(Handle h, unsigned i) const {
    const Header& q = headers_[h];
    return slots_[std::size_t(h) * depth_ + (q.head + i) % depth_];
  }

  void push(Handle h, const Wavelet& w, std::uint64_t readyAt) {
    Header& q = headers_[h];
    slots_[std::size_t(h) * depth_ + (q.head + q.count) % depth_] = QueuedWavelet{w, readyAt};
    ++q.count;
  }

  void pop(Handle h, std::uint64_t now) {
    Header& q = headers_[h];
    q.head = std::uint8_t((q.head + 1) % depth_);
    --q.count;
    q.sent = 0;
    q.poppedAtPlusOne = now + 1;
  }

  // Outputs the head wavelet has already been copied to (multicast forks
  // leave the queue only once every listed output has taken its copy).
  PortMask sent(Handle h) const { return headers_[h].sent; }
  void markSent(Handle h, PortMask outputs) { headers_[h].sent |= outputs; }

  std::size_t queuesInUse() const { return headers_.size() - free_.size(); }
  std::size_t bytesReserved() const;

 private:
  struct Header {
    std::uint64_t poppedAtPlusOne = 0;  // 0: never popped
    std::uint8_t head = 0;
    std::uint8_t count = 0;
    PortMask sent = 0;
  };

  unsigned depth_;
  std::vector<Header> headers_;
  std::vector<QueuedWavelet> slots_;
  std::vector<Handle> free_;
};

}  // namespace wsesim::fabric
