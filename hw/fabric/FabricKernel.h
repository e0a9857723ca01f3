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
// grants one contender, chosen by the arbitration policy (round-robin over
// (input port, color) in the presets), among those whose downstream queue
// has room. A granted wavelet is ready at the next
// router after hop_latency cycles (ramp_latency to or from the PE). The
// outcome does not depend on the order routers are visited in, which lets
// a cycle push the hops into their receiving queues in a second pass, after
// every router has decided (docs/fabric-model.md), and lets the mesh be
// split into bands of routers stepped by threads at once, with the same
// results for any number of them ("Bands over threads" there).

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hw/fabric/ActiveSet.h"
#include "hw/fabric/ArbiterState.h"
#include "hw/fabric/BandPacing.h"
#include "hw/fabric/BandWorkers.h"
#include "hw/fabric/ColorRouteTable.h"
#include "hw/fabric/FabricBand.h"
#include "hw/fabric/FabricParams.h"
#include "hw/fabric/LowestBit.h"
#include "hw/fabric/MeshGeometry.h"
#include "hw/fabric/RoutingPolicies.h"
#include "hw/fabric/WaveletQueues.h"

namespace wsesim::fabric {

// Receives the wavelets a router hands to its PE through the RAMP.
// deliver() may change router `at` (its RAMP) and nothing else in the
// fabric. The kernel calls it as the router steps; while bands step at
// once, it calls it after them, in router order on one thread, unless the
// sink says a band's thread may call it for the band's routers.
class WaveletSink {
 public:
  virtual ~WaveletSink() = default;
  virtual void deliver(RouterId at, const Wavelet& w, std::uint64_t arrivalCycle) = 0;
  // Whether deliver(at) writes nothing but `at`'s PE and what is kept per
  // band (FabricKernel::bandIndex), so that the thread stepping a band may
  // deliver to its routers' PEs while other bands step: the PE array's
  // inboxes are read by the same thread as they are written.
  virtual bool deliversInBands() const { return false; }
  // The RAMP queue of `color` at router `at`, full until now, takes a
  // wavelet from the PE again from cycle `from` on (its credit is back). A
  // sender that retries every cycle needs no notice.
  virtual void rampFreed(RouterId /*at*/, unsigned /*color*/, std::uint64_t /*from*/) {}
};

// Takes the wavelets that leave the mesh through an edge port (a route
// forwarding off the mesh): the wafer's outbound I/O.
class EdgeSink {
 public:
  virtual ~EdgeSink() = default;
  // The first cycle >= now in which a wavelet may leave router `from`
  // through its edge port `side`; until then the router holds it back
  // (backpressure from the I/O bandwidth), and the watchdog counts no
  // cycle before it: a slow ring is not a deadlock.
  virtual std::uint64_t firstAcceptingCycle(std::uint64_t now, RouterId from, Port side) = 0;
  // Wavelet `w` left router `from` through its edge port `side`, arriving outside at `arrivalCycle`.
  virtual void leave(RouterId from, Port side, const Wavelet& w, std::uint64_t arrivalCycle) = 0;
  // The sides of the mesh it takes wavelets from. While bands step at
  // once, routers with an edge port on these sides are stepped after them,
  // in router order on one thread (the sink's bandwidth is shared); a
  // wavelet leaving through another side must make firstAcceptingCycle
  // throw without touching the sink.
  virtual PortMask sides() const { return bit(Port::North) | bit(Port::East) | bit(Port::South) | bit(Port::West); }
  // The first row of each group of mesh rows whose edge routers share what
  // the sink keeps (its bandwidth, its counts), from row 0 up. Routers of
  // different groups may leave at once on different threads, so the
  // kernel puts its bands' boundaries between groups where it can and then
  // steps edge routers with their bands. Empty: the whole mesh is one group.
  virtual std::vector<std::uint32_t> rowGroups() const { return {}; }
};

// Feeds wavelets into edge ports (injectAtEdge) and hears when one of
// their queues, full until now, has room again: it need not retry a full
// queue every cycle.
class EdgeSource {
 public:
  virtual ~EdgeSource() = default;
  // The queue of `color` at edge router `at`'s input `side` takes a wavelet again from the next cycle.
  virtual void edgeInputFreed(RouterId at, Port side, unsigned color) = 0;
};

// Sees every link transfer (for waveform tracing); off the hot path when unset.
class LinkObserver {
 public:
  virtual ~LinkObserver() = default;
  virtual void onTransfer(RouterId from, Port output, unsigned color) = 0;
};

struct FabricCounters {
  std::uint64_t injected = 0;   // wavelets accepted from PEs
  std::uint64_t fromEdge = 0;   // wavelets accepted from outside the mesh
  std::uint64_t toEdge = 0;     // wavelets that left the mesh through an edge port
  std::uint64_t delivered = 0;  // wavelets handed to PEs (each multicast copy counts)
  std::uint64_t hops = 0;       // router-to-router link transfers
  std::uint64_t queued = 0;     // wavelets currently held in queues
  // Two runs' together (a GEMM's phases run on chips of their own).
  FabricCounters& operator+=(const FabricCounters& o) {
    injected += o.injected;
    fromEdge += o.fromEdge;
    toEdge += o.toEdge;
    delivered += o.delivered;
    hops += o.hops;
    queued += o.queued;
    return *this;
  }
};

class FabricKernel {
 public:
  // `routes` is required in color mode and ignored in XY mode; it must
  // outlive the kernel. `threads` > 1 splits the mesh into that many bands
  // of routers (fewer where a band would hold fewer than 16 routers),
  // stepped at once by that many threads, the caller's one of them.
  FabricKernel(const FabricParams& params, const ColorRouteTable* routes, unsigned threads = 1);
  ~FabricKernel();

