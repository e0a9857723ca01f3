#include "hw/fabric/WaveletQueues.h"

#include <cstdlib>
#include <new>
#include <type_traits>

namespace wsesim::fabric {

// Zeroed memory is a valid empty slot array, and calloc leaves untouched pages unbacked.
static_assert(std::is_trivially_copyable_v<QueuedWavelet> && std::is_trivially_destructible_v<QueuedWavelet>);

WaveletQueues::WaveletQueues(std::size_t queues, std::size_t homes, unsigned depth)
    : depth_(depth),
      homes_(homes),
      headers_(queues),
      home_(static_cast<QueuedWavelet*>(std::calloc(homes * depth, sizeof(QueuedWavelet)))),
      homeTaken_(homes, 0) {
  if (!home_ && homes * depth != 0) throw std::bad_alloc();
}

WaveletQueues::~WaveletQueues() { std::free(home_); }

std::uint32_t WaveletQueues::takeBlock(std::size_t home) {
  if (!homeTaken_[home]) {
    homeTaken_[home] = 1;
    return std::uint32_t(home);
  }
  if (!freeOverflow_.empty()) {
    const std::uint32_t b = freeOverflow_.back();
    freeOverflow_.pop_back();
    return b;
  }
  overflow_.resize(overflow_.size() + depth_);
  return std::uint32_t(homes_ + overflow_.size() / depth_ - 1);
}

void WaveletQueues::giveBack(std::uint32_t block) {
  if (block < homes_)
    homeTaken_[block] = 0;
  else
    freeOverflow_.push_back(block);
}

void WaveletQueues::endCycle() {
  for (QueueId q : popped_) {
    Header& h = headers_[q];
    h.popped = 0;
    if (h.count == 0 && h.block != kNoBlock) {
      giveBack(h.block);
      h.block = kNoBlock;
      h.head = 0;
    }
  }
  popped_.clear();
}

// Home blocks count as reserved address space; the OS backs only touched pages.
std::size_t WaveletQueues::hostBytes() const {
  return headers_.capacity() * sizeof(Header) + homes_ * depth_ * sizeof(QueuedWavelet) + homeTaken_.capacity() +
         overflow_.capacity() * sizeof(QueuedWavelet) + freeOverflow_.capacity() * sizeof(std::uint32_t) +
         popped_.capacity() * sizeof(QueueId);
}

}  // namespace wsesim::fabric
