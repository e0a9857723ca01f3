#include "hw/fabric/FabricKernel.h"

#include <algorithm>
#include <sstream>
#include <utility>

#include "hw/fabric/FabricError.h"

namespace wsesim::fabric {
namespace {

inline unsigned lowestBit(std::uint32_t m) { return unsigned(__builtin_ctz(m)); }

// Round-robin over (input, color) pairs in input-major order, starting just
// after the last grant. `requests[i]` holds the requesting colors of input i.
inline void pickRoundRobin(const std::uint32_t (&requests)[kPortCount], unsigned lastInput, unsigned lastColor,
                           unsigned& input, unsigned& color) {
  const std::uint32_t after = lastColor >= 31 ? 0u : ~0u << (lastColor + 1);
  if (std::uint32_t m = requests[lastInput] & after) {
    input = lastInput;
    color = lowestBit(m);
    return;
  }
  for (unsigned k = 1; k < kPortCount; ++k) {
    const unsigned i = lastInput + k < kPortCount ? lastInput + k : lastInput + k - kPortCount;
    if (requests[i]) {
      input = i;
      color = lowestBit(requests[i]);
      return;
    }
  }
  input = lastInput;
  color = lowestBit(requests[lastInput] & ~after);
}

}  // namespace

FabricKernel::FabricKernel(const FabricParams& params, const ColorRouteTable* routes)
    : params_(params),
      routes_(routes),
      routers_(params.mesh.routers()),
      queues_(std::size_t(params.mesh.routers()) * kPortCount * params.colors,
              std::size_t(params.mesh.routers()) * kPortCount, params.queueDepth),
      current_(params.mesh.routers()),
      next_(params.mesh.routers()) {
  if (params.routing == RoutingMode::Color && routes == nullptr)
    throw FabricError("color routing needs a color route table");
  if (params.colors == 0 || params.colors > 32)
    throw FabricError("the fabric supports 1..32 colors, got " + std::to_string(params.colors));
  if (params.hopLatency == 0) throw FabricError("hop latency must be at least one cycle");
  for (RouterId r = 0; r < routers_.size(); ++r) {
    RouterState& s = routers_[r];
    s.x = std::uint16_t(params.mesh.xOf(r));
    s.y = std::uint16_t(params.mesh.yOf(r));
    for (unsigned o = 0; o < kPortCount; ++o) {
      s.lastGrantInput[o] = kPortCount - 1;
      s.lastGrantColor[o] = 31;
    }
  }
}

void FabricKernel::push(RouterId r, Port in, const Wavelet& w, std::uint64_t readyAt) {
  queues_.push(queue(r, in, w.color), w, readyAt);
  routers_[r].nonEmpty[unsigned(in)] |= 1u << w.color;
  ++counters_.queued;
  markActive(r);
}

bool FabricKernel::inject(RouterId r, const Wavelet& w, std::uint64_t now) {
  if (w.color >= params_.colors)
    throw FabricError("PE " + params_.mesh.name(r) + " sent color " + std::to_string(w.color) +
                      " but the fabric has " + std::to_string(params_.colors) + " colors");
  if (params_.routing == RoutingMode::Xy && !params_.mesh.contains(w.destX, w.destY))
    throw FabricError("PE " + params_.mesh.name(r) + " sent a wavelet to (" + std::to_string(w.destX) + "," +
                      std::to_string(w.destY) + "), outside the " + std::to_string(params_.mesh.width) + "x" +
                      std::to_string(params_.mesh.height) + " mesh");
  RouterState& s = routers_[r];
  // A router that injected this cycle is active, so step() clears the flag.
  if (s.injected || !queues_.hasSpace(queue(r, Port::Ramp, w.color), now)) return false;
  if (params_.routing == RoutingMode::Color) ColorRouting{routes_}.checkArrival(r, Port::Ramp, w);
  s.injected = 1;
  push(r, Port::Ramp, w, now + params_.rampLatency);
  ++counters_.injected;
  lastProgress_ = now;
  return true;
}

void FabricKernel::step(std::uint64_t now) {
  if (params_.routing == RoutingMode::Color)
    stepWith(ColorRouting{routes_}, now);
  else
    stepWith(XyRouting{params_.mesh}, now);
}

template <class Routing>
void FabricKernel::stepWith(const Routing& routing, std::uint64_t now) {
  std::swap(current_, next_);
  visiting_.clear();
  current_.drain([&](RouterId r) { visiting_.push_back(r); });
  // Routers are independent within a cycle, so their memory is fetched
  // ahead in three stages, each using what the previous one brought in:
  // router state, the headers of its non-empty queues, their head wavelets.
  constexpr std::size_t kState = 12, kHeaders = 8, kHeads = 4;
  const std::size_t n = visiting_.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (i + kState < n) __builtin_prefetch(&routers_[visiting_[i + kState]]);
    if (i + kHeaders < n) prefetchQueues(visiting_[i + kHeaders], false);
    if (i + kHeads < n) prefetchQueues(visiting_[i + kHeads], true);
    const RouterId r = visiting_[i];
    RouterState& s = routers_[r];
    s.injected = 0;
    routeRouter(routing, r, now);
    if (holdsWavelets(s)) markActive(r);
  }
  if (counters_.queued != 0) checkWatchdog(now);
}

