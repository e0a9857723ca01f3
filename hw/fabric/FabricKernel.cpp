#include "hw/fabric/FabricKernel.h"

#include <algorithm>
#include <functional>
#include <sstream>
#include <utility>

#include "hw/fabric/FabricError.h"
#include "hw/fabric/LowestBit.h"
#include "hw/fabric/Prefetch.h"

namespace wsesim::fabric {

FabricKernel::FabricKernel(const FabricParams& params, const ColorRouteTable* routes)
    : params_(params),
      routes_(routes),
      routers_(params.mesh.routers(), ZeroedArray<RouterState>::Pages::Huge),
      transfers_(std::size_t(params.mesh.routers()) * kPortCount, ZeroedArray<std::uint32_t>::Pages::Huge),
      queues_(std::size_t(params.mesh.routers()) * kPortCount * params.colors,
              std::size_t(params.mesh.routers()) * kPortCount, params.queueDepth),
      current_(params.mesh.routers()),
      next_(params.mesh.routers()),
      neighbourOffset_{0u - params.mesh.width, 1u, params.mesh.width, 0u - 1u, 0u},
      moves_(std::size_t(params.mesh.routers()) * (kPortCount - 1) + kTargetRouter, ZeroedArray<Move>::Pages::Huge) {
  withRoutingPolicy(params.routing, [&](auto policy) { decltype(policy)::type::checkSetup(routes); });
  const ArbiterState initialArbiter =
      withArbitrationPolicy(params.arbitration, [](auto policy) { return decltype(policy)::type::kInitialState; });
  if (params.colors == 0 || params.colors > 32)
    throw FabricError("the fabric supports 1..32 colors, got " + std::to_string(params.colors));
  if (params.hopLatencyCycles == 0) throw FabricError("hop latency must be at least one cycle");
  for (RouterId r = 0; r < routers_.size(); ++r) {
    RouterState& s = routers_[r];
    s.x = std::uint16_t(params.mesh.xOf(r));
    s.y = std::uint16_t(params.mesh.yOf(r));
    for (unsigned o = 0; o < kPortCount; ++o) {
      s.arbiter[o] = initialArbiter;
      if (Port(o) != Port::Ramp && params.mesh.neighbour(r, Port(o)) == kNoRouter) s.edgeOutputs |= bit(Port(o));
    }
  }
}

template <class Routing>
void FabricKernel::push(const Routing& routing, RouterId r, Port in, const QueuedWavelet& w) {
  RouterState& s = routers_[r];
  const unsigned port = unsigned(in);
  const unsigned color = w.color();
  const std::uint32_t colorBit = 1u << color;
  // An empty queue is opened with the wavelet, without a look at its
  // header, which is mostly not where it will be (the home's is).
  Header& h = s.nonEmpty[port] & colorBit ? queues_.push(queues_.header(r, port, color), w)
                                          : queues_.open(r, port, color, w);
  const unsigned size = h.count;
  if (size == 1) h.pending = routing.forward(r, s.x, s.y, w);
  s.nonEmpty[port] |= colorBit;
  s.inputs |= PortMask(1u << port);
  if (size == queues_.depth()) s.noSpace[port] |= colorBit;
  ++counters_.queued;
  markActive(r);
}

template <class Routing>
void FabricKernel::retire(const Routing& routing, RouterId r, Header& h, unsigned in, unsigned color) {
  // A multicast head granted by several outputs is retired by the first;
  // the queue has a new head, or none, by the time the others look.
  if (h.pending || !h.count) return;
  RouterState& s = routers_[r];
  // A slot freed by a pop becomes usable by the upstream router only in the
  // next cycle (the credit travels back over the link), so the outcome does
  // not depend on the order in which routers are visited within a cycle.
  if (h.count == queues_.depth()) releases_.push_back(Release{r, std::uint8_t(in), std::uint8_t(color)});
  queues_.pop(h);
  --counters_.queued;
  if (h.count == 0) {
    if (!(s.nonEmpty[in] &= ~(1u << color))) s.inputs &= PortMask(~(1u << in));
  } else {
    h.pending = routing.forward(r, s.x, s.y, queues_.front(h));
  }
}

bool FabricKernel::inject(RouterId r, const Wavelet& w, std::uint64_t now) {
  const std::uint64_t readyAt = now + params_.rampLatencyCycles;
  return withRoutingPolicy(params_.routing, [&](auto policy) {
    return inject(typename decltype(policy)::type(params_.mesh, routes_), r, Port::Ramp, w, readyAt, now);
  });
}

bool FabricKernel::injectAtEdge(RouterId r, Port side, const Wavelet& w, std::uint64_t now) {
  if (side == Port::Ramp || params_.mesh.neighbour(r, side) != kNoRouter)
    throw FabricError("router " + params_.mesh.name(r) + " has no edge on its " + portName(side) +
                      " side to take wavelets from outside the mesh");
  const std::uint64_t readyAt = now + params_.hopLatencyCycles;
  return withRoutingPolicy(params_.routing, [&](auto policy) {
    return inject(typename decltype(policy)::type(params_.mesh, routes_), r, side, w, readyAt, now);
  });
}

template <class Routing>
bool FabricKernel::inject(const Routing& routing, RouterId r, Port in, const Wavelet& w, std::uint64_t readyAt,
                          std::uint64_t now) {
  if (w.color >= params_.colors)
    throw FabricError("a wavelet entering router " + params_.mesh.name(r) + " has color " +
                      std::to_string(w.color) + " but the fabric has " + std::to_string(params_.colors) + " colors");
  routing.checkInjection(r, w);
  RouterState& s = routers_[r];
  // A router that took a wavelet this cycle is active, so step() clears the flags.
  if ((s.injected & bit(in)) || (s.noSpace[unsigned(in)] & (1u << w.color))) return false;
  const QueuedWavelet queued(w, readyAt);
  routing.checkArrival(r, in, queued);
  s.injected |= bit(in);
  push(routing, r, in, queued);
  ++(in == Port::Ramp ? counters_.injected : counters_.fromEdge);
  lastProgress_ = now;
  return true;
}

void FabricKernel::step(std::uint64_t now) {
  if (now >= kLastCycle)
    throw FabricError("cycle " + std::to_string(now) + " is past the fabric's last cycle, 2^47 - 1 " +
                      "(queued wavelets keep their ready cycle in 48 bits)");
  // One dispatch per list; the compiler instantiates every pair.
  withRoutingPolicy(params_.routing, [&](auto routing) {
    withArbitrationPolicy(params_.arbitration, [&](auto arbitration) {
      stepWith<typename decltype(arbitration)::type>(typename decltype(routing)::type(params_.mesh, routes_), now);
    });
  });
}

template <class Arbitration, class Routing>
void FabricKernel::stepWith(const Routing& routing, std::uint64_t now) {
  std::swap(current_, next_);
  while (!sleepers_.empty() && sleepers_.front().first <= now) {
    current_.insert(sleepers_.front().second);
    std::pop_heap(sleepers_.begin(), sleepers_.end(), std::greater<TimedWake>());
    sleepers_.pop_back();
  }
  earliestHeld_ = kNoChange;
  const std::uint64_t leftBefore = counters_.delivered + counters_.toEdge;
  // Queues outside their home (own headers, overflow blocks) are scattered
  // over memory where the hardware prefetchers cannot follow; where they
  // are common, the kernel prefetches them itself.
  const bool scattered = queues_.overflowed() * 4 >= current_.size();
  crowded_ = scattered && current_.size() * 4 >= routers_.size() * 3;
  // A router reads its neighbours' credits (noSpace). Those of the row
  // above were walked a row ago and the east and west ones share lines with
  // its own, but the south neighbour's are a row ahead of the walk, where
  // the hardware prefetchers have not reached: fetched a few routers early.
  const std::size_t southAhead = std::size_t(params_.mesh.width) + 4;
  // Inlined into the walk: growing past the compiler's limit, it was called per router (5% more instructions).
  current_.drain([&](RouterId r) __attribute__((always_inline)) {
    if (r + southAhead < routers_.size()) prefetch(&routers_[r + southAhead]);
    RouterState& s = routers_[r];
    s.injected = 0;
    stayAwake_ = false;
    heldUntil_ = kNoChange;
    routeRouter<Arbitration>(routing, r, now);
    // Visits before the cycle it waits for would find every head as it is.
    if (s.inputs && (stayAwake_ || heldUntil_ == now + 1)) markActive(r);
    else if (s.inputs && heldUntil_ != kNoChange) sleepUntil(heldUntil_, r);
  });
  // The hops' pushes, in a second pass: a wavelet pushed this cycle is not
  // ready before the next, and the queue it joins is fed by this one link,
  // so deferring the pushes changes nothing but the memory order: each
  // receiving queue is fetched ahead. (Pushing in the first pass instead
  // made routers visited later in the cycle look at unready heads, and
  // lost this prefetch: half the speed at 256 x 256.)
  // Each stage reads what the one before fetched. Near the end of the
  // list the stages read moves past it: earlier cycles' or all-zero ones,
  // valid queues all, so their hints are merely useless.
  const std::size_t hops = moveCount_;
  counters_.hops += hops;
  for (std::size_t i = 0; i < hops; ++i) {
    const Move& farAhead = moves_[i + kTargetRouter];
    prefetch(&routers_[farAhead.to]);
    queues_.prefetchHome(farAhead.to, farAhead.input);
    if (scattered) {
      const Move& ahead = moves_[i + kTargetHeader];
      queues_.prefetchOwnHeader(ahead.to, ahead.input, ahead.wavelet.color());
    }
    const Move& nearAhead = moves_[i + kTargetTail];
    queues_.prefetchTail(nearAhead.to, nearAhead.input, nearAhead.wavelet.color());
    const Move& m = moves_[i];
    push(routing, m.to, Port(m.input), m.wavelet.readyAt(now + params_.hopLatencyCycles));
  }
  moveCount_ = 0;
  for (const Release& rel : releases_) {
    if (queues_.header(rel.router, rel.input, rel.color).count == queues_.depth()) continue;
    routers_[rel.router].noSpace[rel.input] &= ~(1u << rel.color);
    wakeSender(rel.router, rel.input, rel.color, now);
  }
  releases_.clear();
  if (counters_.queued != 0) checkWatchdog(now);
  const bool moved = hops != 0 || counters_.delivered + counters_.toEdge != leftBefore;
  // An empty fabric's sleepers were woken by other means and moved on.
  if (counters_.queued == 0) sleepers_.clear();
  const std::uint64_t sleeper = sleepers_.empty() ? kNoChange : sleepers_.front().first;
  nextChange_ = moved ? now + 1 : std::min({earliestHeld_, sleeper, watchdogExpiry(), kLastCycle});
}

void FabricKernel::gatherRequests(const RouterState& s, RouterId r, Requests& req) const {
  for (PortMask inputs = s.inputs; inputs; inputs &= PortMask(inputs - 1)) {
    const unsigned in = lowestBit(inputs);
    std::uint32_t(&colors)[kPortCount] = req.colors[in];
    colors[0] = colors[1] = colors[2] = colors[3] = colors[4] = 0;
    for (std::uint32_t m = s.nonEmpty[in]; m; m &= m - 1) {
      const unsigned color = lowestBit(m);
      PortMask outputs = queues_.header(r, in, color).pending;
      req.outputs |= outputs;
      for (; outputs; outputs &= PortMask(outputs - 1)) {
        const unsigned o = lowestBit(outputs);
        colors[o] |= 1u << color;
        req.inputs[o] |= PortMask(1u << in);
      }
    }
  }
}

// Finds the head output `o` grants this cycle: the arbitration policy's
// pick among the (input, color) pairs that want it, skipping those whose
// downstream queue is `full` or whose head is not ready. False if none can go.
template <class Arbitration>
bool FabricKernel::pickGrant(const RouterState& s, const Requests& req, RouterId r, unsigned o, std::uint32_t full,
                             std::uint64_t now, unsigned& input, unsigned& color) {
  // Heads still on the ramp, or on a link of more than one cycle, are not
  // ready; rare, so checked after the pick, not before.
  const auto ready = [&](unsigned in, unsigned c) {
    const std::uint64_t readyAt = queues_.front(queues_.header(r, in, c)).readyAt();
    if (readyAt <= now) return true;
    noteHeldUntil(readyAt);
    return false;
  };
  const Arbitration arbiter(s.arbiter[o]);
  const PortMask wanting = req.inputs[o];
  if (!(wanting & (wanting - 1))) {
    // One contending input (the common case): only its colors compete.
    input = lowestBit(wanting);
    for (std::uint32_t m = req.colors[input][o] & ~full; m; m &= ~(1u << color)) {
      color = arbiter.pickColor(input, m);
      if (ready(input, color)) return true;
    }
    return false;
  }
  std::uint32_t candidates[kPortCount];
  PortMask inputs = 0;  // inputs with a candidate
  for (PortMask w = wanting; w; w &= PortMask(w - 1)) {
    const unsigned in = lowestBit(w);
    candidates[in] = req.colors[in][o] & ~full;
    if (candidates[in]) inputs |= PortMask(1u << in);
  }
  while (inputs) {
    arbiter.pick(candidates, inputs, input, color);
    if (ready(input, color)) return true;
    candidates[input] &= ~(1u << color);
    if (!candidates[input]) inputs &= PortMask(~(1u << input));
  }
  return false;
}

template <class Arbitration, class Routing>
void FabricKernel::routeRouter(const Routing& routing, RouterId r, std::uint64_t now) {
  RouterState& state = routers_[r];
  const PortMask inputs = state.inputs;
  if (!(inputs & (inputs - 1))) {
    if (!inputs) return;
    const unsigned in = lowestBit(inputs);
    if (const std::uint32_t colors = state.nonEmpty[in]; !(colors & (colors - 1)))
      return routeQueue<Arbitration>(routing, state, r, in, lowestBit(colors), now);
  }
  arbitrate<Arbitration>(routing, state, r, now);
}

template <class Arbitration, class Routing>
void FabricKernel::routeQueue(const Routing& routing, RouterState& s, RouterId r, unsigned in, unsigned color,
                              std::uint64_t now) {
  // Without a contender, every output the head still wants and that has
  // room takes it, if it is ready.
  Header& h = queues_.header(r, in, color);
  PortMask moving = 0;
  for (PortMask wanted = h.pending; wanted; wanted &= PortMask(wanted - 1)) {
    const unsigned o = lowestBit(wanted);
    if (!((outputFull(s, r, o, now) >> color) & 1u)) moving |= PortMask(1u << o);
  }
  if (!moving) return;
  if (const std::uint64_t readyAt = queues_.front(h).readyAt(); readyAt > now) return noteHeldUntil(readyAt);
  for (; moving; moving &= PortMask(moving - 1))
    transfer<Arbitration>(routing, s, r, lowestBit(moving), in, color, h, now);
  retire(routing, r, h, in, color);
}

void FabricKernel::prefetchQueuesAhead(RouterId r) const {
  // Two stages: a head wavelet's place is known once its header is in.
  constexpr std::size_t kHeadersAhead = 8, kFrontsAhead = 4;
  if (r + kHeadersAhead < routers_.size()) {
    const RouterState& ahead = routers_[r + kHeadersAhead];
    for (PortMask inputs = ahead.inputs; inputs; inputs &= PortMask(inputs - 1)) {
      const unsigned in = lowestBit(inputs);
      queues_.prefetchHeaders(r + kHeadersAhead, in, ahead.nonEmpty[in]);
    }
  }
  if (r + kFrontsAhead < routers_.size())
    forEachQueue(r + kFrontsAhead,
                 [&](RouterId a, unsigned in, unsigned color) { queues_.prefetchFront(a, in, color); });
}

template <class Arbitration, class Routing>
void FabricKernel::arbitrate(const Routing& routing, RouterState& state, RouterId r, std::uint64_t now) {
  if (crowded_) prefetchQueuesAhead(r);
  Requests req;
  gatherRequests(state, r, req);
  // Each wanted output grants one head, by the arbitration policy, from the
  // requests at the start of the cycle, and the head moves at once. A head is retired
  // once no output still wants it, so a multicast head leaves once, and
  // only after every output that wants it has sent it: no output later in
  // this loop asks for the queue's next head, and a queue moves at most
  // one head per cycle. (One loop, not grant-then-move loops: their exits
  // cost a mispredicted branch each.)
  for (PortMask todo = req.outputs; todo; todo &= PortMask(todo - 1)) {
    const unsigned o = lowestBit(todo);
    unsigned in = 0, color = 0;
    if (!pickGrant<Arbitration>(state, req, r, o, outputFull(state, r, o, now), now, in, color)) continue;
    Header& h = queues_.header(r, in, color);
    transfer<Arbitration>(routing, state, r, o, in, color, h, now);
    retire(routing, r, h, in, color);
  }
}

std::uint32_t FabricKernel::outputFull(const RouterState& s, RouterId r, unsigned o, std::uint64_t now) {
  // An output that is wanted has a neighbour unless it is an edge output
  // (color routes only: XY never routes off the mesh).
  if (o == unsigned(Port::Ramp)) return s.rampNoSpace;
  if ((s.edgeOutputs >> o) & 1u) return edgeNoSpace(r, o, now);
  return routers_[r + neighbourOffset_[o]].noSpace[unsigned(opposite(Port(o)))];
}

template <class Arbitration, class Routing>
void FabricKernel::transfer(const Routing& routing, RouterState& s, RouterId r, unsigned o, unsigned in,
                            unsigned color, Header& h, std::uint64_t now) {
  Arbitration::granted(s.arbiter[o], in, color);
  stayAwake_ = true;
  const QueuedWavelet w = queues_.front(h);  // copy: a sink may inject into the queue it sits in
  if (o == unsigned(Port::Ramp)) {
    ++counters_.delivered;
    lastProgress_ = now;
    if (sink_) sink_->deliver(r, w.wavelet(), now + params_.rampLatencyCycles);
  } else if ((s.edgeOutputs >> o) & 1u) {
    ++counters_.toEdge;
    lastProgress_ = now;
    edgeSink_->leave(r, Port(o), w.wavelet(), now + params_.hopLatencyCycles);
  } else {
    const RouterId next = r + neighbourOffset_[o];
    const Port arrival = opposite(Port(o));
    routing.checkArrival(next, arrival, w);
    // Filled in place: a Move built on the stack and copied costs a store-forwarding stall.
    Move& move = moves_[moveCount_++];
    move.to = next;
    move.input = std::uint8_t(arrival);
    move.wavelet = w;
  }
  ++transfers_[std::size_t(r) * kPortCount + o];
  if (observer_) observer_->onTransfer(r, Port(o), color);
  h.pending &= PortMask(~(1u << o));
}

std::uint32_t FabricKernel::edgeNoSpace(RouterId r, unsigned output, std::uint64_t now) {
  if (!edgeSink_)
    throw FabricError("router " + params_.mesh.name(r) + " forwards wavelets off the mesh through its edge port " +
                      portName(Port(output)) + ", but nothing takes wavelets leaving the wafer");
  const std::uint64_t accepting = edgeSink_->firstAcceptingCycle(now, r, Port(output));
  if (accepting <= now) return 0u;
  notePendingUntil(accepting);
  noteHeldUntil(accepting);
  return ~0u;
}

void FabricKernel::sleepUntil(std::uint64_t cycle, RouterId r) {
  sleepers_.emplace_back(cycle, r);
  std::push_heap(sleepers_.begin(), sleepers_.end(), std::greater<TimedWake>());
}

void FabricKernel::noteHeldUntil(std::uint64_t cycle) {
  earliestHeld_ = std::min(earliestHeld_, cycle);
  heldUntil_ = std::min(heldUntil_, cycle);
}

void FabricKernel::checkWatchdog(std::uint64_t now) const {
  if (now < watchdogExpiry()) return;
  const std::uint64_t quietSince = std::max(lastProgress_, pendingUntil_);
  std::ostringstream msg;
  msg << "deadlock: no wavelet injected, delivered or sent off the wafer, and no PE work or I/O transfer due, for "
      << (now - quietSince) << " cycles (cycle " << now << ", watchdog run.watchdog_cycles=" << params_.watchdogCycles
      << "), " << counters_.queued
      << " wavelets still in the fabric\n"
      << blockedQueuesReport(40);
  throw DeadlockError(msg.str());
}

unsigned FabricKernel::occupancy(RouterId r, Port in) const {
  unsigned total = 0;
  for (std::uint32_t m = routers_[r].nonEmpty[unsigned(in)]; m; m &= m - 1)
    total += queues_.header(r, unsigned(in), lowestBit(m)).count;
  return total;
}

std::size_t FabricKernel::hostBytes() const {
  return routers_.bytes() + transfers_.bytes() + queues_.hostBytes() + current_.hostBytes() + next_.hostBytes() +
         moves_.bytes() + sleepers_.capacity() * sizeof(TimedWake);
}

std::size_t FabricKernel::plannedHostBytes(const FabricParams& params) {
  const std::size_t routers = params.mesh.routers(), homes = routers * kPortCount;
  return routers * sizeof(RouterState) + homes * sizeof(std::uint32_t) +
         WaveletQueues::plannedHostBytes(homes * params.colors, homes, params.queueDepth) +
         2 * ActiveSet::plannedHostBytes(params.mesh.routers()) +
         (routers * (kPortCount - 1) + kTargetRouter) * sizeof(Move) + routers * sizeof(TimedWake);
}

std::string FabricKernel::blockedQueuesReport(std::size_t maxLines) const {
  const MeshGeometry& mesh = params_.mesh;
  std::ostringstream out;
  std::size_t lines = 0, omitted = 0;
  for (RouterId r = 0; r < routers_.size(); ++r) {
    forEachQueue(r, [&](RouterId, unsigned in, unsigned color) {
      if (lines == maxLines) {
        ++omitted;
        return;
      }
      const Header& q = queues_.header(r, in, color);
      const PortMask wanted = withRoutingPolicy(params_.routing, [&](auto policy) {
        return typename decltype(policy)::type(mesh, routes_).forward(r, mesh.xOf(r), mesh.yOf(r), queues_.front(q));
      });
      const PortMask pending = q.pending;
      out << "  router " << mesh.name(r) << " input " << portName(Port(in)) << " color " << color << ": "
          << unsigned(q.count) << " queued, head wants " << portMaskName(wanted) << ", already sent to "
          << portMaskName(PortMask(wanted & ~pending));
      if ((pending & bit(Port::Ramp)) && (routers_[r].rampNoSpace & (1u << color)))
        out << "; blocked by the PE, which takes no more wavelets of color " << color;
      for (unsigned o = 0; o < kPortCount; ++o) {
        if (!(pending & (1u << o)) || o == unsigned(Port::Ramp)) continue;
        const RouterId n = mesh.neighbour(r, Port(o));
        if (n == kNoRouter) {
          out << "; waiting for outbound I/O bandwidth at edge port " << portName(Port(o));
          continue;
        }
        const Port arrival = opposite(Port(o));
        if (routers_[n].noSpace[unsigned(arrival)] & (1u << color))
          out << "; blocked by full queue at " << mesh.name(n) << " input " << portName(arrival) << " ("
              << unsigned(queues_.header(n, unsigned(arrival), color).count) << "/" << queues_.depth() << ")";
      }
      out << "\n";
      ++lines;
    });
  }
  if (omitted) out << "  ... and " << omitted << " more non-empty queues\n";
  return out.str();
}

}  // namespace wsesim::fabric
