#pragma once
// Every (router, input port, color) wavelet queue of the mesh.
//
// A full wafer has 745k routers x 5 ports x 24 colors = 89M queues, almost
// all empty at any moment. Each (router, input port) has a home: a block of
// `depth` wavelet slots and a header beside it in a dense array in router
// order, which one of its colors takes when its queue fills from empty
// while no other color's queue is in it, and leaves when the queue drains.
// At most loads, most non-empty queues are the only one of their input
// port, so the queues a cycle works on, whatever their colors, have their
// headers and wavelets in two dense arrays walked in router order. A color
// that finds the home in use keeps its queue under its own header, one of
// an 8-byte header per queue (always there, zero while the queue is empty),
// with a block from a shared overflow pool that it gives back when the
// queue drains. Own headers are in (router, port, color) order: under
// heavy many-color traffic, where they are used, a router's are together
// and the cycle's walk reads them front to back.
// Which color uses each home is a byte per home, so looking a queue up
// costs that byte and then one header. Home slots are stored slot by slot:
// slot i of every home, in router order, then slot i + 1; a queue holding
// one wavelet (most queues, at most loads) uses its first. Everything lives
// in lazily zeroed memory: a router that never sees traffic costs nothing
// (with deep queues, which have no homes, a byte per port that says so).
//
// Queue ids are group * 5 + port, a group being one (router, color): id
// (color * routers + router) * 5 + port.

#include <atomic>
#include <cstdint>
#include <vector>

#include "hw/fabric/Port.h"
#include "hw/fabric/Prefetch.h"
#include "hw/fabric/QueuedWavelet.h"
#include "hw/fabric/ZeroedArray.h"

namespace wsesim::fabric {

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

  // Overflow blocks that drained queues gave back, for queues that fill
  // next. The kernel keeps one per band of the mesh (FabricKernel::Band):
  // a band's worker thread gives back and takes its own routers' blocks.
  // Which block a queue gets is no part of any result.
  struct alignas(64) OverflowPool {  // two threads' pools must not share a cache line
    std::vector<std::uint32_t> free;
  };

  // `homes` = routers x ports; `queues` a multiple of it; `pools` overflow pools.
  WaveletQueues(std::size_t queues, std::size_t homes, unsigned depth, unsigned pools = 1);

  // The header of (router, port, color)'s queue: the kernel looks a queue
  // up once per use and works on the header from then on. A non-empty
  // queue's header stays where it is until the queue drains.
  Header& header(std::uint32_t router, unsigned port, unsigned color) const {
    const std::size_t home = homeOf(router, port);
    if (homeUser_[home] == userOf(color)) return homeHeaders_[home];
    return headers_[ownOf(router, port, color)];
  }
  Header& header(QueueId q) const {
    const std::size_t group = q / kPortCount;
    return header(std::uint32_t(group % routers_), unsigned(q % kPortCount), unsigned(group / routers_));
  }

  unsigned depth() const { return depth_; }
  const QueuedWavelet& front(const Header& h) const { return slot(h.block, h.head); }
  const QueuedWavelet& at(const Header& h, unsigned i) const {
    return slot(h.block, (h.head + i) % depth_);  // off the hot path
  }

  // Gives (router, port, color)'s empty queue a block holding `w`, its
  // first wavelet, and returns the header it has until it drains: the
  // home's, if no other color's queue is in it (without reading the
  // queue's own header), else its own, with a block from `pool`. (A
  // drained queue's head is 0.)
  Header& open(std::uint32_t router, unsigned port, unsigned color, const QueuedWavelet& w, unsigned pool = 0) {
    const std::size_t home = homeOf(router, port);
    if (homeFree(home)) {
      homeUser_[home] = userOf(color);
      Header& h = homeHeaders_[home];
      h.block = std::uint32_t(home) + 1;
      h.count = 1;
      slots_[home] = w;  // the home's first slot
      return h;
    }
    Header& own = headers_[ownOf(router, port, color)];
    if (std::vector<std::uint32_t>& free = pools_[pool].free; !free.empty()) {
      own.block = free.back();
      free.pop_back();
    } else {
      // Bands' threads may open queues at once (their PEs' or traffic
      // sources' injections): a block never used before is counted atomically.
      own.block = overflowEnd_.fetch_add(1, std::memory_order_relaxed) + 1;
    }
    own.count = 1;
    slot(own.block, 0) = w;
    return own;
  }

  // Appends to a non-empty queue with room.
  Header& push(Header& h, const QueuedWavelet& w) {
    slot(h.block, tailOf(h)) = w;
    ++h.count;
    return h;
  }

  // Pops the head; a drained queue's overflow block goes to `pool`.
  void pop(Header& h, unsigned pool = 0) {
    h.head = std::uint8_t(h.head + 1u == depth_ ? 0 : h.head + 1);
    if (--h.count) return;
    // A drained queue starts again at its block's first slot: a home
    // queue that rarely holds more than one wavelet keeps to the dense
    // array of first slots.
    h.head = 0;
    if (h.block > homes_)
      giveBack(h, pool);
    else
      homeUser_[h.block - 1] = HomeUser::None;
  }

