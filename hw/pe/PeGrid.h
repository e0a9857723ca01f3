#pragma once
// What software sees of the PEs: the mappings load programs and move data
// in and out, the runtime (firmware/runtime) runs them phase by phase. It
// is all firmware gets of the PE array; PeArray implements it, and the chip
// (hw/chip/WaferChip) steps the PEs.

#include <cstdint>
#include <string>
#include <vector>

#include "hw/fabric/FabricKernel.h"
#include "hw/pe/Isa.h"

namespace wsesim::pe {

using ProgramId = std::uint32_t;
inline constexpr ProgramId kNoProgram = ~ProgramId(0);

class PeGrid {
 public:
  virtual ~PeGrid() = default;

  virtual ProgramId addProgram(Program program) = 0;
  // Loads program `id` on `pe` (PeArray::load: buffers, checks, start tasks).
  virtual void load(fabric::RouterId pe, ProgramId id) = 0;
  // Removes an idle PE's program, freeing its buffers except those named in `keep`.
  virtual void unload(fabric::RouterId pe, const std::vector<std::string>& keep) = 0;
  // Host access to a PE's buffers (functional mode only).
  virtual void write(fabric::RouterId pe, const std::string& buffer, std::uint32_t offset,
                     const std::vector<float>& values) = 0;
  virtual std::vector<float> read(fabric::RouterId pe, const std::string& buffer, std::uint32_t offset,
                                  std::uint32_t count) const = 0;

  // The wafer skipped to cycle `now` without a visit: programs loaded from
  // now on start in `now`.
  virtual void skipTo(std::uint64_t now) = 0;
  // Whether every PE is done at cycle `now` and `fabric` is empty.
  virtual bool finished(std::uint64_t now, const fabric::FabricKernel& fabric) const = 0;
  // Earliest cycle >= now at which a PE has something to do (kNever: none).
  virtual std::uint64_t nextActivity(std::uint64_t now) const = 0;
  // Throws ProgramError listing PEs with work they can never finish.
  virtual void checkQuiescent() const = 0;
};

}  // namespace wsesim::pe
