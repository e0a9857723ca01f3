#pragma once
// The wafer's side of the I/O ring: which ring channels feed each edge
// router, and at what rate.
//
// arch.io.channels_per_edge channels sit on the West edge and as many on
// the East (WSE-FACTS "Wafer I/O"). Channel b of an edge serves band b of
// equal bands of rows; it reaches the edge router of each row of its band
// through the I/O support PEs outside the user rectangle, which we do not
// model. So the rows of a band share their channel's bandwidth
// (arch.io.bandwidth_bytes_per_s over all channels, each way), and each
// row's edge router takes at most one wavelet per cycle (its link). On a
// mesh with fewer rows than channels, several channels share a row and
// their bandwidth adds up.
//
// config::ArchConfig::ioRingEdge builds the ring of a configuration.
//
// A *feed* is what an edge router draws on: one channel and the rows of its
// band, or the channels sharing one row. Feeds are numbered West first,
// each edge top to bottom.

#include <cstdint>
#include <vector>

#include "hw/fabric/Port.h"

namespace wsesim::wafer {

class IoRingEdge {
 public:
  // `waveletsPerChannelCycle`: one channel's bandwidth in one direction, in
  // wavelets per cycle (must be positive).
  IoRingEdge(std::uint32_t meshHeight, unsigned channelsPerEdge, double waveletsPerChannelCycle);

  unsigned channels() const { return 2 * channelsPerEdge_; }
  // Channel k: 0 .. C - 1 on the West edge, C .. 2C - 1 on the East, each edge top to bottom.
  fabric::Port edge(unsigned channel) const;
  // The rows channel k serves: [rowBegin, rowEnd).
  std::uint32_t rowBegin(unsigned channel) const { return band(channel % channelsPerEdge_).first; }
  std::uint32_t rowEnd(unsigned channel) const { return band(channel % channelsPerEdge_).second; }

  unsigned feeds() const { return unsigned(feeds_.size()); }
  // The feed of the edge router of row `row` on `edge` (West or East);
  // throws FabricError for another side or a row off the mesh.
  unsigned feed(fabric::Port edge, std::uint32_t row) const;
  // The channels of feed f: [firstChannel, firstChannel + channelCount).
  unsigned firstChannel(unsigned f) const { return feeds_.at(f).firstChannel; }
  unsigned channelCount(unsigned f) const { return feeds_.at(f).channelCount; }
  double waveletsPerCycle(unsigned f) const { return channelCount(f) * waveletsPerChannelCycle_; }
  double waveletsPerChannelCycle() const { return waveletsPerChannelCycle_; }

 private:
  struct Feed {
    unsigned firstChannel = 0, channelCount = 0;
  };
  std::pair<std::uint32_t, std::uint32_t> band(unsigned b) const;

  std::uint32_t meshHeight_;
  unsigned channelsPerEdge_;
  double waveletsPerChannelCycle_;
  std::vector<Feed> feeds_;
  std::vector<unsigned> rowFeed_[2];  // per edge (West, East) and row: its feed
};

}  // namespace wsesim::wafer
