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

// How long the array keeps a program it was given.
enum class ProgramLifetime : std::uint8_t {
  Kept,           // until the array goes: its id may be loaded again at any time
  UntilUnloaded,  // until the last PE it was loaded on unloads it; its id is then reused
};

class PeControl {
 public:
  virtual ~PeControl() = default;

  // A mapping that builds its programs afresh for each phase gives them
  // ProgramLifetime::UntilUnloaded, so that a GEMM of many phases does not
  // keep every phase's (a sparse weight gradient's are a column's own, each
  // an op per run of kept weights).
  virtual ProgramId addProgram(Program program, ProgramLifetime lifetime = ProgramLifetime::Kept) = 0;
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
