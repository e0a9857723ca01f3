#pragma once
// Builds a Program in C++: declare buffers and tasks, then append
// instructions. The firmware layer generates programs with it; tests write
// them by hand. Programs are checked against the architecture when loaded
// onto a PE (PeArray::load), where errors can name the PE.

#include <cstdint>
#include <string>

#include "hw/pe/Isa.h"

namespace wsesim::pe {

struct BufferRef {
  std::uint16_t index;
};
struct TaskRef {
  std::uint8_t id;
};

// How an operation is issued: synchronously (the task waits), or on a
// hardware thread with optional actions when it completes.
struct Issue {
  std::int8_t thread = kSynchronous;
  std::int8_t activate = kNoTask;
  std::int8_t unblock = kNoTask;

  static Issue sync() { return {}; }
  static Issue onThread(unsigned t) { return Issue{std::int8_t(t), kNoTask, kNoTask}; }
  Issue thenActivate(TaskRef t) const { return Issue{thread, std::int8_t(t.id), unblock}; }
  Issue thenUnblock(TaskRef t) const { return Issue{thread, activate, std::int8_t(t.id)}; }
};

// Descriptor constructors.
Descriptor memory(BufferRef buffer, std::uint32_t length, std::uint32_t offset = 0, std::uint32_t stride = 1);
Descriptor fabricIn(unsigned color, std::uint32_t length);
Descriptor fabricOut(unsigned color, std::uint32_t length);
Descriptor scalar(float value);
Descriptor taskArgument();  // the payload of the wavelet that started a data task

class ProgramBuilder {
 public:
  // `loopCycles`: what the program's own loop costs before each op it issues (Program::loopCycles).
  explicit ProgramBuilder(std::string name, std::uint32_t loopCycles = 0) {
    program_.name = std::move(name);
    program_.loopCycles = loopCycles;
  }

  BufferRef buffer(const std::string& name, ElementType type, std::uint32_t elements);
  TaskRef task(const std::string& name);
  TaskRef dataTask(const std::string& name, unsigned color);
  ProgramBuilder& activateAtStart(TaskRef t);
  ProgramBuilder& blockAtStart(TaskRef t);

  // Tensor operations appended to task `t`. The length is that of the
  // vector descriptors, which must agree.
  ProgramBuilder& fmac(TaskRef t, Precision p, Descriptor dst, Descriptor add, Descriptor mul0, Descriptor mul1,
                       Issue issue = {});
  ProgramBuilder& fadd(TaskRef t, Precision p, Descriptor dst, Descriptor a, Descriptor b, Issue issue = {});
  ProgramBuilder& fmul(TaskRef t, Precision p, Descriptor dst, Descriptor a, Descriptor b, Issue issue = {});
  ProgramBuilder& fmov(TaskRef t, Precision p, Descriptor dst, Descriptor src, Issue issue = {});

  ProgramBuilder& activate(TaskRef t, TaskRef target);
  ProgramBuilder& block(TaskRef t, TaskRef target);
  ProgramBuilder& unblock(TaskRef t, TaskRef target);
  ProgramBuilder& setIndex(TaskRef t, unsigned reg, std::uint32_t value);
  // reg += 1; at `limit` it wraps to 0 and, if given, activates `onWrap`.
  ProgramBuilder& countIndex(TaskRef t, unsigned reg, std::uint32_t limit);
  ProgramBuilder& countIndex(TaskRef t, unsigned reg, std::uint32_t limit, TaskRef onWrap);
  // The data task's wavelet's index: index mod `positions` into `position`,
  // index / `positions` into `runs`; unless that is 0, activates `onRuns`
  // and ends the task (Instruction::Kind::ArgumentRun).
  ProgramBuilder& argumentRun(TaskRef t, unsigned position, unsigned runs, std::uint32_t positions, TaskRef onRuns);
  // reg - 1: activates `again` until it is 0, then `done` (Instruction::Kind::CountDown).
  ProgramBuilder& countDown(TaskRef t, unsigned reg, TaskRef again, TaskRef done);

  const Program& program() const { return program_; }
  Program build() const { return program_; }

 private:
  TaskRef addTask(const std::string& name, std::int16_t color);
  ProgramBuilder& op(TaskRef t, Opcode opcode, Precision p, Descriptor dst, std::initializer_list<Descriptor> src,
                     Issue issue);
  ProgramBuilder& control(TaskRef t, Instruction::Kind kind, TaskRef target);

  Program program_;
};

}  // namespace wsesim::pe
