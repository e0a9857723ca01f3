#pragma once
// Every (router, input port, color) wavelet queue of the mesh.
//
// A full wafer has 745k routers x 5 ports x 24 colors = 89M queues, almost
// all empty at any moment. Each queue has an 8-byte header, always there,
// the five of one (router, color) sharing a cache line; its `depth` wavelet
// slots are a block. Each (router, input port) has a home block, which any
// of its colors takes when it fills from empty while no other color's queue
// is using it. Home blocks are stored slot by slot: slot i of every home,
// in router order, then slot i + 1. A queue holding one wavelet (most
// queues, at most loads) uses its first slot, so the wavelets a cycle
// touches lie in one dense array, in router order, the first slots of a
// router's five homes side by side. A queue that drains keeps its home, so
// one that drains and refills takes no block at all; who uses each home is
// a byte in an array in router order, so finding out costs no other
// color's header. Colors that find the home in use, and every queue
// when blocks are large, take blocks from a shared overflow pool and give
// them back when they drain. Home blocks live in lazily zeroed memory: a
// router that never sees traffic costs nothing.
//
// Queue ids are group * 5 + port, a group being one (router, color): id
// (color * routers + router) * 5 + port.

#include <cstdint>
#include <vector>

#include "hw/fabric/Port.h"
#include "hw/fabric/Wavelet.h"
#include "hw/fabric/ZeroedArray.h"

namespace wsesim::fabric {

// A wavelet in a queue, with the first cycle the router may forward it
// (link or ramp latency elapsed), in 16 bytes: a queue of depth 4 fills one
// cache line, and the first slots of a router's five homes two. The ready
// cycle has 48 bits (FabricKernel stops at cycle 2^47).
struct QueuedWavelet {
  QueuedWavelet() = default;
  QueuedWavelet(const Wavelet& w, std::uint64_t ready)
      : payload(w.payload), destX(w.destX), destY(w.destY), readyAt(ready), color(w.color), control(w.control),
        last(w.last) {}
  Wavelet wavelet() const { return Wavelet{payload, std::uint8_t(color), bool(control), bool(last), destX, destY}; }

  std::uint32_t payload;
  std::uint16_t destX, destY;
  std::uint64_t readyAt : 48;
  std::uint64_t color : 8;
  std::uint64_t control : 1;
  std::uint64_t last : 1;
};
static_assert(sizeof(QueuedWavelet) == 16, "a queued wavelet is 16 bytes");

class WaveletQueues {
 public:
  using QueueId = std::uint64_t;

  // One queue's bookkeeping; all-zero is an empty queue without a block.
  struct Header {
    std::uint32_t block;  // 1 + the queue's block, 0 while it has none
    std::uint8_t head;
    std::uint8_t count;
    // Not the queues' own: the fabric kernel keeps here the outputs the
    // head wavelet has still to be sent through (a PortMask), so routing a
    // queue reads one header and not a table per output.
    std::uint8_t pending;
  };

  // `homes` = routers x ports; `queues` a multiple of it.
  WaveletQueues(std::size_t queues, std::size_t homes, unsigned depth);

  // The header of (router, port, color): the kernel looks a queue up once
  // per use and works on the header from then on.
  Header& header(std::uint32_t router, unsigned port, unsigned color) const {
    return headers_[std::size_t(color) * routers_ + router].port[port];
  }
  Header& header(QueueId q) const { return headers_[q / kPortCount].port[q % kPortCount]; }

  unsigned depth() const { return depth_; }
  const QueuedWavelet& front(const Header& h) const { return slot(h.block, h.head); }
  const QueuedWavelet& at(const Header& h, unsigned i) const {
    return slot(h.block, (h.head + i) % depth_);  // off the hot path
  }

  // Appends to the queue of (router, port, color) whose header is `h`;
  // returns its size after the push.
  unsigned push(Header& h, std::uint32_t router, unsigned port, const Wavelet& w, std::uint64_t readyAt) {
    if (!h.count) takeBlock(h, router, port);
    unsigned tail = h.head + h.count;
    if (tail >= depth_) tail -= depth_;
    slot(h.block, tail) = QueuedWavelet{w, readyAt};
    return ++h.count;
  }