  void setSink(WaveletSink* sink) {
    sink_ = sink;
    sinkInBands_ = sink && sink->deliversInBands();
  }
  // Link transfers are heard as they happen: with an observer, every cycle is stepped on one thread.
  void setObserver(LinkObserver* observer) { observer_ = observer; }
  // Before the first cycle: with several bands and a sink whose rowGroups()
  // allow it, the bands are redrawn with their boundaries between groups.
  void setEdgeSink(EdgeSink* sink);
  void setEdgeSource(EdgeSource* source) { edgeSource_ = source; }

  // Offers a wavelet from the PE at `r` to its router at cycle `now`.
  // Returns false (backpressure) when the RAMP queue of that color is full
  // or the RAMP already carried a wavelet this cycle.
  bool inject(RouterId r, const Wavelet& w, std::uint64_t now);
  // Offers a wavelet from outside the mesh (the wafer's I/O) to edge router
  // `r` on its unconnected port `side`, ready after one hop. Returns false
  // when that input's queue of the color is full or the port already took
  // a wavelet this cycle; throws FabricError if `side` is not an edge port.
  bool injectAtEdge(RouterId r, Port side, const Wavelet& w, std::uint64_t now);

  // Whether the queue of `color` at edge router r's input `side` is full:
  // injectAtEdge refuses it until the edge source hears edgeInputFreed().
  bool edgeInputFull(RouterId r, Port side, unsigned color) const {
    return color < params_.colors && ((routers_[r].noSpace[unsigned(side)] >> color) & 1u);
  }
  // Whether the RAMP queue of `color` at `r` is full: inject() refuses that
  // color until the sink hears rampFreed().
  bool rampFull(RouterId r, unsigned color) const { return (routers_[r].noSpace[unsigned(Port::Ramp)] >> color) & 1u; }
  // Whether the PE at `r` can take another wavelet of `color` from its
  // RAMP; while it cannot, the router holds such wavelets back.
  void setRampAccepting(RouterId r, unsigned color, bool accepting) {
    RouterState& s = routers_[r];
    if (!accepting) {
      s.rampNoSpace |= 1u << color;
    } else if (s.rampNoSpace & (1u << color)) {
      s.rampNoSpace &= ~(1u << color);
      if (s.inputs) markActive(r);  // it may have been waiting for this PE
    }
  }
  // The bands the mesh is stepped in (the threads that step it), and the
  // cycles so far in which they were stepped at once (those with enough
  // routers active, no link observer, and while that is measured faster:
  // BandPacing).
  unsigned bands() const { return unsigned(bands_.size()); }
  std::uint64_t cyclesInBands() const { return cyclesInBands_; }
  // Off: every cycle that could split does, however fast (the bands' tests).
  void setPacing(bool measured) { paced_ = measured; }
  // The band that holds router r.
  unsigned bandIndex(RouterId r) const { return bands_.size() == 1 ? 0 : routerBand_[r]; }
  // Runs work(band) for every band: at once on the bands' threads if
  // `atOnce` and the kernel's pacing lets this cycle split (a driver's
  // share of a cycle for the routers of each band:
  // its injections, written by the thread that steps those routers), else
  // band by band on this one. `work` may inject only into its band's
  // routers; what it throws is rethrown here, the lowest band's first.
  // Returns whether the bands ran at once.
  bool forEachBand(bool atOnce, const std::function<void(unsigned band)>& work);
  // Something outside the fabric is certain to happen in cycle `due`
  // whatever the fabric does (a PE's op completing or its task starting,
  // I/O bandwidth for a waiting stream): the deadlock watchdog counts no
  // cycle before it. Waits for a wavelet or for room in a queue are not due.
  void notePendingUntil(std::uint64_t due) { pendingUntil_ = std::max(pendingUntil_, due); }

