#pragma once
// Cut-through timing of a payload, as a TLM-2.0 extension. In the loosely
// timed convention a write's annotated delay says when all of its bytes are
// at the target; a component that forwards bytes as they arrive (a SwarmX
// node, an I/O ring channel, the wafer consuming weights) also needs when
// the first byte is there. The writer attaches the extension for the
// duration of the call (StreamTimingScope); a target that forwards the
// stream updates it to when the bytes reach its far side, so the writer
// learns both ends, as it learns the tail from the returned delay. Targets
// that do not know the extension ignore it, as TLM-2.0 intends.

#include <systemc>
#include <tlm>

#include <cstdint>

#include "hw/system/Link.h"

namespace wsesim::system {

struct StreamTiming : tlm::tlm_extension<StreamTiming> {
  sc_core::sc_time head;  // the first byte is there
  sc_core::sc_time tail;  // the last byte is there

  tlm::tlm_extension_base* clone() const override { return new StreamTiming(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const StreamTiming&>(other);
  }
};

// Attaches a StreamTiming owned by the scope to `payload` and restores the
// payload's previous one (or none) when the scope ends.
class StreamTimingScope {
 public:
  StreamTimingScope(tlm::tlm_generic_payload& payload, const sc_core::sc_time& head, const sc_core::sc_time& tail)
      : payload_(payload), previous_(payload.get_extension<StreamTiming>()) {
    timing_.head = head;
    timing_.tail = tail;
    payload_.set_extension(&timing_);
  }
  ~StreamTimingScope() {
    if (previous_)
      payload_.set_extension(previous_);
    else
      payload_.clear_extension(&timing_);
  }
  StreamTimingScope(const StreamTimingScope&) = delete;
  StreamTimingScope& operator=(const StreamTimingScope&) = delete;

  const StreamTiming& timing() const { return timing_; }

 private:
  tlm::tlm_generic_payload& payload_;
  StreamTiming* previous_;
  StreamTiming timing_;
};

// Sends a received payload on over `link`: cut-through from its stream
// timing when it has one, otherwise with all bytes there at `arrived`; the
// extension, if any, is updated to the link's far side.
inline LinkTransfer forwardOver(Link& link, tlm::tlm_generic_payload& payload, const sc_core::sc_time& arrived) {
  const std::uint64_t bytes = payload.get_data_length();
  StreamTiming* timing = payload.get_extension<StreamTiming>();
  const LinkTransfer t = timing ? link.forward(timing->head, timing->tail, bytes) : link.send(arrived, bytes);
  if (timing) {
    timing->head = t.head;
    timing->tail = t.tail;
  }
  return t;
}

}  // namespace wsesim::system
