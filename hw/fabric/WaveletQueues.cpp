#include "hw/fabric/WaveletQueues.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace wsesim::fabric {

WaveletQueues::WaveletQueues(std::size_t queues, std::size_t homes, unsigned depth, unsigned pools)
    : depth_(depth),
      routers_(homes / kPortCount),
      colors_(unsigned(queues / homes)),
      homes_(depth * sizeof(QueuedWavelet) <= 256 ? homes : 0),
      headers_(queues, ZeroedArray<Header>::Pages::Huge),
      homeHeaders_(homes, ZeroedArray<Header>::Pages::Huge),
      homeUser_(homes, ZeroedArray<HomeUser>::Pages::Huge),
      slots_(queues * depth, ZeroedArray<QueuedWavelet>::Pages::Huge),
      overflowEnd_(std::uint32_t(homes_)),
      pools_(pools) {
  if (queues >= std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("too many fabric queues: " + std::to_string(queues) + " (at most 2^32 - 2)");
  if (homes_ == 0)
    for (std::size_t home = 0; home < homes; ++home) homeUser_[home] = HomeUser::Unused;
}

// Lazily backed arrays count with the pages in use at most: an upper bound.
std::size_t WaveletQueues::hostBytes() const {
  std::size_t free = 0;
  for (const OverflowPool& p : pools_) free += p.free.capacity();
  return headers_.bytes() + homeHeaders_.bytes() + homeUser_.bytes() +
         std::size_t(overflowEnd_.load(std::memory_order_relaxed)) * depth_ * sizeof(QueuedWavelet) + free * sizeof(std::uint32_t);
}

std::size_t WaveletQueues::plannedHostBytes(std::size_t queues, std::size_t homes, unsigned depth) {
  return queues * sizeof(Header) + homes * sizeof(Header) + homes * sizeof(HomeUser) +
         queues * depth * sizeof(QueuedWavelet) +
         2 * queues * sizeof(std::uint32_t);  // the free list: one entry per queue at most, doubled by growth
}

}  // namespace wsesim::fabric
