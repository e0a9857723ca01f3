#pragma once
// The compute engines and SRAMs of every PE of the mesh, stepped by the
// wafer's cycle kernel alongside the fabric.
//
// A PE runs one task at a time on its main thread; a task's tensor ops run
// synchronously (the task waits) or on one of `arch.pe.threads` hardware
// threads, so a fabric transfer overlaps the next compute op. Ops that only
// touch memory share the PE's SIMD unit and take a closed-form number of
// cycles (OpTiming), so a busy PE is woken at their completion, never
// polled. Ops with a fabric operand move one element per cycle through the
// RAMP when its wavelet has arrived and the router accepts the output. Data
// tasks start when a wavelet of their color has arrived. Idle PEs cost
// nothing: the array visits only PEs with a wake-up due this cycle.
//
// The PEs are in the fabric's bands (PeBand): where the fabric steps its
// bands at once, each band's PEs are visited at once by the same threads,
// with the same results as one thread visiting them all (docs/pe-model.md,
// "Bands over threads").

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hw/fabric/ColorRouteTable.h"
#include "hw/fabric/FabricKernel.h"
#include "hw/fabric/ZeroedArray.h"
#include "hw/pe/Isa.h"
#include "hw/pe/OpTiming.h"
#include "hw/pe/PeBand.h"
#include "hw/pe/PeGrid.h"
#include "hw/pe/PeParams.h"
#include "hw/pe/ProgramCheck.h"
#include "hw/pe/SramAllocator.h"
#include "hw/pe/SramData.h"
#include "hw/sim/CycleDriver.h"
#include "hw/sim/WakeCalendar.h"

namespace wsesim::pe {


struct PeCounters {
  std::uint64_t opsCompleted = 0;
  std::uint64_t elements = 0;  // elements processed by completed ops
  std::uint64_t flops = 0;     // FMAC 2 per element, FADD/FMUL 1, FMOV 0
  std::uint64_t tasksRun = 0;
  std::uint64_t busyCycles = 0;  // cycles with a task running or an op in flight
  std::uint64_t visits = 0;      // cycles the array attended to this PE (host work, not hardware)
};

// Ops alike for the energy model: precision, opcode, which sources are
// in memory, whether the destination is memory or the fabric. An op's
// elements are counted under its class; the bytes follow from the class.
inline unsigned actionClass(const TensorOp& op) {
  const unsigned sources = (1u << sourceCount(op.opcode)) - 1;
  const unsigned memory = (unsigned(op.src[0].kind == Descriptor::Kind::Memory) |
                           unsigned(op.src[1].kind == Descriptor::Kind::Memory) << 1 |
                           unsigned(op.src[2].kind == Descriptor::Kind::Memory) << 2) &
                          sources;
  return (unsigned(op.precision) * kOpcodeCount + unsigned(op.opcode)) << 5 | memory |
         unsigned(op.dst.kind == Descriptor::Kind::Memory) << 3 |
         unsigned(op.dst.kind == Descriptor::Kind::FabricOut) << 4;
}

// What completed ops did, for the energy model (hw/energy), in closed form
// per op: elements by precision and opcode, SRAM bytes, wavelets sent.
struct PeActions {
  std::uint64_t opElements[kPrecisionCount][kOpcodeCount] = {};
  std::uint64_t sramReadBytes = 0;   // memory operands' elements read
  std::uint64_t sramWriteBytes = 0;  // memory destinations' elements written
  std::uint64_t waveletsSent = 0;    // elements sent to the fabric through the RAMP

  // Adds `elements` of ops of class `cls` (actionClass).
  void add(unsigned cls, std::uint64_t elements);
};

// What the VCD tracer shows of one PE.
struct PeActivity {
  bool busy;
  int task;  // running task id, -1 when none
  unsigned threadsBusy;
  std::uint64_t sramUsed;
};

class PeArray : public sim::CycleDriver, public fabric::WaveletSink, public PeGrid {
 public:
  // One PE per router of `fabric`'s mesh, an inbox per color of it.
  // `routes` (color routing) lets load() check that every color a program
  // receives reaches the PE and every color it sends leaves it.
  PeArray(const PeParams& params, DataMode mode, fabric::FabricKernel& fabric, const fabric::ColorRouteTable* routes);
  ~PeArray() override;