  // Cycles run from 0 to kLastCycle - 1 (2^47 cycles: 35 hours at 1.1 GHz).
  static constexpr std::uint64_t kLastCycle = std::uint64_t(1) << 47;
  // nextChange() of a fabric that can change no more by itself.
  static constexpr std::uint64_t kNoChange = std::numeric_limits<std::uint64_t>::max();

  // Advances the fabric by the single cycle `now`. Throws DeadlockError
  // when the watchdog expires, FabricError on a misrouted wavelet or a
  // cycle past kLastCycle.
  void step(std::uint64_t now);

  bool idle() const { return counters_.queued == 0; }
  // Puts every output's arbiter back in its first state, as on a new
  // fabric; the fabric must be idle (std::logic_error otherwise). A GEMM's
  // phases start so (GemmPhases): a phase's cycles then never depend on the
  // grants of the phase before, so it can run on a chip of its own.
  void restartArbiters();
  // The earliest cycle >= now in which step() can change anything (or
  // report a deadlock) with nothing from outside: no wavelet injected, no
  // PE taking from its RAMP again. That is now while the last step moved a
  // wavelet; after a step in which every wavelet waited, the first cycle a
  // head still on a link becomes ready, an edge port regains I/O bandwidth
  // or the watchdog expires; kNoChange when empty. Queues blocked by a full
  // neighbour need no date: the neighbour moves first. A driver skips to the
  // earliest of this and the next cycle anything outside acts in.
  std::uint64_t nextChange(std::uint64_t now) const { return idle() ? kNoChange : std::max(now, nextChange_); }
  const FabricCounters& counters() const { return counters_; }
  const FabricParams& params() const { return params_; }

  // Wavelets that left router r through `output` since construction,
  // modulo 2^32: differences over any window shorter than 2^32 cycles are exact.
  std::uint32_t transfers(RouterId r, Port output) const {
    return transfers_[std::size_t(r) * kPortCount + unsigned(output)];
  }
  // Wavelets waiting in router r's queues of input `in`, all colors.
  unsigned occupancy(RouterId r, Port in) const;
  // The colors with a wavelet waiting in any of router r's input queues (bit c: color c).
  std::uint32_t queuedColors(RouterId r) const {
    std::uint32_t colors = 0;
    for (std::uint32_t mask : routers_[r].nonEmpty) colors |= mask;
    return colors;
  }
  std::size_t hostBytes() const;
  // What hostBytes() can reach at most for `params`, before building: every
  // array at its full size (the queues' overflow pool as if every queue
  // overflowed, a sleeper per router: more only while routers woken early
  // wait again, until their stale entries fall due).
  static std::size_t plannedHostBytes(const FabricParams& params, unsigned threads = 1);

