#include "hw/wafer/IoKeys.h"

namespace wsesim::wafer {

const common::KeyTable<IoParams>& ioKeys() {
  using Key = common::Key<IoParams>;
  static const common::KeyTable<IoParams> keys = {"arch.io.", {
      Key::real("bandwidth_bytes_per_s", 1.0, 1.0e15, [](IoParams& io, double v) { io.bandwidthBytesPerS = v; },
                "bandwidth into the wafer from outside, all edge channels together (the weight stream's budget)"),
      // Not bounded by the mesh height: a small corner of a wafer keeps its system's channels, several to a row.
      Key::integer("channels_per_edge", 1, 65535,
                   [](IoParams& io, std::int64_t v) { io.channelsPerEdge = unsigned(v); },
                   "I/O ring channels on the West edge and as many on the East; each gets bandwidth / (2 x channels) "
                   "and serves a band of rows; not bounded by the mesh height, so a corner preset keeps its system's "
                   "channels, several to a row (system-model.md)"),
  }, {}};
  return keys;
}

}  // namespace wsesim::wafer
