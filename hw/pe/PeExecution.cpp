// How a PE advances within a cycle: finish ops that are due, let the main
// thread pick a task and issue instructions, move one element of each
// fabric op, then sleep until the next cycle anything can change.
#include <algorithm>
#include <utility>

#include "hw/pe/Numerics.h"
#include "hw/pe/PeArray.h"

namespace wsesim::pe {

void PeArray::beginCycle(std::uint64_t now, fabric::FabricKernel&) {
  now_ = now;
  undrained_ = now + 1;
  if (bands_.size() == 1) {
    PeBand& band = *bands_[0];
    for (const PeBand::Release& rel : band.releases) fabric_.setRampAccepting(rel.pe, rel.color, true);
    band.releases.clear();
    visitDue(band, now);
  } else {
    std::size_t due = 0;
    for (const std::unique_ptr<PeBand>& band : bands_) {
      for (const PeBand::Release& rel : band->releases) fabric_.setRampAccepting(rel.pe, rel.color, true);
      band->releases.clear();
      due += band->wakes.due(now);
    }
    // A visit writes only its PE, its router and its band, so the bands'
    // visits may run at once; a cycle with few of them is not worth a fork.
    cyclesInBands_ += fabric_.forEachBand(due >= bands_.size() * kDuePerBandToSplit,
                                          [&](unsigned b) { visitDue(*bands_[b], now); });
  }
  // What the visits gathered, in band order (PEs in the same order at any
  // thread count, since the bands do not depend on whether they ran at once).
  for (const std::unique_ptr<PeBand>& band : bands_) {
    ends_.insert(ends_.end(), band->ends.begin(), band->ends.end());
    band->ends.clear();
    fabric_.notePendingUntil(std::exchange(band->pendingUntil, 0));
  }
}

void PeArray::visitDue(PeBand& band, std::uint64_t now) {
  band.wakes.drain(now, [&](fabric::RouterId r) {
    if (pes_[r].lastVisit == now) return;  // several wake-ups for one cycle
    pes_[r].lastVisit = now;
    visit(band, r, now);
  });
}

void PeArray::visit(PeBand& band, fabric::RouterId r, std::uint64_t now) {
  PeState& s = pes_[r];
  ++counters_[r].visits;
  completeOps(band, r, s, now);
  runMainThread(r, s, now);

  // The PE's next step that is certain (an op's next element or its end, a
  // task starting), and whether it retries an output against backpressure.
  std::uint64_t due = sim::kNever;
  bool retry = false;
  for (std::uint32_t m = s.busySlots; m; m &= m - 1) {
    OpSlot& slot = slots(r)[__builtin_ctz(m)];
    if (slot.fabric && slot.done < slot.op->length && slot.at <= now) {
      // A missing input wakes the PE when its wavelet is delivered, a full
      // RAMP queue when it has room (rampFreed); a RAMP that already took
      // a wavelet this cycle is retried next cycle.
      const FabricStep step = advanceFabricOp(r, slot, now);
      if (step == FabricStep::NoInput) continue;
      if (step == FabricStep::Backpressure) {
        slot.waitsForRoom = fabric_.rampFull(r, slot.op->dst.color);
        retry |= !slot.waitsForRoom;
        continue;
      }
    }
    due = std::min(due, slot.at);
  }
  if (s.task != kNoTask && !(s.busySlots & (1u << mainSlot())) && s.mainReadyAt > now) due = std::min(due, s.mainReadyAt);
  // A computing PE is busy, not stuck; one that waits for input or for room
  // on the RAMP is blocked (the watchdog counts those cycles).
  if (due != sim::kNever) band.pendingUntil = std::max(band.pendingUntil, due);
  const std::uint64_t next = retry ? now + 1 : due;
  if (next != sim::kNever) band.wakes.schedule(next, r);

  const bool busy = s.task != kNoTask || s.busySlots;
  if (busy != s.busy) {
    if (!busy) counters_[r].busyCycles += now - s.since;
    s.since = now;
  }
  s.busy = busy;
  if (watchEnds_ && !busy && !s.activated && s.program != kNoProgram) band.ends.push_back(r);
}

void PeArray::completeOps(PeBand& band, fabric::RouterId r, PeState& s, std::uint64_t now) {
  for (std::uint32_t m = s.busySlots; m; m &= m - 1) {
    const unsigned i = unsigned(__builtin_ctz(m));
    OpSlot& slot = slots(r)[i];
    if (slot.at > now || (slot.fabric && slot.done < slot.op->length)) continue;
    if (!slot.fabric && data_) computeMemoryOp(r, s, slot);
    finishOp(band, r, s, slot);
    s.busySlots &= ~(1u << i);
  }
}

void PeArray::finishOp(PeBand& band, fabric::RouterId r, PeState& s, OpSlot& slot) {
  const TensorOp& op = *slot.op;
  PeCounters& c = counters_[r];
  ++c.opsCompleted;
  c.elements += op.length;
  c.flops += std::uint64_t(op.length) * (op.opcode == Opcode::Fmac ? 2 : op.opcode == Opcode::Fmov ? 0 : 1);
  band.classElements[slot.actionClass] += op.length;
  if (!perPeActions_.empty()) perPeActions_[r].add(registeredClasses_[slot.actionClass], op.length);
  if (op.activateOnDone != kNoTask) s.activated |= std::uint64_t(1) << op.activateOnDone;
  if (op.unblockOnDone != kNoTask) s.blocked &= ~(std::uint64_t(1) << op.unblockOnDone);
  slot.op = nullptr;
}

int PeArray::pickTask(fabric::RouterId r, const PeState& s, std::uint64_t now) const {
  const LoadedProgram& lp = programs_[s.program];
  std::uint64_t ready = s.activated;
  for (std::uint64_t m = lp.dataTasks & ~s.blocked; m; m &= m - 1) {
    const unsigned t = unsigned(__builtin_ctzll(m));
    if (arrived(r, unsigned(lp.program.tasks[t].color), now)) ready |= std::uint64_t(1) << t;
  }
  ready &= ~s.blocked;
  return ready ? __builtin_ctzll(ready) : kNoTask;
}

void PeArray::runMainThread(fabric::RouterId r, PeState& s, std::uint64_t now) {
  if (s.program == kNoProgram) return;
  const LoadedProgram& lp = programs_[s.program];
  for (;;) {
    if (s.busySlots & (1u << mainSlot())) return;  // waiting for a synchronous op
    if (s.task == kNoTask) {
      const int t = pickTask(r, s, now);
      if (t == kNoTask) return;
      const std::int16_t color = lp.program.tasks[t].color;
      if (color != kUnbound) s.taskArgument = popInbox(r, unsigned(color));
      s.activated &= ~(std::uint64_t(1) << t);
      s.task = std::int8_t(t);
      s.pc = 0;
      s.mainReadyAt = now + params_.taskStartCycles;
      ++counters_[r].tasksRun;
    }
    if (now < s.mainReadyAt) return;
    const Task& task = lp.program.tasks[s.task];
    if (s.pc == task.code.size()) {
      s.task = kNoTask;
      continue;
    }
    const Instruction& in = task.code[s.pc];
    const std::uint64_t bit = in.task == kNoTask ? 0 : std::uint64_t(1) << in.task;
    switch (in.kind) {
      case Instruction::Kind::Activate: s.activated |= bit; break;
      case Instruction::Kind::Block: s.blocked |= bit; break;
      case Instruction::Kind::Unblock: s.blocked &= ~bit; break;
      case Instruction::Kind::SetIndex: indexRegister(r, in.reg) = in.value; break;
      case Instruction::Kind::CountIndex:
        if (++indexRegister(r, in.reg) == in.value) {
          indexRegister(r, in.reg) = 0;
          s.activated |= bit;
        }
        break;
      case Instruction::Kind::ArgumentRun: {
        const std::uint32_t index = s.taskArgument >> 16;
        indexRegister(r, in.reg) = index % in.value;
        indexRegister(r, in.reg2) = index / in.value;
        if (indexRegister(r, in.reg2) != 0) {
          s.activated |= bit;
          s.pc = std::uint16_t(task.code.size() - 1);  // the task ends here
        }
        break;
      }
      case Instruction::Kind::CountDown:
        if (indexRegister(r, in.reg) > 0) --indexRegister(r, in.reg);
        s.activated |= indexRegister(r, in.reg) != 0 ? bit : std::uint64_t(1) << in.task2;
        break;
      case Instruction::Kind::Op: {
        const unsigned target = in.op.thread == kSynchronous ? mainSlot() : unsigned(in.op.thread);
        if (s.busySlots & (1u << target)) return;  // the thread is still busy: wait for it
        issue(r, s, target, in.op, lp.timing[s.task][s.pc], lp.actionClasses[s.task][s.pc], now);
        break;
      }
    }
    ++s.pc;
  }
}

void PeArray::issue(fabric::RouterId r, PeState& s, unsigned slotIndex, const TensorOp& op, const OpTiming& timing,
                    std::uint8_t actionClass, std::uint64_t now) {
  OpSlot& slot = slots(r)[slotIndex];
  s.busySlots |= 1u << slotIndex;
  slot.op = &op;
  slot.done = 0;
  slot.interval = timing.fabricInterval;
  slot.carry = 0;
  slot.fabric = op.usesFabric();
  slot.waitsForRoom = false;
  slot.actionClass = actionClass;
  slot.index[0] = op.dst.index >= 0 ? indexRegister(r, unsigned(op.dst.index)) : 0;
  for (unsigned i = 0; i < 3; ++i) slot.index[i + 1] = op.src[i].index >= 0 ? indexRegister(r, unsigned(op.src[i].index)) : 0;
  if (slot.fabric) {
    slot.at = now + timing.issueCycles;
  } else {
    // Memory ops share the SIMD unit: one at a time, in issue order.
    const std::uint64_t start = std::max(now, s.simdFreeAt);
    slot.at = start + timing.cycles;
    s.simdFreeAt = slot.at;
  }
}

PeArray::FabricStep PeArray::advanceFabricOp(fabric::RouterId r, OpSlot& slot, std::uint64_t now) {
  const TensorOp& op = *slot.op;
  const PeState& s = pes_[r];
  for (unsigned i = 0; i < sourceCount(op.opcode); ++i)
    if (op.src[i].kind == Descriptor::Kind::FabricIn && !arrived(r, op.src[i].color, now))
      return FabricStep::NoInput;
  float value = 0;
  if (data_) {
    float v[3] = {0, 0, 0};
    for (unsigned i = 0; i < sourceCount(op.opcode); ++i) v[i] = readSource(r, s, op, i, slot.index[i + 1], slot.done);
    value = compute(op.opcode, op.precision, v[0], v[1], v[2]);
  }
  const ElementType dstType = operandType(op.opcode, op.precision, -1);
  if (op.dst.kind == Descriptor::Kind::FabricOut) {
    fabric::Wavelet w;
    w.color = op.dst.color;
    w.payload = data_ ? toPayload(dstType, value) : 0;
    w.last = slot.done + 1 == op.length;
    if (!fabric_.inject(r, w, now)) return FabricStep::Backpressure;
  } else if (data_) {
    data_->store(r, address(r, op.dst, dstType, slot.index[0], slot.done), dstType, value);
  }
  for (unsigned i = 0; i < sourceCount(op.opcode); ++i)
    if (op.src[i].kind == Descriptor::Kind::FabricIn) popInbox(r, op.src[i].color);
  ++slot.done;
  const std::uint64_t elapsed = std::uint64_t(slot.carry) + slot.interval;
  slot.at = now + (elapsed >> kIntervalFractionBits);
  slot.carry = std::uint16_t(elapsed & ((1u << kIntervalFractionBits) - 1));
  return FabricStep::Moved;
}

float PeArray::readSource(fabric::RouterId r, const PeState& s, const TensorOp& op, unsigned operand,
                          std::uint32_t index, std::uint32_t element) const {
  const Descriptor& d = op.src[operand];
  const ElementType t = operandType(op.opcode, op.precision, int(operand));
  switch (d.kind) {
    case Descriptor::Kind::Memory: return data_->load(r, address(r, d, t, index, element), t);
    case Descriptor::Kind::FabricIn: return fromPayload(t, arrived(r, d.color, now_)->payload);
    case Descriptor::Kind::Immediate: return roundTo(t, d.immediate);
    case Descriptor::Kind::TaskArgument: return fromPayload(t, s.taskArgument);
    default: return 0;
  }
}

// Aligned to a cache line: its element loop is the functional PE's hot
// spot, and where the linker happened to place it (code elsewhere
// changing) moved pe_bench's compute_64x64_functional by 5% (2026-12-01).
[[gnu::aligned(64)]] void PeArray::computeMemoryOp(fabric::RouterId r, const PeState& s, const OpSlot& slot) {
  const TensorOp& op = *slot.op;
  const ElementType dstType = operandType(op.opcode, op.precision, -1);
  for (std::uint32_t e = 0; e < op.length; ++e) {
    float v[3] = {0, 0, 0};
    for (unsigned i = 0; i < sourceCount(op.opcode); ++i) v[i] = readSource(r, s, op, i, slot.index[i + 1], e);
    data_->store(r, address(r, op.dst, dstType, slot.index[0], e), dstType,
                 compute(op.opcode, op.precision, v[0], v[1], v[2]));
  }
}

}  // namespace wsesim::pe