  // The non-empty queues, why each head cannot move, at most `maxLines`.
  std::string blockedQueuesReport(std::size_t maxLines) const;

 private:
  // The per-router state the routing decision starts from, one cache line:
  // a router finds its non-empty queues here, reads their headers (whose
  // `pending` says where each head still goes) and its neighbours'
  // `noSpace`, and reads queue storage only for the wavelets it moves.
  struct alignas(64) RouterState {
    std::uint32_t nonEmpty[kPortCount] = {};  // per input port: colors with a non-empty queue
    // Per input port: colors whose queue has no room for the upstream router
    // this cycle (full, or full until a pop in this cycle).
    std::uint32_t noSpace[kPortCount] = {};
    std::uint32_t rampNoSpace = 0;            // colors the PE cannot take from the RAMP now
    std::uint16_t x = 0, y = 0;
    PortMask inputs = 0;       // input ports with a non-empty queue
    PortMask injected = 0;     // inputs that took a wavelet from a PE or the edge this cycle
    PortMask edgeOutputs = 0;  // ports without a neighbour: wavelets leave the mesh there
    ArbiterState arbiter[kPortCount];  // per output: the arbitration policy's memory
  };
  static_assert(sizeof(RouterState) == 64, "a router's state is one cache line");

  // What the heads of one router's queues ask for this cycle: per output,
  // the inputs asking for it and, per (input, output), the colors.
  struct Requests {
    PortMask outputs = 0;
    PortMask inputs[kPortCount] = {};
    std::uint32_t colors[kPortCount][kPortCount];  // [input][output], set for inputs with a non-empty queue
  };

  // The cycle's code is instantiated per (arbitration, routing) pair of the
  // policy lists; Arbitration is named, Routing an object (it has a configuration).
  template <class Arbitration, class Routing>
  void stepWith(const Routing& routing, std::uint64_t now);
  // The per-router code below is compiled twice: `Bands` false for a mesh
  // in one band, which then pays nothing for bands (no check whether a
  // move stays in its band, or whether its band runs alongside others).
  // Steps the band's routers (all of them, or, while bands run at once,
  // those inside the mesh, keeping what only one thread may do for later).
  template <class Arbitration, bool Bands, class Routing>
  void stepBand(const Routing& routing, FabricBand& band, std::uint64_t now);
  template <class Arbitration, bool Bands, class Routing>
  [[gnu::always_inline]] inline void visit(const Routing& routing, FabricBand& band, RouterId r, std::uint64_t now);
  // After bands ran at once: steps their edge routers and hands their
  // deliveries to the sink, all in router order, as one band would have.
  template <class Arbitration, class Routing>
  void stepEdgesInOrder(const Routing& routing, std::uint64_t now);
  // Pushes the band's moves into its routers; while bands run at once,
  // leaves those that would take a fresh overflow block to crossMoves.
  template <bool Bands, class Routing>
  void pushMoves(const Routing& routing, FabricBand& band, std::uint64_t now);
  // The cycle's end, on one thread: the moves between bands, the credits
  // given back, the tallies, the watchdog and the next change.
  template <class Routing>
  void endCycle(const Routing& routing, std::uint64_t now);
  template <class Arbitration, bool Bands, class Routing>
  [[gnu::always_inline]] inline void routeRouter(const Routing& routing, FabricBand& band, RouterId r,
                                                 std::uint64_t now);
  // routeRouter for a router with the one non-empty queue (in, color).
  template <class Arbitration, bool Bands, class Routing>
  [[gnu::always_inline]] inline void routeQueue(const Routing& routing, FabricBand& band, RouterState& s, RouterId r,
                                                unsigned in, unsigned color, std::uint64_t now);
  // routeRouter for a router with several non-empty queues.
  template <class Arbitration, bool Bands, class Routing>
  void arbitrate(const Routing& routing, FabricBand& band, RouterState& s, RouterId r, std::uint64_t now);