  ProgramId addProgram(Program program, ProgramLifetime lifetime = ProgramLifetime::Kept) override;
  const Program& program(ProgramId id) const { return programs_[id].program; }
  // Allocates the program's buffers in the PE's SRAM, zeroed like a loaded
  // program image's (a buffer of the same name and size kept from the
  // previous program is reused, data and all),
  // checks the program against the architecture and the routes, and
  // activates its start tasks. Throws ProgramError naming the PE and the
  // offending item.
  void load(fabric::RouterId pe, ProgramId id) override;
  // Removes an idle PE's program and frees its buffers, and those kept from
  // earlier programs, except those named in `keep`, so the next program can
  // find them (e.g. resident activations across the passes of a GEMM).
  void unload(fabric::RouterId pe, const std::vector<std::string>& keep = {}) override;
  void placeAsRun(fabric::RouterId pe, ProgramId id, const std::vector<std::string>& keep) override;
  bool programEnded(fabric::RouterId pe) const override {
    const PeState& s = pes_[pe];
    return s.task == kNoTask && !s.busySlots && !s.activated;
  }
  std::uint64_t lastBusyCycle(fabric::RouterId pe) const override {
    const PeState& s = pes_[pe];
    return s.busy ? sim::kNever : s.since;
  }
  void watchProgramEnds(bool on) override { watchEnds_ = on; }
  const std::vector<fabric::RouterId>& programEnds() const override { return ends_; }
  void clearProgramEnds() override { ends_.clear(); }

  // Host access to a PE's buffers, its program's or kept ones (functional mode only).
  void write(fabric::RouterId pe, const std::string& buffer, std::uint32_t offset,
             const std::vector<float>& values) override;
  std::vector<float> read(fabric::RouterId pe, const std::string& buffer, std::uint32_t offset,
                          std::uint32_t count) const override;

  // The wafer skipped to cycle `now` without a visit (nothing was due):
  // programs loaded from now on start in `now`, not in a cycle gone by.
  void skipTo(std::uint64_t now) override { undrained_ = std::max(undrained_, now); }

  void beginCycle(std::uint64_t now, fabric::FabricKernel& fabric) override;
  std::uint64_t nextActivity(std::uint64_t now) const override;
  bool finished(std::uint64_t now, const fabric::FabricKernel& fabric) const override;
  void deliver(fabric::RouterId at, const fabric::Wavelet& w, std::uint64_t arrivalCycle) override;
  bool deliversInBands() const override { return true; }
  void rampFreed(fabric::RouterId at, unsigned color, std::uint64_t from) override;

  // Throws ProgramError listing PEs that still have work they can never
  // finish (a task waiting for wavelets that did not come, wavelets nobody
  // consumes), for the end of a run.
  void checkQuiescent() const override;

  const PeCounters& counters(fabric::RouterId pe) const { return counters_[pe]; }
  // Every PE's actions together, always kept.
  PeActions actionTotals() const;
  // Keeps each PE's actions too, from now on (for wafer maps and timelines;
  // off by default: the totals cost an add per op).
  void keepPerPeActions() { perPeActions_.resize(peCount_); }
  // One PE's actions, or null unless keepPerPeActions() was called.
  const PeActions* actions(fabric::RouterId pe) const {
    return perPeActions_.empty() ? nullptr : &perPeActions_[pe];
  }
  // The PE's busy cycles up to `now`, the current busy stretch included
  // (its counters add a stretch when it ends).
  std::uint64_t busyCyclesUntil(fabric::RouterId pe, std::uint64_t now) const {
    const PeState& s = pes_[pe];
    return counters_[pe].busyCycles + (s.busy && now > s.since ? now - s.since : 0);
  }
  PeCounters totals() const;
  const SramAllocator& sram(fabric::RouterId pe) const { return sram_[pe]; }
  PeActivity activity(fabric::RouterId pe) const;
  // The name of task `task` of the program loaded on `pe`.
  const std::string& taskName(fabric::RouterId pe, int task) const {
    return programs_[pes_[pe].program].program.tasks[std::size_t(task)].name;
  }
  DataMode mode() const { return mode_; }
  // The cycles so far in which the bands' PEs were visited at once.
  std::uint64_t cyclesInBands() const { return cyclesInBands_; }
  std::size_t hostBytes() const;
  // Before building: the per-PE arrays over `mesh` with `colors` colors at
  // their full size, and in functional mode every PE's SRAM bytes (as if
  // every page were touched). Programs and buffers come on top, and are
  // small beside them.
  static std::size_t plannedHostBytes(const PeParams& params, const fabric::MeshGeometry& mesh, unsigned colors,
                                      DataMode mode);

