#include "hw/pe/ProgramBuilder.h"

#include <algorithm>

#include "hw/pe/ProgramError.h"

namespace wsesim::pe {

Descriptor memory(BufferRef buffer, std::uint32_t length, std::uint32_t offset, std::uint32_t stride) {
  Descriptor d;
  d.kind = Descriptor::Kind::Memory;
  d.buffer = buffer.index;
  d.length = length;
  d.offset = offset;
  d.stride = stride;
  return d;
}

Descriptor fabricIn(unsigned color, std::uint32_t length) {
  Descriptor d;
  d.kind = Descriptor::Kind::FabricIn;
  d.color = std::uint8_t(color);
  d.length = length;
  return d;
}

Descriptor fabricOut(unsigned color, std::uint32_t length) {
  Descriptor d = fabricIn(color, length);
  d.kind = Descriptor::Kind::FabricOut;
  return d;
}

Descriptor scalar(float value) {
  Descriptor d;
  d.kind = Descriptor::Kind::Immediate;
  d.immediate = value;
  return d;
}

Descriptor taskArgument() {
  Descriptor d;
  d.kind = Descriptor::Kind::TaskArgument;
  return d;
}

BufferRef ProgramBuilder::buffer(const std::string& name, ElementType type, std::uint32_t elements) {
  for (const BufferDecl& b : program_.buffers)
    if (b.name == name) throw ProgramError("program '" + program_.name + "' declares buffer '" + name + "' twice");
  program_.buffers.push_back(BufferDecl{name, type, elements});
  return BufferRef{std::uint16_t(program_.buffers.size() - 1)};
}

TaskRef ProgramBuilder::addTask(const std::string& name, std::int16_t color) {
  if (program_.tasks.size() >= 64)
    throw ProgramError("program '" + program_.name + "' has more than 64 tasks (task '" + name + "')");
  Task t;
  t.name = name;
  t.color = color;
  program_.tasks.push_back(std::move(t));
  return TaskRef{std::uint8_t(program_.tasks.size() - 1)};
}

TaskRef ProgramBuilder::task(const std::string& name) { return addTask(name, kUnbound); }

TaskRef ProgramBuilder::dataTask(const std::string& name, unsigned color) {
  for (const Task& t : program_.tasks)
    if (t.color == std::int16_t(color))
      throw ProgramError("program '" + program_.name + "' binds color " + std::to_string(color) + " to task '" +
                         t.name + "' and to task '" + name + "'");
  return addTask(name, std::int16_t(color));
}

ProgramBuilder& ProgramBuilder::activateAtStart(TaskRef t) {
  program_.tasks.at(t.id).activeAtStart = true;
  return *this;
}

ProgramBuilder& ProgramBuilder::blockAtStart(TaskRef t) {
  program_.tasks.at(t.id).blockedAtStart = true;
  return *this;
}

ProgramBuilder& ProgramBuilder::op(TaskRef t, Opcode opcode, Precision p, Descriptor dst,
                                   std::initializer_list<Descriptor> src, Issue issue) {
  Instruction in;
  in.kind = Instruction::Kind::Op;
  TensorOp& o = in.op;
  o.opcode = opcode;
  o.precision = p;
  o.dst = dst;
  std::copy(src.begin(), src.end(), o.src);
  o.thread = issue.thread;
  o.activateOnDone = issue.activate;
  o.unblockOnDone = issue.unblock;
  // The length is the vectors' common length; PeArray::load reports a mismatch.
  o.length = dst.isVector() ? dst.length : 0;
  for (const Descriptor& s : src)
    if (o.length == 0 && s.isVector()) o.length = s.length;
  program_.tasks.at(t.id).code.push_back(in);
  return *this;
}

ProgramBuilder& ProgramBuilder::fmac(TaskRef t, Precision p, Descriptor dst, Descriptor add, Descriptor mul0,
                                     Descriptor mul1, Issue issue) {
  return op(t, Opcode::Fmac, p, dst, {add, mul0, mul1}, issue);
}

ProgramBuilder& ProgramBuilder::fadd(TaskRef t, Precision p, Descriptor dst, Descriptor a, Descriptor b, Issue issue) {
  return op(t, Opcode::Fadd, p, dst, {a, b}, issue);
}

ProgramBuilder& ProgramBuilder::fmul(TaskRef t, Precision p, Descriptor dst, Descriptor a, Descriptor b, Issue issue) {
  return op(t, Opcode::Fmul, p, dst, {a, b}, issue);
}

ProgramBuilder& ProgramBuilder::fmov(TaskRef t, Precision p, Descriptor dst, Descriptor src, Issue issue) {
  return op(t, Opcode::Fmov, p, dst, {src}, issue);
}

ProgramBuilder& ProgramBuilder::control(TaskRef t, Instruction::Kind kind, TaskRef target) {
  Instruction in;
  in.kind = kind;
  in.task = std::int8_t(target.id);
  program_.tasks.at(t.id).code.push_back(in);
  return *this;
}

ProgramBuilder& ProgramBuilder::setIndex(TaskRef t, unsigned reg, std::uint32_t value) {
  Instruction in;
  in.kind = Instruction::Kind::SetIndex;
  in.reg = std::uint8_t(reg);
  in.value = value;
  program_.tasks.at(t.id).code.push_back(in);
  return *this;
}

ProgramBuilder& ProgramBuilder::countIndex(TaskRef t, unsigned reg, std::uint32_t limit) {
  Instruction in;
  in.kind = Instruction::Kind::CountIndex;
  in.reg = std::uint8_t(reg);
  in.value = limit;
  program_.tasks.at(t.id).code.push_back(in);
  return *this;
}

ProgramBuilder& ProgramBuilder::countIndex(TaskRef t, unsigned reg, std::uint32_t limit, TaskRef onWrap) {
  countIndex(t, reg, limit);
  program_.tasks.at(t.id).code.back().task = std::int8_t(onWrap.id);
  return *this;
}

ProgramBuilder& ProgramBuilder::argumentRun(TaskRef t, unsigned position, unsigned runs, std::uint32_t positions,
                                            TaskRef onRuns) {
  Instruction in;
  in.kind = Instruction::Kind::ArgumentRun;
  in.reg = std::uint8_t(position);
  in.reg2 = std::uint8_t(runs);
  in.value = positions;
  in.task = std::int8_t(onRuns.id);
  program_.tasks.at(t.id).code.push_back(in);
  return *this;
}

ProgramBuilder& ProgramBuilder::countDown(TaskRef t, unsigned reg, TaskRef again, TaskRef done) {
  Instruction in;
  in.kind = Instruction::Kind::CountDown;
  in.reg = std::uint8_t(reg);
  in.task = std::int8_t(again.id);
  in.task2 = std::int8_t(done.id);
  program_.tasks.at(t.id).code.push_back(in);
  return *this;
}

ProgramBuilder& ProgramBuilder::activate(TaskRef t, TaskRef target) {
  return control(t, Instruction::Kind::Activate, target);
}
ProgramBuilder& ProgramBuilder::block(TaskRef t, TaskRef target) { return control(t, Instruction::Kind::Block, target); }
ProgramBuilder& ProgramBuilder::unblock(TaskRef t, TaskRef target) {
  return control(t, Instruction::Kind::Unblock, target);
}

}  // namespace wsesim::pe