  void pop(Header& h) {
    h.head = std::uint8_t(h.head + 1u == depth_ ? 0 : h.head + 1);
    if (--h.count) return;
    // A drained queue starts again at its block's first slot: a queue that
    // rarely holds more than one wavelet keeps to one cache line.
    h.head = 0;
    if (h.block > homes_)
      giveBack(h);
    else
      homeBusy_[h.block - 1] = HomeUse::Free;  // kept, but free for another color to take
  }

  // The same by id (tests, reports).
  unsigned size(QueueId q) const { return header(q).count; }
  bool empty(QueueId q) const { return header(q).count == 0; }
  const QueuedWavelet& front(QueueId q) const { return front(header(q)); }
  const QueuedWavelet& at(QueueId q, unsigned i) const { return at(header(q), i); }
  unsigned push(QueueId q, const Wavelet& w, std::uint64_t readyAt) {
    const std::size_t group = q / kPortCount;
    return push(header(q), std::uint32_t(group % routers_), unsigned(q % kPortCount), w, readyAt);
  }
  void pop(QueueId q) { pop(header(q)); }

  // Hints the memory system that a queue's header will be needed soon.
  void prefetchHeader(std::uint32_t router, unsigned color) const {
    __builtin_prefetch(&headers_[std::size_t(color) * routers_ + router]);
  }
  // Same for the slot the next push into the queue of (router, port) with
  // header `h` writes (its home's first, if it is empty).
  void prefetchTail(const Header& h, std::uint32_t router, unsigned port) const {
    if (!h.count) {
      if (homes_) __builtin_prefetch(&slot(std::uint32_t(homeOf(router, port)) + 1, 0), 1);
      return;
    }
    unsigned tail = h.head + h.count;
    if (tail >= depth_) tail -= depth_;
    __builtin_prefetch(&slot(h.block, tail), 1);
  }

  std::size_t hostBytes() const;

 private:
  struct alignas(64) HeaderGroup {
    Header port[kPortCount];
  };

  static std::size_t homeOf(std::uint32_t router, unsigned port) { return std::size_t(router) * kPortCount + port; }
  // `block` as a header holds it: 1 + the block's index. Slot i of home
  // block b is at i * homes_ + b; overflow blocks follow all homes' slots,
  // each block's slots together.
  QueuedWavelet& slot(std::uint32_t block, unsigned i) const {
    const std::size_t b = std::size_t(block) - 1;
    return slots_[b < homes_ ? i * homes_ + b : b * depth_ + i];
  }

  // With home blocks, blocks [0, homes_) are the homes, block router * 5 +
  // port that of (router, port), and overflow blocks follow (at most
  // queues - homes of them are ever in use at once: only a non-empty queue
  // without the home holds one); without, every block is an overflow block.
  // Overflow blocks come from a free list (as headers hold them), then by
  // bumping `overflowEnd_`, the number of blocks ever used.
  //
  // Called when the queue fills from empty. It may still hold its home from
  // before, but another color may have taken that over since; a header's
  // home is valid only while the queue is non-empty.
  void takeBlock(Header& h, std::uint32_t router, unsigned port) {
    if (homes_) {
      const std::size_t home = homeOf(router, port);
      if (homeBusy_[home] == HomeUse::Free) {
        homeBusy_[home] = HomeUse::Busy;
        h.block = std::uint32_t(home) + 1;
        return;
      }
    }
    if (!freeOverflow_.empty()) {
      h.block = freeOverflow_.back();
      freeOverflow_.pop_back();
      return;
    }
    h.block = ++overflowEnd_;
  }
  void giveBack(Header& h) {
    freeOverflow_.push_back(h.block);
    h.block = 0;
  }

  unsigned depth_;
  std::size_t routers_;
  // Home blocks pay off while a block is a few cache lines; deep queues
  // would spread one touched page per (router, port) over the wafer, so
  // they take every block from the compact overflow pool instead and
  // homes_ is 0.
  std::size_t homes_;
  ZeroedArray<HeaderGroup> headers_;
  // Per home block: whether a non-empty queue is using it. (Not a byte
  // array: stores to one alias every pointer the kernel holds.)
  enum class HomeUse : std::uint8_t { Free, Busy };
  ZeroedArray<HomeUse> homeBusy_;
  // Room for every queue to hold a block at once; only touched pages are backed.
  ZeroedArray<QueuedWavelet> slots_;
  std::uint32_t overflowEnd_;
  std::vector<std::uint32_t> freeOverflow_;
};

}  // namespace wsesim::fabric