void FabricKernel::prefetchQueues(RouterId r, bool heads) const {
  const RouterState& s = routers_[r];
  for (unsigned in = 0; in < kPortCount; ++in)
    for (std::uint32_t m = s.nonEmpty[in]; m; m &= m - 1) {
      const QueueId q = queue(r, Port(in), lowestBit(m));
      if (heads)
        queues_.prefetchFront(q);
      else
        queues_.prefetchHeader(q);
    }
}

template <class Routing>
void FabricKernel::routeRouter(const Routing& routing, RouterId r, std::uint64_t now) {
  RouterState& state = routers_[r];
  const std::uint32_t x = state.x, y = state.y;
  const std::uint32_t width = params_.mesh.width;
  // Routes never point off the mesh (XY by construction, color routes are
  // validated when set), so neighbours need no edge checks here.
  const RouterId neighbour[kPortCount] = {r - width, r + 1, r + width, r - 1, r};
  const QueueId colorStride = QueueId(routers_.size()) * kPortCount;

  // The ready heads and the outputs each may take this cycle.
  struct Candidate {
    QueueId queue;
    std::uint8_t input, color;
    PortMask eligible;  // wanted outputs whose downstream queue has room
    PortMask forward;   // every output the head goes to
  };
  Candidate candidates[kPortCount * 32];
  unsigned count = 0;
  PortMask claimed = 0, contended = 0;
  for (unsigned in = 0; in < kPortCount; ++in) {
    for (std::uint32_t m = state.nonEmpty[in]; m; m &= m - 1) {
      const unsigned color = lowestBit(m);
      const QueueId q = queue(r, Port(in), color);
      const QueuedWavelet& head = queues_.front(q);
      if (head.readyAt > now) continue;
      const PortMask forward = routing.forward(r, x, y, head.wavelet);
      PortMask eligible = 0;
      for (PortMask wanted = PortMask(forward & ~queues_.sent(q)); wanted; wanted &= PortMask(wanted - 1)) {
        const unsigned o = lowestBit(wanted);
        if (o == unsigned(Port::Ramp) ||
            queues_.hasSpace(QueueId(color) * colorStride + QueueId(neighbour[o]) * kPortCount +
                                 unsigned(opposite(Port(o))),
                             now))
          eligible |= PortMask(1u << o);
      }
      if (!eligible) continue;
      contended |= claimed & eligible;
      claimed |= eligible;
      candidates[count++] = Candidate{q, std::uint8_t(in), std::uint8_t(color), eligible, forward};
    }
  }
  if (count == 0) return;

  // Without contention every candidate takes all its eligible outputs;
  // otherwise each contended output grants one (input, color) round-robin.
  if (contended) {
    std::uint32_t requests[kPortCount][kPortCount] = {};  // [output][input] -> colors
    for (unsigned i = 0; i < count; ++i)
      for (PortMask e = PortMask(candidates[i].eligible & contended); e; e &= PortMask(e - 1))
        requests[lowestBit(e)][candidates[i].input] |= 1u << candidates[i].color;
    for (unsigned i = 0; i < count; ++i) candidates[i].eligible &= PortMask(~contended);
    for (PortMask c = contended; c; c &= PortMask(c - 1)) {
      const unsigned o = lowestBit(c);
      unsigned in = 0, color = 0;
      pickRoundRobin(requests[o], state.lastGrantInput[o], state.lastGrantColor[o], in, color);
      for (unsigned i = 0; i < count; ++i)
        if (candidates[i].input == in && candidates[i].color == color) candidates[i].eligible |= PortMask(1u << o);
    }
  }

  for (unsigned i = 0; i < count; ++i) {
    const Candidate& c = candidates[i];
    if (!c.eligible) continue;
    const Wavelet w = queues_.front(c.queue).wavelet;  // copy: pushing may reuse the slot
    for (PortMask g = c.eligible; g; g &= PortMask(g - 1)) {
      const unsigned o = lowestBit(g);
      state.lastGrantInput[o] = c.input;
      state.lastGrantColor[o] = c.color;
      if (o == unsigned(Port::Ramp)) {
        ++counters_.delivered;
        lastProgress_ = now;
        if (sink_) sink_->deliver(r, w, now + params_.rampLatency);
      } else {
        const Port arrival = opposite(Port(o));
        routing.checkArrival(neighbour[o], arrival, w);
        push(neighbour[o], arrival, w, now + params_.hopLatency);
        ++counters_.hops;
      }
      ++state.transfers[o];
      if (observer_) observer_->onTransfer(r, Port(o), c.color);
    }
    queues_.markSent(c.queue, c.eligible);
    if (queues_.sent(c.queue) == c.forward) {
      queues_.pop(c.queue, now);
      --counters_.queued;
      if (queues_.empty(c.queue)) state.nonEmpty[c.input] &= ~(1u << c.color);
    }
  }
}

