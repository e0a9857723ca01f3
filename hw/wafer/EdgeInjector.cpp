#include "hw/wafer/EdgeInjector.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "hw/fabric/FabricError.h"

namespace wsesim::wafer {

namespace {
std::uint64_t queueKey(fabric::RouterId router, fabric::Port side, unsigned color) {
  return (std::uint64_t(router) * fabric::kPortCount + unsigned(side)) << 32 | color;
}
}  // namespace

EdgeInjector::EdgeInjector(const IoRingEdge& ring, const fabric::MeshGeometry& mesh) : ring_(ring), mesh_(mesh) {}

EdgeInjector::EdgeInjector(std::vector<EdgeStream> streams, const IoRingEdge& ring, const fabric::MeshGeometry& mesh)
    : EdgeInjector(ring, mesh) {
  stream(std::move(streams), 0);
}

void EdgeInjector::stream(std::vector<EdgeStream> streams, std::uint64_t now, const IoRingEdge& ring) {
  if (openFeeds_ != 0)
    throw std::logic_error("edge streams handed over while " + std::to_string(total_ - sent_) +
                           " wavelets of the streams before are still to enter");
  for (const EdgeStream& stream : streams)
    if (stream.router >= mesh_.routers() || mesh_.neighbour(stream.router, stream.side) != fabric::kNoRouter)
      throw fabric::FabricError("a stream enters router " + mesh_.name(stream.router) + " from its " +
                                fabric::portName(stream.side) + " side, which is not an edge of the mesh");
  streams_ = std::move(streams);
  next_.assign(streams_.size(), 0);
  blocked_.assign(streams_.size(), 0);
  feedOf_.assign(streams_.size(), 0);
  byQueue_.clear();
  feeds_.clear();
  sent_ = total_ = 0;
  inputEnd_ = now;
  std::map<unsigned, std::size_t> feedIndex;  // ring feed -> feeds_
  for (std::size_t s = 0; s < streams_.size(); ++s) {
    const EdgeStream& stream = streams_[s];
    total_ += stream.count;
    if (stream.count == 0) continue;
    const unsigned f = ring.feed(stream.side, mesh_.yOf(stream.router));
    auto it = feedIndex.find(f);
    if (it == feedIndex.end()) {
      it = feedIndex.emplace(f, feeds_.size()).first;
      feeds_.push_back(Feed{IoBandwidth(ring.waveletsPerCycle(f)), {}});
    }
    feeds_[it->second].open.push_back(s);
    feedOf_[s] = it->second;
    byQueue_.emplace(queueKey(stream.router, stream.side, stream.color), s);
  }
  openFeeds_ = feeds_.size();
}

void EdgeInjector::beginCycle(std::uint64_t now, fabric::FabricKernel& fabric) {
  if (openFeeds_ == 0) return;
  fabric.setEdgeSource(this);  // the fabric fed tells when a full queue has room
  for (Feed& feed : feeds_)
    if (!feed.open.empty()) serve(feed, now, fabric);
}

void EdgeInjector::serve(Feed& feed, std::uint64_t now, fabric::FabricKernel& fabric) {
  feed.bandwidth.advance(now);
  const std::size_t n = feed.open.size();
  if (feed.blocked == n) {  // as trying every stream would find
    if (feed.bandwidth.available())
      stalls_ += n;
    else
      fabric.notePendingUntil(feed.bandwidth.nextAvailable(now + 1));
    return;
  }
  // Round-robin: start with the first open stream after the last one served.
  const std::size_t first =
      std::size_t(std::upper_bound(feed.open.begin(), feed.open.end(), feed.lastServed) - feed.open.begin()) % n;
  bool closed = false;
  for (std::size_t i = 0; i < n && feed.bandwidth.available(); ++i) {
    const std::size_t s = feed.open[(first + i) % n];
    EdgeStream& stream = streams_[s];
    if (blocked_[s] || fabric.edgeInputFull(stream.router, stream.side, stream.color)) {
      ++stalls_;
      if (!blocked_[s]) {
        blocked_[s] = 1;
        ++feed.blocked;
      }
      continue;
    }
    fabric::Wavelet w;
    w.color = std::uint8_t(stream.color);
    w.payload = stream.payload ? stream.payload(next_[s]) : 0;
    if (!fabric.injectAtEdge(stream.router, stream.side, w, now)) {  // the port took another stream's wavelet
      ++stalls_;
      continue;
    }
    feed.bandwidth.consume();
    ++sent_;
    feed.lastServed = s;
    if (++next_[s] == stream.count) closed = true;
  }
  if (closed) {
    feed.open.erase(std::remove_if(feed.open.begin(), feed.open.end(),
                                   [&](std::size_t s) { return next_[s] == streams_[s].count; }),
                    feed.open.end());
    if (feed.open.empty() && --openFeeds_ == 0) inputEnd_ = now + 1;
  }
  // Streams waiting for the ring's bandwidth, not for the fabric: a slow
  // ring is not a deadlock. (Those held back by a full queue are blocked.)
  if (!feed.open.empty() && !feed.bandwidth.available())
    fabric.notePendingUntil(feed.bandwidth.nextAvailable(now + 1));
}

std::uint64_t EdgeInjector::nextActivity(std::uint64_t now) const {
  std::uint64_t next = sim::kNever;
  for (const Feed& feed : feeds_)
    if (!feed.open.empty()) next = std::min(next, feed.bandwidth.nextAvailable(now));
  return next;
}

void EdgeInjector::edgeInputFreed(fabric::RouterId at, fabric::Port side, unsigned color) {
  const auto [first, last] = byQueue_.equal_range(queueKey(at, side, color));
  for (auto it = first; it != last; ++it) {
    if (!blocked_[it->second]) continue;
    blocked_[it->second] = 0;
    --feeds_[feedOf_[it->second]].blocked;
  }
}

bool EdgeInjector::finished(std::uint64_t, const fabric::FabricKernel&) const { return openFeeds_ == 0; }

}  // namespace wsesim::wafer