  using Header = WaveletQueues::Header;

  // The per-hop steps are forced inline: a call's register spills cost as
  // much as the step itself.
  // `band` holds router r.
  template <bool Bands, class Routing>
  [[gnu::always_inline]] inline void push(const Routing& routing, FabricBand& band, RouterId r, Port in,
                                          const QueuedWavelet& w);
  // Retires the head of (r, in, color) once no output still wants it.
  template <bool Bands, class Routing>
  [[gnu::always_inline]] inline void retire(const Routing& routing, FabricBand& band, RouterId r, Header& h,
                                            unsigned in, unsigned color);
  // The colors output `o` of router r cannot take this cycle.
  [[gnu::always_inline]] inline std::uint32_t outputFull(FabricBand& band, const RouterState& s, RouterId r,
                                                         unsigned o, std::uint64_t now);
  // Moves the head of (r, in, color), whose header is h, out through `o`.
  template <class Arbitration, bool Bands, class Routing>
  [[gnu::always_inline]] inline void transfer(const Routing& routing, FabricBand& band, RouterState& s, RouterId r,
                                              unsigned o, unsigned in, unsigned color, Header& h,
                                              std::uint64_t now);
  // Reads the header of each of r's non-empty queues for where its head goes.
  [[gnu::always_inline]] inline void gatherRequests(const RouterState& s, RouterId r, Requests& req) const;
  template <class Arbitration>
  [[gnu::always_inline]] inline bool pickGrant(FabricBand& band, const RouterState& s, const Requests& req,
                                               RouterId r, unsigned o, std::uint32_t full, std::uint64_t now,
                                               unsigned& input, unsigned& color);
  // In a crowded cycle, arbitration reads the header and head wavelet of
  // each non-empty queue, lines scattered over the queue storage: those of
  // the routers a few ahead in the walk (in its band) are fetched early
  // (the headers of an input's queues by the lines they span).
  void prefetchQueuesAhead(RouterId r, RouterId bandEnd) const;
  // Calls fn(r, input, color) for each non-empty queue of router r, by input, then color.
  template <class Fn>
  void forEachQueue(RouterId r, Fn&& fn) const {
    const RouterState& s = routers_[r];
    for (PortMask inputs = s.inputs; inputs; inputs &= PortMask(inputs - 1)) {
      const unsigned in = lowestBit(inputs);
      for (std::uint32_t m = s.nonEmpty[in]; m; m &= m - 1) fn(r, in, lowestBit(m));
    }
  }
  // Bands starting at these routers (ascending, the first 0), none of them empty.
  void drawBands(const std::vector<RouterId>& firsts);
  FabricBand& bandOf(RouterId r) { return *bands_[bandIndex(r)]; }
  void markActive(RouterId r) { bandOf(r).next.insert(r); }
  // Tells the sender into queue (r, input, color), full until now, that it has room.
  void wakeSender(RouterId r, unsigned input, unsigned color, std::uint64_t now) {
    if (input == unsigned(Port::Ramp)) {
      if (sink_) sink_->rampFreed(r, color, now + 1);
    } else if ((routers_[r].edgeOutputs >> input) & 1u) {
      if (edgeSource_) edgeSource_->edgeInputFreed(r, Port(input), color);
    } else if (const RouterId sender = r + neighbourOffset_[input]; routers_[sender].inputs) {
      markActive(sender);  // it may have been waiting for the room
    }
  }
  template <class Routing>
  bool inject(const Routing& routing, RouterId r, Port in, const Wavelet& w, std::uint64_t readyAt,
              std::uint64_t now);
  void checkWatchdog(std::uint64_t now) const;
  // The first cycle the watchdog reports a deadlock in, if nothing moves or falls due before.
  std::uint64_t watchdogExpiry() const { return std::max(lastProgress_, pendingUntil_) + params_.watchdogCycles; }
  // The colors an edge output cannot take this cycle: all or none.
  std::uint32_t edgeNoSpace(FabricBand& band, RouterId r, unsigned output, std::uint64_t now);

