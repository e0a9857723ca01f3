#include "hw/fabric/FabricKernel.h"

#include <sstream>

#include "hw/fabric/FabricError.h"

namespace wsesim::fabric {
namespace {

inline unsigned lowestBit(std::uint32_t m) { return unsigned(__builtin_ctz(m)); }

// Round-robin over (input, color) pairs in input-major order, starting just
// after the last grant. `requests[i]` holds the requesting colors of input i.
inline bool pickRoundRobin(const std::uint32_t (&requests)[kPortCount], unsigned lastInput,
                           unsigned lastColor, unsigned& input, unsigned& color) {
  const std::uint32_t after = lastColor >= 31 ? 0u : ~0u << (lastColor + 1);
  if (std::uint32_t m = requests[lastInput] & after) {
    input = lastInput;
    color = lowestBit(m);
    return true;
  }
  for (unsigned k = 1; k < kPortCount; ++k) {
    const unsigned i = (lastInput + k) % kPortCount;
    if (requests[i]) {
      input = i;
      color = lowestBit(requests[i]);
      return true;
    }
  }
  if (std::uint32_t m = requests[lastInput] & ~after) {
    input = lastInput;
    color = lowestBit(m);
    return true;
  }
  return false;
}

}  // namespace

FabricKernel::FabricKernel(const FabricParams& params, const ColorRouteTable* routes)
    : params_(params),
      routes_(routes),
      pool_(params.queueDepth),
      handleBase_(params.mesh.routers(), kNoRouter),
      nonEmpty_(std::size_t(params.mesh.routers()) * kPortCount, 0),
      lastGrant_(std::size_t(params.mesh.routers()) * kPortCount),
      transfers_(std::size_t(params.mesh.routers()) * kPortCount, 0),
      lastInjectPlusOne_(params.mesh.routers(), 0),
      isActive_(params.mesh.routers(), 0) {
  if (params.routing == RoutingMode::Color && routes == nullptr)
    throw FabricError("color routing needs a color route table");
  if (params.colors == 0 || params.colors > 32)
    throw FabricError("the fabric supports 1..32 colors, got " + std::to_string(params.colors));
  if (params.hopLatency == 0) throw FabricError("hop latency must be at least one cycle");
}

FabricKernel::Handle FabricKernel::queueForPush(RouterId r, Port in, unsigned color) {
  if (handleBase_[r] == kNoRouter) {
    handleBase_[r] = std::uint32_t(handles_.size());
    handles_.resize(handles_.size() + std::size_t(kPortCount) * params_.colors, WaveletQueuePool::kNone);
  }
  Handle& h = handles_[handleBase_[r] + unsigned(in) * params_.colors + color];
  if (h == WaveletQueuePool::kNone) h = pool_.acquire();
  return h;
}

void FabricKernel::push(RouterId r, Port in, const Wavelet& w, std::uint64_t readyAt) {
  pool_.push(queueForPush(r, in, w.color), w, readyAt);
  nonEmpty_[std::size_t(r) * kPortCount + unsigned(in)] |= 1u << w.color;
  ++counters_.queued;
  markActive(r);
}

void FabricKernel::popHead(RouterId r, Port in, unsigned color, Handle h, std::uint64_t now) {
  pool_.pop(h, now);
  --counters_.queued;
  if (pool_.empty(h)) {
    nonEmpty_[std::size_t(r) * kPortCount + unsigned(in)] &= ~(1u << color);
    drained_.push_back(handleBase_[r] + unsigned(in) * params_.colors + color);
  }
}

void FabricKernel::markActive(RouterId r) {
  if (isActive_[r]) return;
  isActive_[r] = 1;
  active_.push_back(r);
}

bool FabricKernel::holdsWavelets(RouterId r) const {
  const std::uint32_t* m = &nonEmpty_[std::size_t(r) * kPortCount];
  return (m[0] | m[1] | m[2] | m[3] | m[4]) != 0;
}

bool FabricKernel::inject(RouterId r, const Wavelet& w, std::uint64_t now) {
  if (w.color >= params_.colors)
    throw FabricError("PE " + params_.mesh.name(r) + " sent color " + std::to_string(w.color) +
                      " but the fabric has " + std::to_string(params_.colors) + " colors");
  if (lastInjectPlusOne_[r] == now + 1 || !hasSpace(r, Port::Ramp, w.color, now)) return false;
  if (params_.routing == RoutingMode::Color) ColorRouting{routes_}.checkArrival(r, Port::Ramp, w);
  lastInjectPlusOne_[r] = now + 1;
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
  visiting_.swap(active_);
  active_.clear();
  for (RouterId r : visiting_) isActive_[r] = 0;
  for (RouterId r : visiting_) {
    routeRouter(routing, r, now);
    if (holdsWavelets(r)) markActive(r);
  }
  // Queues emptied this cycle go back to the pool only now, so that their
  // pop stays visible to hasSpace() for the rest of the cycle.
  for (std::uint32_t slot : drained_) {
    const Handle h = handles_[slot];
    if (h == WaveletQueuePool::kNone || !pool_.empty(h)) continue;
    pool_.release(h);
    handles_[slot] = WaveletQueuePool::kNone;
  }
  drained_.clear();
  if (counters_.queued != 0) checkWatchdog(now);
}

template <class Routing>
void FabricKernel::routeRouter(const Routing& routing, RouterId r, std::uint64_t now) {
  const MeshGeometry& mesh = params_.mesh;
  const std::uint32_t x = mesh.xOf(r), y = mesh.yOf(r);
  RouterId neighbour[kPortCount];
  for (unsigned o = 0; o < kPortCount; ++o) neighbour[o] = mesh.neighbour(r, Port(o));

  std::uint32_t requests[kPortCount][kPortCount] = {};  // [output][input] -> colors
  PortMask requested = 0;
  const std::uint32_t* nonEmpty = &nonEmpty_[std::size_t(r) * kPortCount];
  for (unsigned in = 0; in < kPortCount; ++in) {
    for (std::uint32_t m = nonEmpty[in]; m; m &= m - 1) {
      const unsigned color = lowestBit(m);
      const Handle h = queue(r, Port(in), color);
      const QueuedWavelet& head = pool_.front(h);
      if (head.readyAt > now) continue;
      PortMask wanted = PortMask(routing.forward(r, x, y, head.wavelet) & ~pool_.sent(h));
      for (; wanted; wanted &= PortMask(wanted - 1)) {
        const unsigned o = lowestBit(wanted);
        if (o != unsigned(Port::Ramp) && !hasSpace(neighbour[o], opposite(Port(o)), color, now)) continue;
        requests[o][in] |= 1u << color;
        requested |= PortMask(1u << o);
      }
    }
  }

  for (; requested; requested &= PortMask(requested - 1)) {
    const unsigned o = lowestBit(requested);
    LastGrant& last = lastGrant_[std::size_t(r) * kPortCount + o];
    unsigned in = 0, color = 0;
    pickRoundRobin(requests[o], last.input, last.color, in, color);
    last.input = std::uint8_t(in);
    last.color = std::uint8_t(color);

    const Handle h = queue(r, Port(in), color);
    const Wavelet w = pool_.front(h).wavelet;  // copy: pushing may grow the pool
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
    ++transfers_[std::size_t(r) * kPortCount + o];
    if (observer_) observer_->onTransfer(r, Port(o), color);

    pool_.markSent(h, PortMask(1u << o));
    if (pool_.sent(h) == routing.forward(r, x, y, w)) popHead(r, Port(in), color, h, now);
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
  for (std::uint32_t m = nonEmpty_[std::size_t(r) * kPortCount + unsigned(in)]; m; m &= m - 1)
    total += pool_.size(queue(r, in, lowestBit(m)));
  return total;
}

std::size_t FabricKernel::hostBytes() const {
  return pool_.bytesReserved() + handleBase_.capacity() * sizeof(std::uint32_t) +
         handles_.capacity() * sizeof(Handle) + nonEmpty_.capacity() * sizeof(std::uint32_t) +
         lastGrant_.capacity() * sizeof(LastGrant) + transfers_.capacity() * sizeof(std::uint64_t) +
         lastInjectPlusOne_.capacity() * sizeof(std::uint64_t) + isActive_.capacity() +
         (active_.capacity() + visiting_.capacity()) * sizeof(RouterId);
}

std::string FabricKernel::blockedQueuesReport(std::uint64_t now, std::size_t maxLines) const {
  const MeshGeometry& mesh = params_.mesh;
  std::ostringstream out;
  std::size_t lines = 0, omitted = 0;
  for (RouterId r : active_) {
    for (unsigned in = 0; in < kPortCount; ++in) {
      for (std::uint32_t m = nonEmpty_[std::size_t(r) * kPortCount + in]; m; m &= m - 1) {
        if (lines == maxLines) {
          ++omitted;
          continue;
        }
        const unsigned color = lowestBit(m);
        const Handle h = queue(r, Port(in), color);
        const QueuedWavelet& head = pool_.front(h);
        const PortMask wanted =
            params_.routing == RoutingMode::Color
                ? routes_->at(r, color).forward
                : XyRouting{mesh}.forward(r, mesh.xOf(r), mesh.yOf(r), head.wavelet);
        out << "  router " << mesh.name(r) << " input " << portName(Port(in)) << " color " << color << ": "
            << pool_.size(h) << " queued, head wants " << portMaskName(wanted) << ", already sent to "
            << portMaskName(pool_.sent(h));
        for (unsigned o = 0; o < kPortCount; ++o) {
          if (!(wanted & (1u << o)) || (pool_.sent(h) & (1u << o)) || o == unsigned(Port::Ramp)) continue;
          const RouterId n = mesh.neighbour(r, Port(o));
          const Handle d = queue(n, opposite(Port(o)), color);
          if (d != WaveletQueuePool::kNone && !pool_.hasSpace(d, now))
            out << "; blocked by full queue at " << mesh.name(n) << " input " << portName(opposite(Port(o)))
                << " (" << pool_.size(d) << "/" << pool_.depth() << ")";
        }
        out << "\n";
        ++lines;
      }
    }
  }
  if (omitted) out << "  ... and " << omitted << " more non-empty queues\n";
  return out.str();
}

}  // namespace wsesim::fabric
