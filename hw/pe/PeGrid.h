#pragma once
// What the runtime (firmware/runtime) sees of the PEs as it runs a mapping
// phase by phase: a mapping's view (PeControl: programs, buffers) plus
// whether they are idle. It is all firmware gets of the PE array; PeArray
// implements it, and the chip (hw/chip/WaferChip) steps the PEs.

#include <cstdint>

#include "hw/fabric/FabricKernel.h"
#include "hw/pe/PeControl.h"

namespace wsesim::pe {

class PeGrid : public PeControl {
 public:
  // The wafer skipped to cycle `now` without a visit: programs loaded from
  // now on start in `now`.
  virtual void skipTo(std::uint64_t now) = 0;
  // Whether every PE is done at cycle `now` and `fabric` is empty.
  virtual bool finished(std::uint64_t now, const fabric::FabricKernel& fabric) const = 0;
  // Earliest cycle >= now at which a PE has something to do (kNever: none).
  virtual std::uint64_t nextActivity(std::uint64_t now) const = 0;
  // Throws ProgramError listing PEs with work they can never finish.
  virtual void checkQuiescent() const = 0;
  // Whether the PE's program has ended: no task running or activated, no
  // op in flight (wavelets may wait in its inboxes for a later program).
  virtual bool programEnded(fabric::RouterId pe) const = 0;
  // The cycle the PE's last busy stretch (a task running or an op in
  // flight) ended: 0 before its first, kNever while it is busy.
  virtual std::uint64_t lastBusyCycle(fabric::RouterId pe) const = 0;
  // With `on`, every PE whose program has ended at the end of a visit in a
  // cycle (or at its load: a program with nothing to start) is listed in
  // programEnds() until clearProgramEnds(); a PE may be listed again when a
  // wavelet wakes it. For runtimes whose PEs go on one by one.
  virtual void watchProgramEnds(bool on) = 0;
  virtual const std::vector<fabric::RouterId>& programEnds() const = 0;
  virtual void clearProgramEnds() = 0;
  // The PE's SRAM as program `id` leaves it when it has run and been
  // unloaded keeping `keep`, without running it: its buffers placed as
  // load() places them (a kept one reused; an overflow is the same
  // ProgramError), then freed as unload() frees them. A phase of a GEMM run
  // alone on a chip of its own starts from the SRAM the phases before it
  // would have left (GemmPhases).
  virtual void placeAsRun(fabric::RouterId pe, ProgramId id, const std::vector<std::string>& keep) = 0;
};

}  // namespace wsesim::pe
