#pragma once
// The `workload.*` keys of a NoC run (`workload.type: noc`).

#include <cstdint>
#include <string>

#include "hw/common/EnumNames.h"
#include "hw/config/ArchConfig.h"
#include "hw/config/ParamReader.h"

namespace wsesim::noc {

enum class Pattern {
  UniformRandom,
  Transpose,
  BitComplement,
  Hotspot,
  NearestNeighbour,
  RowBroadcast,
  ColumnBroadcast,
};

inline constexpr EnumName<Pattern> kPatternNames[] = {
    {Pattern::UniformRandom, "uniform_random"},      {Pattern::Transpose, "transpose"},
    {Pattern::BitComplement, "bit_complement"},      {Pattern::Hotspot, "hotspot"},
    {Pattern::NearestNeighbour, "nearest_neighbour"}, {Pattern::RowBroadcast, "row_broadcast"},
    {Pattern::ColumnBroadcast, "column_broadcast"},
};
constexpr const char* patternName(Pattern p) { return nameOf(kPatternNames, p); }
// Broadcast patterns use static color routes; the others route by address.
bool isBroadcast(Pattern p);

struct NocConfig {
  Pattern pattern = Pattern::UniformRandom;
  double injectionRate = 0;  // wavelets per injecting PE per cycle
  unsigned packetWavelets = 1;
  std::uint64_t warmupCycles = 0;
  std::uint64_t measureCycles = 0;
  std::uint64_t drainCycles = 0;
  std::uint64_t seed = 1;
  // Packet mode: packets pick their color uniformly from the first `colors`.
  unsigned colors = 1;
  // Hotspot: share of packets sent to the hotspot PE.
  std::uint32_t hotspotX = 0, hotspotY = 0;
  double hotspotFraction = 0;
  // Broadcasts: sources per row (column), each on its own color.
  unsigned broadcastSources = 1;

  static NocConfig read(config::ParamReader& params, const config::ArchConfig& arch);
};

}  // namespace wsesim::noc
