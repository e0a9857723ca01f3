#include "hw/fabric/FabricKernel.h"

#include <algorithm>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "hw/fabric/FabricError.h"
#include "hw/fabric/LowestBit.h"
#include "hw/fabric/Prefetch.h"

namespace wsesim::fabric {

namespace {

// A band takes an equal share of the routers, whole groups of 16 (a
// router's transfer counters then start a cache line), and has at least
// 16; there are at most 255 (a router's band is a byte).
RouterId bandRoutersFor(RouterId routers, unsigned threads) {
  threads = std::clamp(threads, 1u, 255u);
  const RouterId share = (routers + threads - 1) / threads;
  return std::max<RouterId>(16, (share + 15) / 16 * 16);
}

unsigned bandCount(RouterId routers, unsigned threads) {
  const RouterId perBand = bandRoutersFor(routers, threads);
  return unsigned((routers + perBand - 1) / perBand);
}

// Bands step at once only in cycles with at least this many routers
// active per band: a fork and a join cost about a microsecond, a router
// visit 10 to 100 ns.
constexpr std::size_t kActivePerBandToSplit = 64;

}  // namespace

FabricKernel::FabricKernel(const FabricParams& params, const ColorRouteTable* routes, unsigned threads)
    : params_(params),
      routes_(routes),
      routers_(params.mesh.routers(), ZeroedArray<RouterState>::Pages::Huge),
      transfers_(std::size_t(params.mesh.routers()) * kPortCount, ZeroedArray<std::uint32_t>::Pages::Huge),
      queues_(std::size_t(params.mesh.routers()) * kPortCount * params.colors,
              std::size_t(params.mesh.routers()) * kPortCount, params.queueDepth,
              bandCount(params.mesh.routers(), threads)),
      neighbourOffset_{0u - params.mesh.width, 1u, params.mesh.width, 0u - 1u, 0u} {
  const RouterId routerCount = params.mesh.routers();
  const RouterId perBand = bandRoutersFor(routerCount, threads);
  std::vector<RouterId> firsts;
  for (unsigned b = 0; b < bandCount(routerCount, threads); ++b) firsts.push_back(b * perBand);
  drawBands(firsts);
  if (bands_.size() > 1) workers_ = std::make_unique<BandWorkers>(unsigned(bands_.size()));
  withRoutingPolicy(params.routing, [&](auto policy) { decltype(policy)::type::checkSetup(routes); });
  if (params.colors == 0 || params.colors > 32)
    throw FabricError("the fabric supports 1..32 colors, got " + std::to_string(params.colors));
  if (params.hopLatencyCycles == 0) throw FabricError("hop latency must be at least one cycle");
  for (RouterId r = 0; r < routers_.size(); ++r) {
    RouterState& s = routers_[r];
    s.x = std::uint16_t(params.mesh.xOf(r));
    s.y = std::uint16_t(params.mesh.yOf(r));
    for (unsigned o = 0; o < kPortCount; ++o)
      if (Port(o) != Port::Ramp && params.mesh.neighbour(r, Port(o)) == kNoRouter) s.edgeOutputs |= bit(Port(o));
  }
  restartArbiters();
}

FabricKernel::~FabricKernel() = default;

void FabricKernel::restartArbiters() {
  if (!idle())
    throw std::logic_error("the arbiters restarted while " + std::to_string(counters_.queued) +
                           " wavelets are queued in the fabric");
  const ArbiterState initial =
      withArbitrationPolicy(params_.arbitration, [](auto policy) { return decltype(policy)::type::kInitialState; });
  for (RouterId r = 0; r < routers_.size(); ++r)
    for (ArbiterState& a : routers_[r].arbiter) a = initial;
}

void FabricKernel::drawBands(const std::vector<RouterId>& firsts) {
  const RouterId routerCount = params_.mesh.routers();
  bands_.clear();
  routerBand_.clear();
  for (unsigned b = 0; b < firsts.size(); ++b)
    bands_.push_back(std::make_unique<FabricBand>(b, firsts[b], b + 1 < firsts.size() ? firsts[b + 1] : routerCount,
                                                  routerCount));
  if (bands_.size() > 1)
    for (const std::unique_ptr<FabricBand>& band : bands_)
      routerBand_.insert(routerBand_.end(), band->end - band->first, std::uint8_t(band->index));
}

void FabricKernel::setEdgeSink(EdgeSink* sink) {
  edgeSink_ = sink;
  edgesInOrder_ = sink ? sink->sides() : PortMask(0);
  if (!sink || bands_.size() == 1) return;
  const std::vector<std::uint32_t> groups = sink->rowGroups();
  if (groups.empty() || !idle()) return;
  // Each boundary moves to the start of the group of rows nearest to it;
  // bands that would come out empty keep the edge routers in order.
  const RouterId width = params_.mesh.width;
  std::vector<RouterId> firsts{0};
  for (unsigned b = 1; b < bands_.size(); ++b) {
    const RouterId ideal = bands_[b]->first;
    const auto after = std::lower_bound(groups.begin(), groups.end(), ideal / width);
    RouterId best = after == groups.end() ? kNoRouter : *after * width;
    if (after != groups.begin() && (best == kNoRouter || ideal - *(after - 1) * width < best - ideal))
      best = *(after - 1) * width;
    if (best <= firsts.back() || best >= params_.mesh.routers()) return;
    firsts.push_back(best);
  }
  drawBands(firsts);
  edgesInOrder_ = 0;
}

template <bool Bands, class Routing>
void FabricKernel::push(const Routing& routing, FabricBand& band, RouterId r, Port in, const QueuedWavelet& w) {
  RouterState& s = routers_[r];
  const unsigned port = unsigned(in);
  const unsigned color = w.color();
  const std::uint32_t colorBit = 1u << color;
  // An empty queue is opened with the wavelet, without a look at its
  // header, which is mostly not where it will be (the home's is).
  Header& h = s.nonEmpty[port] & colorBit ? queues_.push(queues_.header(r, port, color), w)
                                          : queues_.open(r, port, color, w, Bands ? band.index : 0);
  const unsigned size = h.count;
  if (size == 1) h.pending = routing.forward(r, s.x, s.y, w);
  s.nonEmpty[port] |= colorBit;
  s.inputs |= PortMask(1u << port);
  if (size == queues_.depth()) s.noSpace[port] |= colorBit;
  band.next.insert(r);
}

template <bool Bands, class Routing>
void FabricKernel::retire(const Routing& routing, FabricBand& band, RouterId r, Header& h, unsigned in,
                          unsigned color) {
  // A multicast head granted by several outputs is retired by the first;
  // the queue has a new head, or none, by the time the others look.
  if (h.pending || !h.count) return;
  RouterState& s = routers_[r];
  // A slot freed by a pop becomes usable by the upstream router only in the
  // next cycle (the credit travels back over the link), so the outcome does
  // not depend on the order in which routers are visited within a cycle.
  if (h.count == queues_.depth()) band.releases.push_back(Release{r, std::uint8_t(in), std::uint8_t(color)});
  queues_.pop(h, Bands ? band.index : 0);
  --band.queued;
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
  FabricBand& band = bandOf(r);
  push<true>(routing, band, r, in, queued);
  if (injectingInBands_) {
    ++band.queued;
    ++(in == Port::Ramp ? band.injected : band.fromEdge);
    band.lastInjection = now;
    return true;
  }
  ++counters_.queued;
  ++(in == Port::Ramp ? counters_.injected : counters_.fromEdge);
  lastProgress_ = now;
  return true;
}

bool FabricKernel::forEachBand(bool atOnce, const std::function<void(unsigned band)>& work) {
  if (!workers_ || !atOnce || (paced_ && !pacing_.atOnce())) {
    for (unsigned b = 0; b < bands_.size(); ++b) work(b);
    return false;
  }
  injectingInBands_ = true;
  workers_->run([&](unsigned b) {
    try {
      work(b);
    } catch (...) {
      bands_[b]->error = std::current_exception();
    }
  });
  injectingInBands_ = false;
  for (const std::unique_ptr<FabricBand>& b : bands_) {
    FabricBand& band = *b;
    counters_.queued = std::uint64_t(std::int64_t(counters_.queued) + band.queued);
    counters_.injected += band.injected;
    counters_.fromEdge += band.fromEdge;
    lastProgress_ = std::max(lastProgress_, band.lastInjection);
    band.queued = 0;
    band.injected = band.fromEdge = 0;
  }
  for (const std::unique_ptr<FabricBand>& b : bands_)
    if (b->error) std::rethrow_exception(std::exchange(b->error, nullptr));
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
  std::size_t active = 0;
  for (const std::unique_ptr<FabricBand>& b : bands_) {
    FabricBand& band = *b;
    std::swap(band.current, band.next);
    while (!band.sleepers.empty() && band.sleepers.front().first <= now) {
      band.current.insert(band.sleepers.front().second);
      std::pop_heap(band.sleepers.begin(), band.sleepers.end(), std::greater<TimedWake>());
      band.sleepers.pop_back();
    }
    active += band.current.size();
  }
  // Queues outside their home (own headers, overflow blocks) are scattered
  // over memory where the hardware prefetchers cannot follow; where they
  // are common, the kernel prefetches them itself.
  scattered_ = queues_.overflowed() * 4 >= active;
  crowded_ = scattered_ && active * 4 >= routers_.size() * 3;
  const bool couldSplit = workers_ && !observer_ && active >= bands_.size() * kActivePerBandToSplit;
  const bool atOnce = couldSplit && (!paced_ || pacing_.atOnce());
  if (atOnce) {
    // The bands at once: each steps its routers inside the mesh, then one
    // thread steps the edge routers and hands over the deliveries, in
    // router order, and the bands push their moves at once. Nothing a band
    // reads in a pass is written by another in it (docs/fabric-model.md,
    // "Bands over threads").
    ++cyclesInBands_;
    for (const std::unique_ptr<FabricBand>& b : bands_) b->deferred = true;
    workers_->run([&](unsigned i) {
      FabricBand& band = *bands_[i];
      try {
        stepBand<Arbitration, true>(routing, band, now);
      } catch (...) {
        band.error = std::current_exception();
      }
    });
    stepEdgesInOrder<Arbitration>(routing, now);
    workers_->run([&](unsigned i) { pushMoves<true>(routing, *bands_[i], now); });
    for (const std::unique_ptr<FabricBand>& b : bands_) b->deferred = false;
  } else if (bands_.size() == 1) {
    stepBand<Arbitration, false>(routing, *bands_[0], now);
    pushMoves<false>(routing, *bands_[0], now);
  } else {
    for (const std::unique_ptr<FabricBand>& b : bands_) stepBand<Arbitration, true>(routing, *b, now);
    for (const std::unique_ptr<FabricBand>& b : bands_) pushMoves<true>(routing, *b, now);
  }
  endCycle(routing, now);
  if (workers_) {
    // The cycle's host time, its driver's share included: since the last step ended.
    const auto ended = std::chrono::steady_clock::now();
    if (couldSplit)
      pacing_.cycleDone(std::uint64_t(std::chrono::nanoseconds(ended - lastStepEnd_).count()), active);
    lastStepEnd_ = ended;
  }
}

template <class Arbitration, bool Bands, class Routing>
void FabricKernel::stepBand(const Routing& routing, FabricBand& band, std::uint64_t now) {
  // A router reads its neighbours' credits (noSpace). Those of the row
  // above were walked a row ago and the east and west ones share lines with
  // its own, but the south neighbour's are a row ahead of the walk, where
  // the hardware prefetchers have not reached: fetched a few routers early.
  const std::size_t southAhead = std::size_t(params_.mesh.width) + 4;
  const bool deferred = Bands && band.deferred;
  // Inlined into the walk: growing past the compiler's limit, it was called per router (5% more instructions).
  band.current.drain([&](RouterId r) __attribute__((always_inline)) {
    if (r + southAhead < routers_.size()) prefetch(&routers_[r + southAhead]);
    if (deferred) {
      if (routers_[r].edgeOutputs & edgesInOrder_) return band.edgeRouters.push_back(r);
      band.errorAt = r;  // the router being stepped, should it throw
    }
    visit<Arbitration, Bands>(routing, band, r, now);
  });
  band.errorAt = kNoRouter;
}

template <class Arbitration, bool Bands, class Routing>
void FabricKernel::visit(const Routing& routing, FabricBand& band, RouterId r, std::uint64_t now) {
  RouterState& s = routers_[r];
  s.injected = 0;
  band.stayAwake = false;
  band.heldUntil = kNoChange;
  routeRouter<Arbitration, Bands>(routing, band, r, now);
  // Visits before the cycle it waits for would find every head as it is.
  if (s.inputs && (band.stayAwake || band.heldUntil == now + 1)) band.next.insert(r);
  else if (s.inputs && band.heldUntil != kNoChange) sleepUntil(band, band.heldUntil, r);
}

template <class Arbitration, class Routing>
void FabricKernel::stepEdgesInOrder(const Routing& routing, std::uint64_t now) {
  const auto byRouter = [](const Release& a, const Release& b) { return a.router < b.router; };
  for (const std::unique_ptr<FabricBand>& b : bands_) {
    FabricBand& band = *b;
    band.deferred = false;
    const std::size_t bandReleases = band.releases.size();
    std::size_t d = 0;
    const auto deliverBefore = [&](RouterId end) {
      for (; d < band.deliveries.size() && band.deliveries[d].at < end; ++d)
        if (sink_) sink_->deliver(band.deliveries[d].at, band.deliveries[d].wavelet, band.deliveries[d].arrivalCycle);
    };
    for (const RouterId e : band.edgeRouters) {
      if (e > band.errorAt) break;
      deliverBefore(e);
      visit<Arbitration, true>(routing, band, e, now);
    }
    deliverBefore(band.errorAt);
    if (band.error) std::rethrow_exception(std::exchange(band.error, nullptr));
    // The credits given back, in router order too: the band's inner
    // routers' first, then its edge routers'.
    std::inplace_merge(band.releases.begin(), band.releases.begin() + std::ptrdiff_t(bandReleases),
                       band.releases.end(), byRouter);
    band.deliveries.clear();
    band.edgeRouters.clear();
    band.deferred = true;
  }
}

template <bool Bands, class Routing>
void FabricKernel::pushMoves(const Routing& routing, FabricBand& band, std::uint64_t now) {
  // The hops' pushes, in a second pass: a wavelet pushed this cycle is not
  // ready before the next, and the queue it joins is fed by this one link,
  // so deferring the pushes changes nothing but the memory order: each
  // receiving queue is fetched ahead. (Pushing in the first pass instead
  // made routers visited later in the cycle look at unready heads, and
  // lost this prefetch: half the speed at 256 x 256.)
  // Each stage reads what the one before fetched. Near the end of the
  // list the stages read moves past it: earlier cycles' ones, valid queues
  // of the band all, so their hints are merely useless, or all-zero ones,
  // router 0's, which bands stepping at once must not read: those are
  // made the band's first router's.
  const std::size_t count = band.moveCount;
  band.hops += count + band.crossMoves.size();
  const bool deferred = Bands && band.deferred;
  if (deferred)
    for (std::size_t i = count; i < count + kTargetRouter; ++i) band.moves[i] = Move{band.first, 0, QueuedWavelet()};
  const bool scattered = scattered_;
  for (std::size_t i = 0; i < count; ++i) {
    const Move& farAhead = band.moves[i + kTargetRouter];
    prefetch(&routers_[farAhead.to]);
    queues_.prefetchHome(farAhead.to, farAhead.input);
    if (scattered) {
      const Move& ahead = band.moves[i + kTargetHeader];
      queues_.prefetchOwnHeader(ahead.to, ahead.input, ahead.wavelet.color());
    }
    const Move& nearAhead = band.moves[i + kTargetTail];
    queues_.prefetchTail(nearAhead.to, nearAhead.input, nearAhead.wavelet.color());
    const Move& m = band.moves[i];
    push<Bands>(routing, band, m.to, Port(m.input), m.wavelet.readyAt(now + params_.hopLatencyCycles));
    ++band.queued;
  }
  band.moveCount = 0;
}

template <class Routing>
void FabricKernel::endCycle(const Routing& routing, std::uint64_t now) {
  for (const std::unique_ptr<FabricBand>& b : bands_) {
    for (const Move& m : b->crossMoves)
      push<true>(routing, bandOf(m.to), m.to, Port(m.input), m.wavelet.readyAt(now + params_.hopLatencyCycles));
    counters_.queued += b->crossMoves.size();
    b->crossMoves.clear();
  }
  bool moved = false;
  std::uint64_t earliestHeld = kNoChange;
  for (const std::unique_ptr<FabricBand>& b : bands_) {
    FabricBand& band = *b;
    for (const Release& rel : band.releases) {
      if (queues_.header(rel.router, rel.input, rel.color).count == queues_.depth()) continue;
      routers_[rel.router].noSpace[rel.input] &= ~(1u << rel.color);
      wakeSender(rel.router, rel.input, rel.color, now);
    }
    band.releases.clear();
  }
  // The tallies, once every band's pushes are in (a cross move is counted by the band that pushed it).
  for (const std::unique_ptr<FabricBand>& b : bands_) {
    FabricBand& band = *b;
    counters_.hops += band.hops;
    counters_.delivered += band.delivered;
    counters_.toEdge += band.toEdge;
    counters_.queued = std::uint64_t(std::int64_t(counters_.queued) + band.queued);
    moved = moved || band.hops != 0 || band.progressed;
    if (band.progressed) lastProgress_ = now;
    earliestHeld = std::min(earliestHeld, band.earliestHeld);
    band.hops = band.delivered = band.toEdge = 0;
    band.queued = 0;
    band.progressed = false;
    band.earliestHeld = kNoChange;
  }
  if (counters_.queued != 0) checkWatchdog(now);
  std::uint64_t sleeper = kNoChange;
  for (const std::unique_ptr<FabricBand>& b : bands_) {
    // An empty fabric's sleepers were woken by other means and moved on.
    if (counters_.queued == 0) b->sleepers.clear();
    if (!b->sleepers.empty()) sleeper = std::min(sleeper, b->sleepers.front().first);
  }
  nextChange_ = moved ? now + 1 : std::min({earliestHeld, sleeper, watchdogExpiry(), kLastCycle});
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
bool FabricKernel::pickGrant(FabricBand& band, const RouterState& s, const Requests& req, RouterId r, unsigned o,
                             std::uint32_t full, std::uint64_t now, unsigned& input, unsigned& color) {
  // Heads still on the ramp, or on a link of more than one cycle, are not
  // ready; rare, so checked after the pick, not before.
  const auto ready = [&](unsigned in, unsigned c) {
    const std::uint64_t readyAt = queues_.front(queues_.header(r, in, c)).readyAt();
    if (readyAt <= now) return true;
    noteHeldUntil(band, readyAt);
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

template <class Arbitration, bool Bands, class Routing>
void FabricKernel::routeRouter(const Routing& routing, FabricBand& band, RouterId r, std::uint64_t now) {
  RouterState& state = routers_[r];
  const PortMask inputs = state.inputs;
  if (!(inputs & (inputs - 1))) {
    if (!inputs) return;
    const unsigned in = lowestBit(inputs);
    if (const std::uint32_t colors = state.nonEmpty[in]; !(colors & (colors - 1)))
      return routeQueue<Arbitration, Bands>(routing, band, state, r, in, lowestBit(colors), now);
  }
  arbitrate<Arbitration, Bands>(routing, band, state, r, now);
}

template <class Arbitration, bool Bands, class Routing>
void FabricKernel::routeQueue(const Routing& routing, FabricBand& band, RouterState& s, RouterId r, unsigned in,
                              unsigned color, std::uint64_t now) {
  // Without a contender, every output the head still wants and that has
  // room takes it, if it is ready.
  Header& h = queues_.header(r, in, color);
  PortMask moving = 0;
  for (PortMask wanted = h.pending; wanted; wanted &= PortMask(wanted - 1)) {
    const unsigned o = lowestBit(wanted);
    if (!((outputFull(band, s, r, o, now) >> color) & 1u)) moving |= PortMask(1u << o);
  }
  if (!moving) return;
  if (const std::uint64_t readyAt = queues_.front(h).readyAt(); readyAt > now) return noteHeldUntil(band, readyAt);
  for (; moving; moving &= PortMask(moving - 1))
    transfer<Arbitration, Bands>(routing, band, s, r, lowestBit(moving), in, color, h, now);
  retire<Bands>(routing, band, r, h, in, color);
}

void FabricKernel::prefetchQueuesAhead(RouterId r, RouterId bandEnd) const {
  // Two stages: a head wavelet's place is known once its header is in.
  constexpr std::size_t kHeadersAhead = 8, kFrontsAhead = 4;
  if (r + kHeadersAhead < bandEnd) {
    const RouterState& ahead = routers_[r + kHeadersAhead];
    for (PortMask inputs = ahead.inputs; inputs; inputs &= PortMask(inputs - 1)) {
      const unsigned in = lowestBit(inputs);
      queues_.prefetchHeaders(r + kHeadersAhead, in, ahead.nonEmpty[in]);
    }
  }
  if (r + kFrontsAhead < bandEnd)
    forEachQueue(r + kFrontsAhead,
                 [&](RouterId a, unsigned in, unsigned color) { queues_.prefetchFront(a, in, color); });
}

template <class Arbitration, bool Bands, class Routing>
void FabricKernel::arbitrate(const Routing& routing, FabricBand& band, RouterState& state, RouterId r,
                             std::uint64_t now) {
  if (crowded_) prefetchQueuesAhead(r, band.end);
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
    if (!pickGrant<Arbitration>(band, state, req, r, o, outputFull(band, state, r, o, now), now, in, color)) continue;
    Header& h = queues_.header(r, in, color);
    transfer<Arbitration, Bands>(routing, band, state, r, o, in, color, h, now);
    retire<Bands>(routing, band, r, h, in, color);
  }
}

std::uint32_t FabricKernel::outputFull(FabricBand& band, const RouterState& s, RouterId r, unsigned o,
                                       std::uint64_t now) {
  // An output that is wanted has a neighbour unless it is an edge output
  // (color routes only: XY never routes off the mesh).
  if (o == unsigned(Port::Ramp)) return s.rampNoSpace;
  if ((s.edgeOutputs >> o) & 1u) return edgeNoSpace(band, r, o, now);
  return routers_[r + neighbourOffset_[o]].noSpace[unsigned(opposite(Port(o)))];
}

template <class Arbitration, bool Bands, class Routing>
void FabricKernel::transfer(const Routing& routing, FabricBand& band, RouterState& s, RouterId r, unsigned o,
                            unsigned in, unsigned color, Header& h, std::uint64_t now) {
  Arbitration::granted(s.arbiter[o], in, color);
  band.stayAwake = true;
  const QueuedWavelet w = queues_.front(h);  // copy: a sink may inject into the queue it sits in
  if (o == unsigned(Port::Ramp)) {
    ++band.delivered;
    band.progressed = true;
    if (Bands && band.deferred && !sinkInBands_)
      band.deliveries.push_back(Delivery{r, w.wavelet(), now + params_.rampLatencyCycles});
    else if (sink_)
      sink_->deliver(r, w.wavelet(), now + params_.rampLatencyCycles);
  } else if ((s.edgeOutputs >> o) & 1u) {
    ++band.toEdge;
    band.progressed = true;
    edgeSink_->leave(r, Port(o), w.wavelet(), now + params_.hopLatencyCycles);
  } else {
    const RouterId next = r + neighbourOffset_[o];
    const Port arrival = opposite(Port(o));
    routing.checkArrival(next, arrival, w);
    // Filled in place: a Move built on the stack and copied costs a store-forwarding stall.
    Move& move = !Bands || band.holds(next) ? band.moves[band.moveCount++] : band.crossMoves.emplace_back();
    move.to = next;
    move.input = std::uint8_t(arrival);
    move.wavelet = w;
  }
  ++transfers_[std::size_t(r) * kPortCount + o];
  if (observer_) observer_->onTransfer(r, Port(o), color);
  h.pending &= PortMask(~(1u << o));
}

std::uint32_t FabricKernel::edgeNoSpace(FabricBand& band, RouterId r, unsigned output, std::uint64_t now) {
  if (!edgeSink_)
    throw FabricError("router " + params_.mesh.name(r) + " forwards wavelets off the mesh through its edge port " +
                      portName(Port(output)) + ", but nothing takes wavelets leaving the wafer");
  const std::uint64_t accepting = edgeSink_->firstAcceptingCycle(now, r, Port(output));
  if (accepting <= now) return 0u;
  notePendingUntil(accepting);
  noteHeldUntil(band, accepting);
  return ~0u;
}

void FabricKernel::sleepUntil(FabricBand& band, std::uint64_t cycle, RouterId r) {
  band.sleepers.emplace_back(cycle, r);
  std::push_heap(band.sleepers.begin(), band.sleepers.end(), std::greater<TimedWake>());
}

void FabricKernel::noteHeldUntil(FabricBand& band, std::uint64_t cycle) {
  band.earliestHeld = std::min(band.earliestHeld, cycle);
  band.heldUntil = std::min(band.heldUntil, cycle);
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
  std::size_t bytes = routers_.bytes() + transfers_.bytes() + queues_.hostBytes() + routerBand_.capacity();
  for (const std::unique_ptr<FabricBand>& b : bands_)
    bytes += b->current.hostBytes() + b->next.hostBytes() + b->moves.bytes() +
             b->sleepers.capacity() * sizeof(TimedWake) + b->crossMoves.capacity() * sizeof(Move) +
             b->deliveries.capacity() * sizeof(Delivery) + b->edgeRouters.capacity() * sizeof(RouterId);
  return bytes;
}

std::size_t FabricKernel::plannedHostBytes(const FabricParams& params, unsigned threads) {
  const std::size_t routers = params.mesh.routers(), homes = routers * kPortCount;
  const std::size_t bands = bandCount(params.mesh.routers(), threads);
  // Bands stepped at once keep a cycle's deliveries and edge routers, and
  // their moves that another thread pushes: each at most a router's worth,
  // doubled by the vectors' growth; and each router's band, a byte.
  const std::size_t deferred =
      bands > 1 ? 2 * routers * (sizeof(Delivery) + sizeof(RouterId) + (kPortCount - 1) * sizeof(Move)) + routers : 0;
  return routers * sizeof(RouterState) + homes * sizeof(std::uint32_t) +
         WaveletQueues::plannedHostBytes(homes * params.colors, homes, params.queueDepth) +
         bands * 2 * ActiveSet::plannedHostBytes(params.mesh.routers()) +
         (routers * (kPortCount - 1) + bands * kTargetRouter) * sizeof(Move) + routers * sizeof(TimedWake) + deferred;
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
