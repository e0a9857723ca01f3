#pragma once
// What the firmware's host side sees of the PEs: it adds programs, loads
// and unloads them on a PE, and reads and writes a PE's buffers. A mapping
// programs the array through this, never the concrete PeArray (which
// implements it) and its cycle stepping.

#include <cstdint>
#include <string>
#include <vector>

#include "hw/fabric/MeshGeometry.h"
#include "hw/pe/Isa.h"

namespace wsesim::pe {

using ProgramId = std::uint32_t;
inline constexpr ProgramId kNoProgram = ~ProgramId(0);

class PeControl {
 public:
  virtual ~PeControl() = default;

  virtual ProgramId addProgram(Program program) = 0;
  // Allocates the program's buffers on the PE and activates its start
  // tasks; throws ProgramError naming the PE and the offending item.
  virtual void load(fabric::RouterId pe, ProgramId id) = 0;
  // Removes an idle PE's program and frees its buffers except those named in `keep`.
  virtual void unload(fabric::RouterId pe, const std::vector<std::string>& keep = {}) = 0;
  // A PE's buffer, its program's or a kept one (functional mode only).
  virtual void write(fabric::RouterId pe, const std::string& buffer, std::uint32_t offset,
                     const std::vector<float>& values) = 0;
  virtual std::vector<float> read(fabric::RouterId pe, const std::string& buffer, std::uint32_t offset,
                                  std::uint32_t count) const = 0;
};

}  // namespace wsesim::pe
