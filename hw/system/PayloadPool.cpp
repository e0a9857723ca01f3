#include "hw/system/PayloadPool.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace wsesim::system {

tlm::tlm_generic_payload& PayloadPool::allocate(std::uint64_t length, bool withData) {
  if (length > std::numeric_limits<unsigned int>::max())
    throw std::length_error("a TLM generic payload holds at most 2^32 - 1 bytes, not " + std::to_string(length));
  Slot* slot;
  if (idle_.empty()) {
    slots_.push_back(std::make_unique<Slot>(this));
    slot = slots_.back().get();
    slotOf_[&slot->payload] = slot;
  } else {
    slot = idle_.back();
    idle_.pop_back();
  }
  tlm::tlm_generic_payload& p = slot->payload;
  if (withData) {
    slot->bytes.assign(length, 0);
    p.set_data_ptr(slot->bytes.data());
  } else {
    p.set_data_ptr(nullptr);
  }
  p.set_data_length(unsigned(length));
  p.set_streaming_width(unsigned(length));
  p.set_byte_enable_ptr(nullptr);
  p.set_byte_enable_length(0);
  p.set_dmi_allowed(false);
  p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  p.acquire();
  return p;
}

void PayloadPool::free(tlm::tlm_generic_payload* payload) {
  // reset() drops the payload's extensions (those set with set_auto_extension).
  payload->reset();
  idle_.push_back(slotOf_.at(payload));
}

}  // namespace wsesim::system