 private:
  // load() but for starting the program: its checks and its buffers placed.
  void placeBuffers(fabric::RouterId pe, ProgramId id);

  struct LoadedProgram {
    Program program;
    std::vector<std::vector<OpTiming>> timing;  // [task][instruction]
    std::vector<std::vector<std::uint8_t>> actionClasses;  // [task][instruction]: registered action class
    std::uint64_t dataTasks = 0;                // tasks bound to a color
    ColorUse colors;
    bool checked = false;  // against the architecture, on the first PE it was loaded on
    ProgramLifetime lifetime = ProgramLifetime::Kept;
    std::uint32_t loadedOn = 0;  // PEs running it
  };
  // An op in flight on a hardware thread (or the main thread's slot).
  struct OpSlot {
    const TensorOp* op;
    std::uint64_t at;  // memory op: completion; fabric op: earliest cycle of its next element
    std::uint32_t done;  // fabric op: elements moved
    std::uint32_t interval;  // fabric op: OpTiming::fabricInterval
    std::uint16_t carry;     // fabric op: the fraction of a cycle the elements so far are ahead of `at`
    bool fabric;  // has a fabric operand
    std::uint8_t actionClass;  // its registered action class (registerActionClass)
    bool waitsForRoom;  // fabric op: its output's RAMP queue was full (PeArray::rampFreed wakes it)
    std::uint32_t index[4];  // per operand (destination, sources): its index register when the op issued
  };
  struct PeState {
    ProgramId program = kNoProgram;
    std::int8_t task = kNoTask;
    bool busy = false;
    std::uint16_t pc = 0;  // up to a task's length: kMaxTaskInstructions (ProgramCheck)
    std::uint32_t busySlots = 0;  // bit i: slot i holds an op
    std::uint32_t taskArgument = 0;
    std::uint64_t activated = 0, blocked = 0;
    std::uint64_t mainReadyAt = 0;  // the running task issues nothing before this cycle
    std::uint64_t simdFreeAt = 0;
    std::uint64_t lastVisit = sim::kNever;
    std::uint64_t since = 0;  // the cycle its current busy (or idle) stretch began
  };
  static_assert(kMaxTaskInstructions <= 0xFFFF, "PeState::pc counts up to a task's length");
  // Wavelets the RAMP delivered to a PE on one color, in arrival order.
  struct InboxEntry {
    std::uint64_t arrival;  // when the compute engine can use it
    std::uint32_t payload;
  };
  struct InboxHeader {
    std::uint8_t head, count;
  };

  // Bands visit their PEs at once only in a cycle with at least this many
  // wake-ups due per band: fewer cost less than the threads' fork and join.
  static constexpr std::size_t kDuePerBandToSplit = 16;
  // Visits the band's PEs with a wake-up due at `now`.
  void visitDue(PeBand& band, std::uint64_t now);
  void visit(PeBand& band, fabric::RouterId r, std::uint64_t now);
  void completeOps(PeBand& band, fabric::RouterId r, PeState& s, std::uint64_t now);
  void runMainThread(fabric::RouterId r, PeState& s, std::uint64_t now);
  int pickTask(fabric::RouterId r, const PeState& s, std::uint64_t now) const;
  void issue(fabric::RouterId r, PeState& s, unsigned slot, const TensorOp& op, const OpTiming& timing,
             std::uint8_t actionClass, std::uint64_t now);
  // Moves one element of a fabric op if its inputs have arrived and the
  // router takes its output.
  enum class FabricStep { Moved, NoInput, Backpressure };
  FabricStep advanceFabricOp(fabric::RouterId r, OpSlot& slot, std::uint64_t now);
  void finishOp(PeBand& band, fabric::RouterId r, PeState& s, OpSlot& slot);
  // The small number standing for action class `cls` (actionClass) in op
  // slots and PeBand::classElements, registered on first use.
  std::uint8_t registerActionClass(unsigned cls);
  void computeMemoryOp(fabric::RouterId r, const PeState& s, const OpSlot& slot);
  float readSource(fabric::RouterId r, const PeState& s, const TensorOp& op, unsigned operand, std::uint32_t index,
                   std::uint32_t element) const;
  // `index`: the descriptor's index register value, captured at issue.
  std::uint64_t address(fabric::RouterId r, const Descriptor& d, ElementType t, std::uint32_t index,
                        std::uint32_t element) const {
    const std::uint64_t first = std::uint64_t(d.offset) + (d.index >= 0 ? std::uint64_t(index) * d.indexScale : 0);
    return bufferBase_[r][d.buffer] + (first + std::uint64_t(element) * d.stride) * elementBytes(t);
  }
  std::uint32_t& indexRegister(fabric::RouterId r, unsigned reg) const {
    return indexRegisters_[std::size_t(r) * params_.indexRegisters + reg];
  }
  PeBand& bandOf(fabric::RouterId r) { return *bands_[fabric_.bandIndex(r)]; }
  void wake(fabric::RouterId r, std::uint64_t cycle) { bandOf(r).wakes.schedule(cycle, r); }
  const fabric::MeshGeometry& mesh() const { return fabric_.params().mesh; }