  // The same by id (tests, reports).
  unsigned size(QueueId q) const { return header(q).count; }
  bool empty(QueueId q) const { return header(q).count == 0; }
  const QueuedWavelet& front(QueueId q) const { return front(header(q)); }
  const QueuedWavelet& at(QueueId q, unsigned i) const { return at(header(q), i); }
  unsigned push(QueueId q, const Wavelet& w, std::uint64_t readyAt) {
    const std::size_t group = q / kPortCount;
    const QueuedWavelet queued(w, readyAt);
    Header& h = empty(q) ? open(std::uint32_t(group % routers_), unsigned(q % kPortCount), unsigned(group / routers_),
                                queued)
                         : push(header(q), queued);
    return h.count;
  }
  void pop(QueueId q) { pop(header(q)); }

  // Hints the memory system that (router, port)'s non-empty queues, those
  // of `colors` (not none), will be read: first their headers (the home's
  // and the lines of own headers that span the colors: reading headers one
  // by one to find them cost more than the lines), then (once those are
  // in) a queue's head wavelet.
  void prefetchHeaders(std::uint32_t router, unsigned port, std::uint32_t colors) const {
    prefetch(&homeHeaders_[homeOf(router, port)]);
    const auto line = [](const Header& h) { return reinterpret_cast<std::uintptr_t>(&h) & ~std::uintptr_t(63); };
    const std::uintptr_t first = line(headers_[ownOf(router, port, unsigned(__builtin_ctz(colors)))]);
    const std::uintptr_t last = line(headers_[ownOf(router, port, 31u - unsigned(__builtin_clz(colors)))]);
    for (std::uintptr_t a = first; a <= last; a += 64) prefetch(reinterpret_cast<const void*>(a));
  }
  void prefetchFront(std::uint32_t router, unsigned port, unsigned color) const {
    prefetch(&front(header(router, port, color)));
  }

  // Hints the memory system that a push into (router, port)'s queues is
  // coming: their home's user and header.
  void prefetchHome(std::uint32_t router, unsigned port) const {
    prefetch(&homeUser_[homeOf(router, port)]);
    prefetch(&homeHeaders_[homeOf(router, port)]);
  }
  // Then, for a push into (router, port, color)'s queue: its own header,
  // unless the queue is in the home or will take it (whose header is
  // prefetched above).
  void prefetchOwnHeader(std::uint32_t router, unsigned port, unsigned color) const {
    const std::size_t home = homeOf(router, port);
    if (homeUser_[home] != userOf(color) && !homeFree(home)) prefetch(&headers_[ownOf(router, port, color)]);
  }
  // Last, the slot that push writes (none for a queue that will take a
  // block from the overflow pool: which one is known only then).
  void prefetchTail(std::uint32_t router, unsigned port, unsigned color) const {
    const std::size_t home = homeOf(router, port);
    if (homeFree(home)) return prefetch(&slots_[home]);  // the home's first slot
    const Header& h = header(router, port, color);
    if (h.count) prefetch(&slot(h.block, tailOf(h)));
  }

  // Queues outside their home, each in an overflow block.
  std::size_t overflowed() const {
    std::size_t free = 0;
    for (const OverflowPool& p : pools_) free += p.free.size();
    return overflowEnd_.load(std::memory_order_relaxed) - homes_ - free;
  }

  std::size_t hostBytes() const;
  // Before construction: every array at its full size, every slot touched
  // (the most hostBytes() can reach, when every queue has overflowed).
  static std::size_t plannedHostBytes(std::size_t queues, std::size_t homes, unsigned depth);

 private:
  // Per home: 1 + the color whose queue is in it, None while it is free;
  // Unused everywhere when there are no homes (deep queues), so that the
  // hot path asks one byte, not also whether homes exist.
  // (Not a byte array: stores to one alias every pointer the kernel holds.)
  enum class HomeUser : std::uint8_t { None, Unused = 0xff };
  static HomeUser userOf(unsigned color) { return HomeUser(color + 1); }
  // Whether the next queue of `home`'s (router, port) to fill takes the home.
  bool homeFree(std::size_t home) const { return homeUser_[home] == HomeUser::None; }

  // The slot the next push into a queue with room writes.
  unsigned tailOf(const Header& h) const {
    const unsigned tail = h.head + h.count;
    return tail >= depth_ ? tail - depth_ : tail;
  }
  static std::size_t homeOf(std::uint32_t router, unsigned port) { return std::size_t(router) * kPortCount + port; }
  std::size_t ownOf(std::uint32_t router, unsigned port, unsigned color) const {
    return homeOf(router, port) * colors_ + color;
  }
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
  // outside its home holds one); without, every block is an overflow block.
  // Overflow blocks come from a pool's free list (as headers hold them),
  // then by bumping `overflowEnd_`, the number of blocks ever used.
  void giveBack(Header& h, unsigned pool) {
    pools_[pool].free.push_back(h.block);
    h.block = 0;
  }

  unsigned depth_;
  std::size_t routers_;
  unsigned colors_;
  // Home blocks pay off while a block is a few cache lines; deep queues
  // would spread one touched page per (router, port) over the wafer, so
  // they take every block from the compact overflow pool instead, homes_
  // is 0 and every home is marked Unused.
  std::size_t homes_;
  ZeroedArray<Header> headers_;      // per queue, by (router, port, color)
  ZeroedArray<Header> homeHeaders_;  // per (router, port)
  ZeroedArray<HomeUser> homeUser_;   // per (router, port)
  // Room for every queue to hold a block at once; only touched pages are backed.
  ZeroedArray<QueuedWavelet> slots_;
  std::atomic<std::uint32_t> overflowEnd_;
  std::vector<OverflowPool> pools_;
};

}  // namespace wsesim::fabric
