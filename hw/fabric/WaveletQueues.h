#pragma once
// Every (router, input port, color) wavelet queue of the mesh.
//
// A full wafer has 745k routers x 5 ports x 24 colors = 89M queues, almost
// all empty at any moment. Each queue has an 8-byte header, always there,
// the five of one (router, color) sharing a cache line;
// its `depth` wavelet slots are a block taken when the queue first holds a
// wavelet and given back when it drains. Each (router, input port) has a
// home block beside its neighbours' (used by the first of its colors to
// need one), so traffic walks memory in router order; further colors on the
// same port, and every queue when blocks are large, take blocks from a
// shared overflow pool. Home blocks live in
// lazily zeroed memory: a router that never sees traffic costs nothing.
//
// Queue ids are group * 5 + port, a group being one (router, color), and
// id % homes is the (router, port) whose home block the queue may use.

#include <cstdint>
#include <vector>

#include "hw/fabric/Port.h"
#include "hw/fabric/Wavelet.h"
#include "hw/fabric/ZeroedArray.h"

namespace wsesim::fabric {

struct QueuedWavelet {
  Wavelet wavelet;
  // First cycle the router may forward it (link or ramp latency elapsed).
  std::uint64_t readyAt = 0;
};

class WaveletQueues {
  struct Header;

 public:
  using QueueId = std::uint64_t;

  // Where one queue lives: its header, and the (router, port) whose home
  // block it may use with the header that records whether that is taken. The kernel makes one per queue it touches and passes
  // it around, so the hot path neither divides nor looks a header up twice.
  class Queue {
   public:
    Queue() = default;  // no queue, until assigned one (left uninitialised: grant arrays are hot)

   private:
    friend class WaveletQueues;
    Header* header_;
    Header* homeOwner_;
    std::uint32_t home_;
    Queue(Header* header, Header* homeOwner, std::uint32_t home)
        : header_(header), homeOwner_(homeOwner), home_(home) {}
  };

  // `homes` = routers x ports; `queues` a multiple of it.
  WaveletQueues(std::size_t queues, std::size_t homes, unsigned depth);

  // The queue of (router, port, color): id (color * routers + router) * 5 + port.
  Queue queue(std::uint32_t router, unsigned port, unsigned color) const {
    return Queue(&headers_[std::size_t(color) * routers_ + router].port[port], &headers_[router].port[port],
                 router * kPortCount + port);
  }
  Queue queue(QueueId q) const {
    const std::size_t home = homeOf(q);
    return Queue(&header(q), &header(home), std::uint32_t(home));
  }

  unsigned depth() const { return depth_; }
  unsigned size(Queue q) const { return q.header_->count; }
  bool empty(Queue q) const { return q.header_->count == 0; }
  const QueuedWavelet& front(Queue q) const { return slot(q.header_->block, q.header_->head); }
  const QueuedWavelet& at(Queue q, unsigned i) const {
    const Header& h = *q.header_;
    return slot(h.block, (h.head + i) % depth_);  // off the hot path
  }

  // Returns the queue's size after the push.
  unsigned push(Queue q, const Wavelet& w, std::uint64_t readyAt) {
    Header& h = *q.header_;
    if (h.count == 0) {
      h.block = takeBlock(q);
      h.head = 0;
    }
    unsigned tail = h.head + h.count;
    if (tail >= depth_) tail -= depth_;
    slot(h.block, tail) = QueuedWavelet{w, readyAt};
    return ++h.count;
  }

  void pop(Queue q) {
    Header& h = *q.header_;
    h.head = std::uint8_t(h.head + 1u == depth_ ? 0 : h.head + 1);
    if (--h.count == 0) giveBack(q, h.block);
  }

  // The same by id (tests, reports).
  unsigned size(QueueId q) const { return size(queue(q)); }
  bool empty(QueueId q) const { return empty(queue(q)); }
  const QueuedWavelet& front(QueueId q) const { return front(queue(q)); }
  const QueuedWavelet& at(QueueId q, unsigned i) const { return at(queue(q), i); }
  unsigned push(QueueId q, const Wavelet& w, std::uint64_t readyAt) { return push(queue(q), w, readyAt); }
  void pop(QueueId q) { pop(queue(q)); }

  // Hints the memory system that queue q's header will be needed soon.
  void prefetchHeader(Queue q) const { __builtin_prefetch(q.header_); }
  // Same for q's head wavelet (its header must be in cache to find it).
  void prefetchFront(Queue q) const {
    const Header& h = *q.header_;
    if (h.count) __builtin_prefetch(&slot(h.block, h.head));
  }

  std::size_t hostBytes() const;

 private:
  struct Header {  // all-zero is an empty queue
    std::uint32_t block;  // valid while count > 0
    std::uint8_t head;
    std::uint8_t count;
    // Used in the first header of each (router, port) only: its home block is taken.
    std::uint8_t homeTaken;
  };
  struct alignas(64) HeaderGroup {
    Header port[kPortCount];
  };

  Header& header(QueueId q) const { return headers_[q / kPortCount].port[q % kPortCount]; }
  // q % homes_ without a division instruction (Lemire's fastmod; ids < 2^32).
  std::size_t homeOf(QueueId q) const {
    const std::uint64_t low = homesReciprocal_ * std::uint32_t(q);
    return std::size_t((static_cast<unsigned __int128>(low) * homes_) >> 64);
  }
  QueuedWavelet& slot(std::uint32_t block, unsigned i) const { return slots_[std::size_t(block) * depth_ + i]; }

  // With home blocks, blocks [0, homes_) are the homes and overflow blocks
  // follow (at most queues - homes of them are ever in use at once: a port's
  // home is free only when none of its queues needs an overflow block to be
  // taken); without, every block is an overflow block. Overflow blocks come
  // from a free list, then by bumping `overflowEnd_`.
  std::uint32_t takeBlock(Queue q) {
    if (useHomes_ && !q.homeOwner_->homeTaken) {
      q.homeOwner_->homeTaken = 1;
      return q.home_;
    }
    if (!freeOverflow_.empty()) {
      const std::uint32_t b = freeOverflow_.back();
      freeOverflow_.pop_back();
      return b;
    }
    return overflowEnd_++;
  }
  // A queue's only home block is its own (router, port)'s.
  void giveBack(Queue q, std::uint32_t block) {
    if (useHomes_ && block < homes_)
      q.homeOwner_->homeTaken = 0;
    else
      freeOverflow_.push_back(block);
  }

  unsigned depth_;
  std::size_t homes_;
  std::size_t routers_;  // homes_ / ports
  std::uint64_t homesReciprocal_;
  // Home blocks pay off while a block is a few cache lines; deep queues
  // would spread one touched page per (router, port) over the wafer, so
  // they take every block from the compact overflow pool instead.
  bool useHomes_;
  ZeroedArray<HeaderGroup> headers_;
  // Room for every queue to hold a block at once; only touched pages are backed.
  ZeroedArray<QueuedWavelet> slots_;
  std::uint32_t overflowEnd_;
  std::vector<std::uint32_t> freeOverflow_;
};

}  // namespace wsesim::fabric