  OpSlot* slots(fabric::RouterId r) { return &slots_[std::size_t(r) * slotsPerPe_]; }
  const OpSlot* slots(fabric::RouterId r) const { return &slots_[std::size_t(r) * slotsPerPe_]; }
  unsigned mainSlot() const { return slotsPerPe_ - 1; }

  InboxHeader& inboxHeader(fabric::RouterId r, unsigned color) const {
    return inboxHeaders_[std::size_t(color) * peCount_ + r];
  }
  InboxEntry& inboxEntry(fabric::RouterId r, unsigned color, unsigned i) const {
    return inboxEntries_[(std::size_t(color) * peCount_ + r) * depth_ + i];
  }
  // The oldest wavelet of `color` if it has reached the PE by `now`.
  const InboxEntry* arrived(fabric::RouterId r, unsigned color, std::uint64_t now) const;
  std::uint32_t popInbox(fabric::RouterId r, unsigned color);


  PeParams params_;
  DataMode mode_;
  fabric::FabricKernel& fabric_;
  const fabric::ColorRouteTable* routes_;
  std::size_t peCount_;
  unsigned slotsPerPe_;
  unsigned depth_;

  std::vector<LoadedProgram> programs_;
  std::vector<ProgramId> freeProgramIds_;  // of programs gone with their last PE (UntilUnloaded)
  std::vector<PeState> pes_;
  std::vector<PeCounters> counters_;
  // Op elements are counted by registered action class (PeBand::classElements):
  // an op slot's byte indexes them, so a completed op costs one add. Classes
  // reachable from the opcodes' sources and destinations: 3 precisions x
  // (8 + 4 + 4 + 2 source patterns) x 3 destinations = 162.
  std::vector<unsigned> registeredClasses_;  // registered number -> actionClass
  std::vector<PeActions> perPeActions_;      // [pe] when kept, else empty
  std::vector<SramAllocator> sram_;
  std::vector<std::vector<std::uint32_t>> bufferBase_;  // [pe][program buffer]: byte offset
  // Buffers kept by unload() for a later program, with their data.
  struct ResidentBuffer {
    BufferDecl decl;
    std::uint32_t offset;
  };
  std::vector<std::vector<ResidentBuffer>> kept_;  // [pe]
  // A buffer of the PE's program or kept from an earlier one; throws unless
  // elements [offset, offset + count) exist and data is kept.
  ResidentBuffer locate(fabric::RouterId pe, const std::string& buffer, std::uint32_t offset, std::uint64_t count,
                        const char* access) const;
  fabric::ZeroedArray<OpSlot> slots_;
  fabric::ZeroedArray<std::uint32_t> indexRegisters_;  // [pe][register]
  fabric::ZeroedArray<InboxHeader> inboxHeaders_;  // color-major: a color's slice is contiguous
  fabric::ZeroedArray<InboxEntry> inboxEntries_;
  std::unique_ptr<SramData> data_;  // functional mode only

  std::vector<std::unique_ptr<PeBand>> bands_;  // one per band of the fabric
  std::uint64_t cyclesInBands_ = 0;
  std::uint64_t now_ = 0;
  std::uint64_t undrained_ = 0;  // the earliest cycle whose wake-ups are still to come
  bool watchEnds_ = false;
  std::vector<fabric::RouterId> ends_;  // programs ended, while watched
};

}  // namespace wsesim::pe
