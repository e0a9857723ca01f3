#pragma once
// The wafer's I/O ring (`arch.io.*`, keys in IoKeys.h): what enters and
// leaves the wafer from outside, through channels on its West and East edges.

namespace wsesim::wafer {

struct IoParams {
  double bandwidthBytesPerS = 0;  // into the wafer, all edge channels together
  unsigned channelsPerEdge = 0;   // I/O channels on the West edge, and as many on the East
};

}  // namespace wsesim::wafer
