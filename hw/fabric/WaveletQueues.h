#pragma once
// Every (router, input port, color) wavelet queue of the mesh.
//
// A full wafer has 745k routers x 5 ports x 24 colors = 89M queues, almost
// all empty at any moment. Each queue has an 8-byte header, always there;
// its `depth` wavelet slots are a block taken when the queue first holds a
// wavelet and given back when it drains. Each (router, input port) has a
// home block beside its neighbours' (used by the first of its colors to
// need one), so traffic walks memory in router order; further colors on the
// same port take blocks from a shared overflow pool. Home blocks live in
// lazily zeroed memory: a router that never sees traffic costs nothing.
//
// Queue ids must be laid out so that id % homes() is the (router, port).

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

class WaveletQueues {
 public:
  using QueueId = std::uint64_t;

  // `homes` = routers x ports; `queues` a multiple of it.
  WaveletQueues(std::size_t queues, std::size_t homes, unsigned depth);
  ~WaveletQueues();
  WaveletQueues(const WaveletQueues&) = delete;
  WaveletQueues& operator=(const WaveletQueues&) = delete;

  unsigned depth() const { return depth_; }
  unsigned size(QueueId q) const { return headers_[q].count; }
  bool empty(QueueId q) const { return headers_[q].count == 0; }

  // A slot freed by a pop becomes usable by the upstream router only in the
  // next cycle (the credit travels back over the link), so the answer does
  // not depend on the order in which routers are visited within a cycle.
  bool hasSpace(QueueId q) const {
    const Header& h = headers_[q];
    return unsigned(h.count) + h.popped < depth_;
  }

  const QueuedWavelet& front(QueueId q) const { return slot(headers_[q].block, headers_[q].head); }
  const QueuedWavelet& at(QueueId q, unsigned i) const {
    const Header& h = headers_[q];
    return slot(h.block, (h.head + i) % depth_);
  }

  void push(QueueId q, const Wavelet& w, std::uint64_t readyAt) {
    Header& h = headers_[q];
    if (h.block == kNoBlock) h.block = takeBlock(q % homes_);
    slot(h.block, (h.head + h.count) % depth_) = QueuedWavelet{w, readyAt};
    ++h.count;
  }

  void pop(QueueId q) {
    Header& h = headers_[q];
    h.head = std::uint8_t(h.head + 1u == depth_ ? 0 : h.head + 1);
    --h.count;
    h.sent = 0;
    h.popped = 1;
    popped_.push_back(q);
  }

  // Outputs the head wavelet has already been copied to (a multicast head
  // leaves the queue only once every listed output has taken its copy).
  PortMask sent(QueueId q) const { return headers_[q].sent; }
  void markSent(QueueId q, PortMask outputs) { headers_[q].sent |= outputs; }

  // Ends the cycle: pops become visible upstream, drained queues give their
  // slots back to the pool.
  void endCycle();

  std::size_t hostBytes() const;

 private:
  static constexpr std::uint32_t kNoBlock = ~std::uint32_t(0);
  struct Header {
    std::uint32_t block = kNoBlock;
    std::uint8_t head = 0;
    std::uint8_t count = 0;
    PortMask sent = 0;
    std::uint8_t popped = 0;  // popped this cycle
  };

  std::uint32_t takeBlock(std::size_t home);
  void giveBack(std::uint32_t block);
  // Blocks below homes_ are home blocks, the rest index the overflow pool.
  QueuedWavelet& slot(std::uint32_t block, unsigned i) const {
    return block < homes_ ? home_[std::size_t(block) * depth_ + i]
                          : overflow_[std::size_t(block - homes_) * depth_ + i];
  }

  unsigned depth_;
  std::size_t homes_;
  std::vector<Header> headers_;
  QueuedWavelet* home_;  // homes_ x depth_ slots, calloc'd
  std::vector<std::uint8_t> homeTaken_;
  mutable std::vector<QueuedWavelet> overflow_;
  std::vector<std::uint32_t> freeOverflow_;
  std::vector<QueueId> popped_;
};

}  // namespace wsesim::fabric
