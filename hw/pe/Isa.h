#pragma once
// The PE micro-ISA: programs of tasks whose instructions are tensor
// operations over descriptors (the SDK's DSDs) and a few control
// instructions. A program is data: the firmware builds it (ProgramBuilder),
// many PEs share one copy, and PeArray executes it.

#include <cstdint>
#include <string>
#include <vector>

#include "hw/pe/OpKind.h"

namespace wsesim::pe {

inline constexpr std::int8_t kNoTask = -1;
inline constexpr std::int8_t kSynchronous = -1;

// One operand of a tensor operation. Vector descriptors (memory, fabric)
// carry the operation's length; scalars (immediate, task argument) repeat
// one value for every element.
struct Descriptor {
  enum class Kind : std::uint8_t { None, Memory, FabricIn, FabricOut, Immediate, TaskArgument };
  Kind kind = Kind::None;
  std::uint8_t color = 0;      // FabricIn / FabricOut
  std::uint16_t buffer = 0;    // Memory: index into Program::buffers
  std::uint32_t offset = 0;    // Memory: first element
  std::uint32_t length = 0;    // Memory / FabricIn / FabricOut: elements (wavelets)
  std::uint32_t stride = 1;    // Memory: elements between accesses; 0 reads one element repeatedly
  // Memory: the first element moves by index register `index` (if >= 0)
  // times `indexScale`, read when the op issues.
  std::int8_t index = -1;
  std::uint32_t indexScale = 0;
  float immediate = 0;         // Immediate

  // This memory descriptor, its first element moved by `scale` per unit of index register `reg`.
  Descriptor indexed(unsigned reg, std::uint32_t scale) const {
    Descriptor d = *this;
    d.index = std::int8_t(reg);
    d.indexScale = scale;
    return d;
  }

  bool isVector() const { return kind == Kind::Memory || kind == Kind::FabricIn || kind == Kind::FabricOut; }
  bool isFabric() const { return kind == Kind::FabricIn || kind == Kind::FabricOut; }
};

struct TensorOp {
  Opcode opcode = Opcode::Fmov;
  Precision precision = Precision::Fp32;
  std::uint32_t length = 0;
  Descriptor dst;
  Descriptor src[3];
  // Hardware thread the op runs on asynchronously; kSynchronous: the task
  // waits for it. On completion an async op may activate and/or unblock a task.
  std::int8_t thread = kSynchronous;
  std::int8_t activateOnDone = kNoTask;
  std::int8_t unblockOnDone = kNoTask;

  bool usesFabric() const;
};

struct Instruction {
  // SetIndex: register = value. CountIndex: register + 1, and when it
  // reaches `value` it wraps to 0 and activates `task` (if any): how a
  // program steps through the columns of a buffer and notices a block's end.
  // ArgumentRun (a data task's): the upper 16 bits of the task's wavelet,
  // its index (the SDK's sparse-tensor wavelet: 16 bits of data below, 16
  // of index above), split: index mod `value` into register `reg`, index /
  // `value` into register `reg2`; when that is not 0, `task` is activated
  // and the task ends there. CountDown: register `reg` - 1; while it is not 0
  // `task` is activated, at 0 `task2`. How a program takes a sparse stream
  // whose wavelets say where they belong (reg) and how many runs ended
  // before them (reg2): docs/sparsity.md.
  enum class Kind : std::uint8_t { Op, Activate, Block, Unblock, SetIndex, CountIndex, ArgumentRun, CountDown };
  Kind kind = Kind::Op;
  std::int8_t task = kNoTask;  // Activate / Block / Unblock / CountIndex: the target task
  std::uint8_t reg = 0;        // SetIndex / CountIndex / ArgumentRun / CountDown
  std::uint8_t reg2 = 0;       // ArgumentRun: the runs ended
  std::int8_t task2 = kNoTask; // CountDown: activated at 0
  std::uint32_t value = 0;     // SetIndex: the value; CountIndex: the wrap-around limit; ArgumentRun: the positions reg takes
  TensorOp op;                 // Op
};

struct BufferDecl {
  std::string name;
  ElementType type = ElementType::F32;
  std::uint32_t elements = 0;
  std::uint64_t bytes() const { return std::uint64_t(elements) * elementBytes(type); }
};

inline constexpr std::int16_t kUnbound = -1;

struct Task {
  std::string name;
  std::vector<Instruction> code;
  std::int16_t color = kUnbound;  // a data task runs when a wavelet of this color reaches the PE
  bool activeAtStart = false;     // runs once the program is loaded
  bool blockedAtStart = false;
};

// Tasks are numbered by their index; a lower number wins when several can run.
// The most instructions one task may hold: the PE's program counter is 16
// bits (PeArray::PeState::pc), and a longer task would run round forever.
inline constexpr std::size_t kMaxTaskInstructions = 0xFFFF;

struct Program {
  std::string name;
  // Cycles of the program's own code before each op it issues: the scalar
  // bookkeeping of the loop around it (a CSL loop issuing one DSD op per
  // column), beyond the hardware's issue cost (PeParams::opOverheadCycles).
  // A property of the firmware, set per kernel (arch.firmware.*).
  std::uint32_t loopCycles = 0;
  std::vector<BufferDecl> buffers;
  std::vector<Task> tasks;
};

}  // namespace wsesim::pe
