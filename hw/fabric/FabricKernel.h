#pragma once
// The flat cycle kernel of the wafer's fabric.
//
// One object steps every router of the mesh. State is held as arrays over
// routers (structure of arrays), only routers holding wavelets are visited,
// and per input port a bitmask says which colors have a non-empty queue, so
// a cycle costs time in proportion to the traffic, not to the mesh size.
//
// Per cycle, every active router offers the ready head of each of its
// (input port, color) queues to the outputs its route names; each output
// grants one contender, round-robin over (input port, color), among those
// whose downstream queue has room. A granted wavelet is ready at the next
// router after hop_latency cycles (ramp_latency to or from the PE). The
// outcome does not depend on the order routers are visited in.

#include <cstdint>
#include <string>
#include <vector>

#include "hw/fabric/ColorRouteTable.h"
#include "hw/fabric/MeshGeometry.h"
#include "hw/fabric/RoutingPolicy.h"
#include "hw/fabric/WaveletQueuePool.h"

namespace wsesim::fabric {

struct FabricParams {
  MeshGeometry mesh;
  unsigned colors = 24;
  unsigned queueDepth = 4;
  unsigned hopLatency = 1;
  unsigned rampLatency = 2;
  RoutingMode routing = RoutingMode::Color;
  // Cycles without any injection or delivery, while wavelets are in the
  // fabric, after which the run is declared deadlocked.
  std::uint64_t watchdogCycles = 100000;
};

// Receives the wavelets a router hands to its PE through the RAMP.
class WaveletSink {
 public:
  virtual ~WaveletSink() = default;
  virtual void deliver(RouterId at, const Wavelet& w, std::uint64_t arrivalCycle) = 0;
};

// Sees every link transfer (for waveform tracing); off the hot path when unset.
class LinkObserver {
 public:
  virtual ~LinkObserver() = default;
  virtual void onTransfer(RouterId from, Port output, unsigned color) = 0;
};

struct FabricCounters {
  std::uint64_t injected = 0;   // wavelets accepted from PEs
  std::uint64_t delivered = 0;  // wavelets handed to PEs (each multicast copy counts)
  std::uint64_t hops = 0;       // router-to-router link transfers
  std::uint64_t queued = 0;     // wavelets currently held in queues
};

class FabricKernel {
 public:
  // `routes` is required in color mode and ignored in XY mode; it must
  // outlive the kernel.
  FabricKernel(const FabricParams& params, const ColorRouteTable* routes);

  void setSink(WaveletSink* sink) { sink_ = sink; }
  void setObserver(LinkObserver* observer) { observer_ = observer; }

  // Offers a wavelet from the PE at `r` to its router at cycle `now`.
  // Returns false (backpressure) when the RAMP queue of that color is full
  // or the RAMP already carried a wavelet this cycle.
  bool inject(RouterId r, const Wavelet& w, std::uint64_t now);

  // Advances the fabric by the single cycle `now`. Throws DeadlockError
  // when the watchdog expires, FabricError on a misrouted wavelet.
  void step(std::uint64_t now);

  bool idle() const { return active_.empty(); }
  const FabricCounters& counters() const { return counters_; }
  const FabricParams& params() const { return params_; }
  std::size_t activeRouters() const { return active_.size(); }

  // Wavelets that left router r through `output` since construction.
  std::uint64_t transfers(RouterId r, Port output) const {
    return transfers_[std::size_t(r) * kPortCount + unsigned(output)];
  }
  // Wavelets waiting in router r's queues of input `in`, all colors.
  unsigned occupancy(RouterId r, Port in) const;
  std::size_t hostBytes() const;

  // The non-empty queues, why each head cannot move, at most `maxLines`.
  std::string blockedQueuesReport(std::uint64_t now, std::size_t maxLines) const;

 private:
  using Handle = WaveletQueuePool::Handle;

  template <class Routing>
  void stepWith(const Routing& routing, std::uint64_t now);
  template <class Routing>
  void routeRouter(const Routing& routing, RouterId r, std::uint64_t now);

  Handle queue(RouterId r, Port in, unsigned color) const {
    const std::uint32_t base = handleBase_[r];
    return base == kNoRouter ? WaveletQueuePool::kNone
                             : handles_[base + unsigned(in) * params_.colors + color];
  }
  Handle queueForPush(RouterId r, Port in, unsigned color);
  bool hasSpace(RouterId r, Port in, unsigned color, std::uint64_t now) const {
    const Handle h = queue(r, in, color);
    return h == WaveletQueuePool::kNone || pool_.hasSpace(h, now);
  }
  void push(RouterId r, Port in, const Wavelet& w, std::uint64_t readyAt);
  void popHead(RouterId r, Port in, unsigned color, Handle h, std::uint64_t now);
  void markActive(RouterId r);
  bool holdsWavelets(RouterId r) const;
  void checkWatchdog(std::uint64_t now) const;

  FabricParams params_;
  const ColorRouteTable* routes_;
  WaveletSink* sink_ = nullptr;
  LinkObserver* observer_ = nullptr;

  WaveletQueuePool pool_;
  // Per router: offset of its (port x color) handle block in handles_,
  // allocated when the router first holds a wavelet.
  std::vector<std::uint32_t> handleBase_;
  std::vector<Handle> handles_;
  // Per router and input port: colors whose queue is non-empty.
  std::vector<std::uint32_t> nonEmpty_;
  // Per router and output: last (input, color) granted, for round-robin.
  struct LastGrant {
    std::uint8_t input = kPortCount - 1;
    std::uint8_t color = 31;
  };
  std::vector<LastGrant> lastGrant_;
  std::vector<std::uint64_t> transfers_;
  std::vector<std::uint64_t> lastInjectPlusOne_;

  std::vector<std::uint8_t> isActive_;
  std::vector<RouterId> active_;
  std::vector<RouterId> visiting_;
  std::vector<std::uint32_t> drained_;  // handles_ slots emptied this cycle

  FabricCounters counters_;
  std::uint64_t lastProgress_ = 0;
};

}  // namespace wsesim::fabric