  FabricParams params_;
  const ColorRouteTable* routes_;
  WaveletSink* sink_ = nullptr;
  bool sinkInBands_ = false;  // sink_->deliversInBands()
  // Edge routers with a port on these sides are stepped after the bands, in
  // router order on one thread: edgeSink_->sides(), unless the bands'
  // boundaries lie between the sink's row groups (then none).
  PortMask edgesInOrder_ = 0;
  LinkObserver* observer_ = nullptr;
  EdgeSink* edgeSink_ = nullptr;
  EdgeSource* edgeSource_ = nullptr;

  ZeroedArray<RouterState> routers_;
  ZeroedArray<std::uint32_t> transfers_;  // [router][output], wrapping
  WaveletQueues queues_;
  // Routers holding wavelets sleep while every head waits for room (a
  // neighbour's queue, the PE's inbox), which only a pop there or the PE
  // gives back: then they are woken (wakeSender, setRampAccepting). Those
  // that moved a wavelet stay in their band's set; those that wait for a
  // time (a head still on a link longer than a cycle, an edge port's
  // bandwidth) sleep until it (FabricBand::sleepers), unless something
  // wakes them first.
  std::vector<std::unique_ptr<FabricBand>> bands_;
  std::vector<std::uint8_t> routerBand_;  // [router]: its band, with more than one
  std::unique_ptr<BandWorkers> workers_;  // none with one band
  BandPacing pacing_;
  bool paced_ = true;
  std::chrono::steady_clock::time_point lastStepEnd_;  // on the host's clock
  // This cycle steps at least 3/4 of the routers (those ahead in the walk
  // are likely busy too) and a queue per 4 of them is outside its home:
  // worth prefetching for.
  bool crowded_ = false;
  // This cycle's queues are outside their home often enough for the pushes to prefetch their own headers.
  bool scattered_ = false;
  std::uint64_t cyclesInBands_ = 0;
  // Inside forEachBand(atOnce): injections count in their bands' tallies.
  bool injectingInBands_ = false;
  // Per port, added to a router's id (modulo 2^32) gives its neighbour's.
  const RouterId neighbourOffset_[kPortCount];
  // Wavelets granted to a neighbour this cycle are pushed after every
  // router has moved (FabricBand::moves). The pushes prefetch their
  // receiving router and home, queue header and tail slot these many moves
  // ahead, reading up to kTargetRouter entries past the last move.
  static constexpr std::size_t kTargetRouter = FabricBand::kMoveSlack, kTargetHeader = 8, kTargetTail = 4;

  FabricCounters counters_;
  // The watchdog counts the cycles after both: the last one in which a
  // wavelet entered the fabric, reached a PE or left the wafer, and the
  // latest one something outside the fabric is due in.
  std::uint64_t lastProgress_ = 0;
  std::uint64_t pendingUntil_ = 0;
  // What nextChange() reports, set by each step (0 before the first: step at once).
  std::uint64_t nextChange_ = 0;
  // A head that could move but for its readiness, or an edge output waiting
  // for bandwidth, can go at `cycle` (FabricBand::earliestHeld, heldUntil).
  // Out of line: rare, and kept out of the hot loop's code.
  [[gnu::cold, gnu::noinline]] static void noteHeldUntil(FabricBand& band, std::uint64_t cycle);
  [[gnu::noinline]] static void sleepUntil(FabricBand& band, std::uint64_t cycle, RouterId r);
};

}  // namespace wsesim::fabric
