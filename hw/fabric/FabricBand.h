#pragma once
// A band of the mesh: a range of routers, in router order, that one thread
// steps in a cycle, and what it gathers while doing so for the kernel to
// merge, in band order, once every band is done. With one band (one
// thread) the band is the whole mesh and nothing is merged.

#include <cstdint>
#include <exception>
#include <limits>
#include <utility>
#include <vector>

#include "hw/fabric/ActiveSet.h"
#include "hw/fabric/MeshGeometry.h"
#include "hw/fabric/QueuedWavelet.h"
#include "hw/fabric/Wavelet.h"
#include "hw/fabric/ZeroedArray.h"

namespace wsesim::fabric {

// (cycle, router): a router asleep until the cycle it waits for.
using TimedWake = std::pair<std::uint64_t, RouterId>;

// A queue popped from full in this cycle: its noSpace bit clears at the cycle's end.
struct Release {
  RouterId router;
  std::uint8_t input, color;
};

// A wavelet granted to a neighbour this cycle, pushed after every router has moved.
struct Move {
  RouterId to;
  std::uint8_t input;
  QueuedWavelet wavelet;  // as it left: its ready cycle is set at the push
};

// A wavelet a band's thread handed to a PE, for the sink to hear in router order.
struct Delivery {
  RouterId at;
  Wavelet wavelet;
  std::uint64_t arrivalCycle;
};

// Cache-line aligned: two bands' threads write their own bands' fields
// for every router they step, and must not share a line.
struct alignas(64) FabricBand {
  // The moves array reads this many entries past its last move (the
  // pushes' prefetch distance).
  static constexpr std::size_t kMoveSlack = 16;

  FabricBand(unsigned index, RouterId first, RouterId end, RouterId routers)
      : index(index), first(first), end(end), current(routers), next(routers),
        moves(std::size_t(end - first) * 4 + kMoveSlack, ZeroedArray<Move>::Pages::Huge) {}

  bool holds(RouterId r) const { return r - first < end - first; }

  unsigned index;         // also its overflow pool's
  RouterId first, end;    // its routers: [first, end)
  ActiveSet current;      // routers being stepped this cycle
  ActiveSet next;         // routers to step in the next
  // Asleep until a cycle, a heap, earliest on top; a router woken early and
  // held again has a stale entry, which wakes it once more for nothing.
  std::vector<TimedWake> sleepers;
  // Moves to routers of this band, at most one per mesh output of each of
  // its routers: room for all is reserved (lazily backed) and a move is
  // appended without a capacity check.
  ZeroedArray<Move> moves;
  std::size_t moveCount = 0;
  // Moves to other bands' routers: pushed by one thread after the bands'.
  std::vector<Move> crossMoves;
  std::vector<Release> releases;

  // Set by the band's thread while it runs alongside others: deliveries
  // wait in `deliveries` (unless the sink takes them in bands:
  // WaveletSink::deliversInBands) and edge routers whose ports reach the
  // edge sink's shared state (EdgeSink::rowGroups) in `edgeRouters`, both
  // in router order, for one thread to replay and step in router order.
  bool deferred = false;
  std::vector<Delivery> deliveries;
  std::vector<RouterId> edgeRouters;
  std::exception_ptr error;  // what stopped the band's thread, at router errorAt
  RouterId errorAt = kNoRouter;

  // This cycle's tallies, added to the kernel's counters at its end (the
  // injections' once the bands injecting at once are done).
  std::uint64_t hops = 0, delivered = 0, toEdge = 0, injected = 0, fromEdge = 0;
  std::int64_t queued = 0;  // pushed less popped
  bool progressed = false;  // a wavelet reached a PE or left the wafer
  std::uint64_t lastInjection = 0;  // the cycle a wavelet last entered the fabric
  std::uint64_t earliestHeld = std::numeric_limits<std::uint64_t>::max();
  // While a router is stepped: whether it moved a wavelet, and the earliest cycle it waits for.
  bool stayAwake = false;
  std::uint64_t heldUntil = std::numeric_limits<std::uint64_t>::max();
};

}  // namespace wsesim::fabric
