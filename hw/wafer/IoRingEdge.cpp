#include "hw/wafer/IoRingEdge.h"

#include <algorithm>
#include <stdexcept>

#include "hw/fabric/FabricError.h"

namespace wsesim::wafer {

IoRingEdge::IoRingEdge(std::uint32_t meshHeight, unsigned channelsPerEdge, double waveletsPerChannelCycle)
    : meshHeight_(meshHeight), channelsPerEdge_(channelsPerEdge), waveletsPerChannelCycle_(waveletsPerChannelCycle) {
  if (meshHeight == 0 || channelsPerEdge == 0 || !(waveletsPerChannelCycle > 0))
    throw std::invalid_argument("an I/O ring needs rows, channels and a positive channel bandwidth");
  for (unsigned e = 0; e < 2; ++e) {
    rowFeed_[e].assign(meshHeight, 0);
    for (unsigned b = 0; b < channelsPerEdge; ++b) {
      const auto [begin, end] = band(b);
      // Channels whose bands are one and the same row share that row's feed.
      if (b == 0 || band(b - 1).first != begin) feeds_.push_back(Feed{e * channelsPerEdge + b, 0});
      ++feeds_.back().channelCount;
      std::fill(rowFeed_[e].begin() + begin, rowFeed_[e].begin() + end, unsigned(feeds_.size() - 1));
    }
  }
}

std::pair<std::uint32_t, std::uint32_t> IoRingEdge::band(unsigned b) const {
  const std::uint64_t h = meshHeight_, c = channelsPerEdge_;
  const std::uint32_t begin = std::uint32_t(b * h / c);
  // A mesh with fewer rows than channels gives each channel one row.
  return {begin, std::max(std::uint32_t((b + 1) * h / c), begin + 1)};
}

fabric::Port IoRingEdge::edge(unsigned channel) const {
  return channel < channelsPerEdge_ ? fabric::Port::West : fabric::Port::East;
}

unsigned IoRingEdge::feed(fabric::Port edge, std::uint32_t row) const {
  if (edge != fabric::Port::West && edge != fabric::Port::East)
    throw fabric::FabricError(std::string("the I/O ring has channels on the West and East edges only, not on the ") +
                              (edge == fabric::Port::North ? "North" : edge == fabric::Port::South ? "South" : "RAMP") +
                              " side of row " + std::to_string(row));
  if (row >= meshHeight_)
    throw fabric::FabricError("row " + std::to_string(row) + " is off the " + std::to_string(meshHeight_) +
                              "-row mesh the I/O ring serves");
  return rowFeed_[edge == fabric::Port::West ? 0 : 1][row];
}

}  // namespace wsesim::wafer