void FabricKernel::checkWatchdog(std::uint64_t now) const {
  if (now - lastProgress_ < params_.watchdogCycles) return;
  std::ostringstream msg;
  msg << "deadlock: no wavelet delivered or injected for " << (now - lastProgress_) << " cycles (cycle " << now
      << ", watchdog run.watchdog_cycles=" << params_.watchdogCycles << "), " << counters_.queued
      << " wavelets still in the fabric\n"
      << blockedQueuesReport(now, 40);
  throw DeadlockError(msg.str());
}

unsigned FabricKernel::occupancy(RouterId r, Port in) const {
  unsigned total = 0;
  for (std::uint32_t m = routers_[r].nonEmpty[unsigned(in)]; m; m &= m - 1)
    total += queues_.size(queue(r, in, lowestBit(m)));
  return total;
}

std::size_t FabricKernel::hostBytes() const {
  return routers_.capacity() * sizeof(RouterState) + queues_.hostBytes() +
         current_.hostBytes() + next_.hostBytes();
}

std::string FabricKernel::blockedQueuesReport(std::uint64_t now, std::size_t maxLines) const {
  const MeshGeometry& mesh = params_.mesh;
  std::ostringstream out;
  std::size_t lines = 0, omitted = 0;
  next_.forEach([&](RouterId r) {
    for (unsigned in = 0; in < kPortCount; ++in) {
      for (std::uint32_t m = routers_[r].nonEmpty[in]; m; m &= m - 1) {
        if (lines == maxLines) {
          ++omitted;
          continue;
        }
        const unsigned color = lowestBit(m);
        const QueueId q = queue(r, Port(in), color);
        const PortMask wanted = params_.routing == RoutingMode::Color
                                    ? routes_->at(r, color).forward
                                    : XyRouting{mesh}.forward(r, mesh.xOf(r), mesh.yOf(r), queues_.front(q).wavelet);
        out << "  router " << mesh.name(r) << " input " << portName(Port(in)) << " color " << color << ": "
            << queues_.size(q) << " queued, head wants " << portMaskName(wanted) << ", already sent to "
            << portMaskName(queues_.sent(q));
        for (unsigned o = 0; o < kPortCount; ++o) {
          if (!(wanted & (1u << o)) || (queues_.sent(q) & (1u << o)) || o == unsigned(Port::Ramp)) continue;
          const RouterId n = mesh.neighbour(r, Port(o));
          const QueueId d = queue(n, opposite(Port(o)), color);
          if (!queues_.hasSpace(d, now))
            out << "; blocked by full queue at " << mesh.name(n) << " input " << portName(opposite(Port(o))) << " ("
                << queues_.size(d) << "/" << queues_.depth() << ")";
        }
        out << "\n";
        ++lines;
      }
    }
  });
  if (omitted) out << "  ... and " << omitted << " more non-empty queues\n";
  return out.str();
}

}  // namespace wsesim::fabric
