#include "hw/pe/ProgramText.h"

#include <sstream>

namespace wsesim::pe {

std::string describe(const Program& program, const Descriptor& d) {
  std::ostringstream out;
  switch (d.kind) {
    case Descriptor::Kind::None: out << "-"; break;
    case Descriptor::Kind::Memory:
      out << (d.buffer < program.buffers.size() ? program.buffers[d.buffer].name : "buffer#" + std::to_string(d.buffer))
          << "[" << d.offset;
      if (d.index >= 0) out << "+i" << int(d.index) << "*" << d.indexScale;
      out << ":+" << d.length << ":" << d.stride << "]";
      break;
    case Descriptor::Kind::FabricIn: out << "in@c" << unsigned(d.color) << "[" << d.length << "]"; break;
    case Descriptor::Kind::FabricOut: out << "out@c" << unsigned(d.color) << "[" << d.length << "]"; break;
    case Descriptor::Kind::Immediate: out << "#" << d.immediate; break;
    case Descriptor::Kind::TaskArgument: out << "arg"; break;
  }
  return out.str();
}

std::string describe(const Program& program, const TensorOp& op) {
  std::ostringstream out;
  out << opcodeName(op.opcode) << "." << precisionName(op.precision) << " " << describe(program, op.dst) << " <-";
  for (unsigned i = 0; i < sourceCount(op.opcode); ++i)
    out << (i ? ", " : " ") << describe(program, op.src[i]);
  const auto taskName = [&](int t) {
    return t >= 0 && std::size_t(t) < program.tasks.size() ? "'" + program.tasks[t].name + "'" : std::to_string(t);
  };
  if (op.thread != kSynchronous) out << "  on thread " << int(op.thread);
  if (op.activateOnDone != kNoTask) out << ", then activate " << taskName(op.activateOnDone);
  if (op.unblockOnDone != kNoTask) out << ", then unblock " << taskName(op.unblockOnDone);
  return out.str();
}

std::string describe(const Program& program, const Instruction& in) {
  const auto target = [&] {
    return in.task >= 0 && std::size_t(in.task) < program.tasks.size() ? " '" + program.tasks[in.task].name + "'"
                                                                         : " " + std::to_string(in.task);
  };
  switch (in.kind) {
    case Instruction::Kind::Op: return describe(program, in.op);
    case Instruction::Kind::Activate: return "activate" + target();
    case Instruction::Kind::Block: return "block" + target();
    case Instruction::Kind::Unblock: return "unblock" + target();
    case Instruction::Kind::SetIndex: return "set i" + std::to_string(in.reg) + " = " + std::to_string(in.value);
    case Instruction::Kind::ArgumentRun:
      return "i" + std::to_string(in.reg) + " = the wavelet's index mod " + std::to_string(in.value) + ", i" +
             std::to_string(in.reg2) + " = index / " + std::to_string(in.value) + "; unless 0: activate" + target() +
             " and end";
    case Instruction::Kind::CountDown: {
      const std::string atZero = in.task2 >= 0 && std::size_t(in.task2) < program.tasks.size()
                                     ? " '" + program.tasks[in.task2].name + "'"
                                     : " " + std::to_string(in.task2);
      return "count i" + std::to_string(in.reg) + " down: activate" + target() + " until 0, then" + atZero;
    }
    case Instruction::Kind::CountIndex:
      return "count i" + std::to_string(in.reg) + " to " + std::to_string(in.value) +
             (in.task == kNoTask ? std::string() : ", then activate" + target());
  }
  return "?";
}

std::string dump(const Program& program) {
  std::ostringstream out;
  out << "program " << program.name << "\n";
  for (std::size_t b = 0; b < program.buffers.size(); ++b) {
    const BufferDecl& d = program.buffers[b];
    out << "  buffer " << b << " " << d.name << ": " << elementTypeName(d.type) << "[" << d.elements << "]\n";
  }
  for (std::size_t t = 0; t < program.tasks.size(); ++t) {
    const Task& task = program.tasks[t];
    out << "  task " << t << " '" << task.name << "'";
    if (task.color != kUnbound) out << " on color " << task.color;
    if (task.activeAtStart) out << " (active at start)";
    if (task.blockedAtStart) out << " (blocked at start)";
    out << "\n";
    for (std::size_t i = 0; i < task.code.size(); ++i)
      out << "    " << i << ": " << describe(program, task.code[i]) << "\n";
  }
  return out.str();
}

}  // namespace wsesim::pe
