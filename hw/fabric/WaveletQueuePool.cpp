#include "hw/fabric/WaveletQueuePool.h"

namespace wsesim::fabric {

WaveletQueuePool::WaveletQueuePool(unsigned depth) : depth_(depth) {}

WaveletQueuePool::Handle WaveletQueuePool::acquire() {
  if (!free_.empty()) {
    const Handle h = free_.back();
    free_.pop_back();
    headers_[h] = Header{};
    return h;
  }
  headers_.emplace_back();
  slots_.resize(slots_.size() + depth_);
  return Handle(headers_.size() - 1);
}

void WaveletQueuePool::release(Handle h) { free_.push_back(h); }

std::size_t WaveletQueuePool::bytesReserved() const {
  return headers_.capacity() * sizeof(Header) + slots_.capacity() * sizeof(QueuedWavelet) +
         free_.capacity() * sizeof(Handle);
}

}  // namespace wsesim::fabric
