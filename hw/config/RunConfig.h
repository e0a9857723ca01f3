#pragma once
// How a run is carried out (`run.*`): data mode, watchdog, the region of
// interest that waveforms and timelines show, the timeline's link window.

#include <cstdint>
#include <optional>

#include "hw/common/EnumNames.h"
#include "hw/config/ArchConfig.h"
#include "hw/pe/PeParams.h"

namespace wsesim::config {

struct Region {
  std::uint32_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // inclusive corners
  bool contains(std::uint32_t x, std::uint32_t y) const { return x >= x0 && x <= x1 && y >= y0 && y <= y1; }
};

// `run.mode` chooses the PE model's data mode (pe/PeParams.h), by these names.
using pe::DataMode;
inline constexpr EnumName<DataMode> kDataModeNames[] = {{DataMode::Functional, "functional"}, {DataMode::Timing, "timing"}};

struct RunConfig {
  DataMode mode = DataMode::Functional;
  std::uint64_t watchdogCycles = 0;
  Region vcdRegion;                 // also the timeline's PEs
  std::uint64_t timelineLinkWindow = 0;  // cycles per link-load sample in a timeline
  // The most host memory a run may plan to take; unset: the host's available
  // memory at the start of the run (not recorded, so results stay
  // independent of the machine's momentary state).
  std::optional<std::uint64_t> maxHostBytes;
  // A wafer that has not finished by this cycle fails the run (a bound for
  // scripted explorations and fuzzing, where a legal configuration may ask
  // for 2^40 cycles); unset: no bound.
  std::optional<std::uint64_t> maxCycles;
  // Host threads a run may use; unset: every core the process may run on
  // (its affinity mask; not recorded, so results stay independent of the
  // machine). Results do not depend on it.
  std::optional<unsigned> threads;

  static RunConfig read(ParamReader& params, const ArchConfig& arch);
  // `threads`, or the cores of the process's affinity mask.
  unsigned hostThreads() const;
};

}  // namespace wsesim::config
