#include "hw/pe/ProgramCheck.h"

#include <algorithm>

#include "hw/pe/ProgramError.h"
#include "hw/pe/ProgramText.h"

namespace wsesim::pe {
namespace {

class Checker {
 public:
  Checker(const Program& p, const PeParams& params, const fabric::FabricParams& fabric,
          const fabric::ColorRouteTable* routes, fabric::RouterId pe)
      : p_(p), params_(params), fabric_(fabric), routes_(routes), pe_(pe) {}

  void run() {
    if (fabric_.routing != fabric::routingMode<fabric::ColorRouting>())
      fail("PE programs address the fabric by color; set arch.fabric.routing: color");
    if (p_.tasks.size() > params_.tasks)
      fail("has " + std::to_string(p_.tasks.size()) + " tasks, more than arch.pe.tasks=" +
           std::to_string(params_.tasks));
    for (const Task& task : p_.tasks)
      if (task.code.size() > kMaxTaskInstructions)
        fail("task '" + task.name + "' has " + std::to_string(task.code.size()) + " instructions, more than the " +
             std::to_string(kMaxTaskInstructions) + " a task may hold");
    findMaxIndex();
    unsigned dataTasks = 0;
    for (std::size_t t = 0; t < p_.tasks.size(); ++t) {
      const Task& task = p_.tasks[t];
      if (task.color == kUnbound) continue;
      ++dataTasks;
      const auto bound = [&] { return "task '" + task.name + "' is bound to color"; };
      checkColor(unsigned(task.color), bound);
      checkDelivered(unsigned(task.color), bound);
      if (task.activeAtStart) fail("task '" + task.name + "' is bound to a color and cannot be active at start");
    }
    if (dataTasks > params_.dataTasks)
      fail("binds " + std::to_string(dataTasks) + " tasks to colors, more than arch.pe.data_tasks=" +
           std::to_string(params_.dataTasks));
    for (std::size_t t = 0; t < p_.tasks.size(); ++t)
      for (std::size_t i = 0; i < p_.tasks[t].code.size(); ++i) {
        task_ = t;
        instruction_ = i;
        checkInstruction(p_.tasks[t].code[i]);
      }
  }

 private:
  // Programs are checked once per PE they load on: the text is built only for an error.
  [[noreturn]] void fail(const std::string& what) const {
    std::string at;
    if (task_ < p_.tasks.size())
      at = ", task '" + p_.tasks[task_].name + "' instruction " + std::to_string(instruction_) + " (" +
           describe(p_, p_.tasks[task_].code[instruction_]) + ")";
    throw ProgramError("PE " + fabric_.mesh.name(pe_) + ", program '" + p_.name + "'" + at + ": " + what);
  }

  // `role()` names the item in an error; it is built only for one.
  template <class Role>
  void checkTask(int t, Role role) const {
    if (t < 0 || std::size_t(t) >= p_.tasks.size())
      fail(role() + " task " + std::to_string(t) + ", which the program does not define");
  }
  template <class Role>
  void checkColor(unsigned c, Role role) const {
    if (c >= fabric_.colors)
      fail(role() + " " + std::to_string(c) + ", but the fabric has arch.fabric.colors=" +
           std::to_string(fabric_.colors));
  }
  template <class Role>
  void checkDelivered(unsigned c, Role role) const {
    if (!routes_) return;
    const fabric::ColorRoute& route = routes_->at(pe_, c);
    if (!(route.forward & fabric::bit(fabric::Port::Ramp)))
      fail(role() + " " + std::to_string(c) + ", but the router at " + fabric_.mesh.name(pe_) +
           " does not deliver color " + std::to_string(c) + " to its RAMP (route accepts " +
           fabric::portMaskName(route.accept) + ", forwards " + fabric::portMaskName(route.forward) + ")");
  }
  void checkSent(unsigned c) const {
    if (!routes_) return;
    const fabric::ColorRoute& route = routes_->at(pe_, c);
    if (!(route.accept & fabric::bit(fabric::Port::Ramp)))
      fail("sends on color " + std::to_string(c) + ", but the router at " + fabric_.mesh.name(pe_) +
           " does not accept color " + std::to_string(c) + " from its RAMP (route accepts " +
           fabric::portMaskName(route.accept) + ")");
  }

  void checkRegister(unsigned reg) const {
    if (reg >= params_.indexRegisters)
      fail("uses index register " + std::to_string(reg) + ", but arch.pe.index_registers=" +
           std::to_string(params_.indexRegisters));
  }

  void checkInstruction(const Instruction& in) const {
    if (in.kind == Instruction::Kind::SetIndex || in.kind == Instruction::Kind::CountIndex) {
      checkRegister(in.reg);
      if (in.kind == Instruction::Kind::CountIndex && in.value == 0) fail("counts to 0");
      if (in.kind == Instruction::Kind::CountIndex && in.task != kNoTask)
        checkTask(in.task, [] { return std::string("activates"); });
      return;
    }
    if (in.kind == Instruction::Kind::ArgumentRun) {
      checkRegister(in.reg);
      checkRegister(in.reg2);
      if (p_.tasks[task_].color == kUnbound) fail("reads a wavelet's index, but is not a data task (bound to no color)");
      if (in.value == 0 || in.value > 0xFFFF)
        fail("takes " + std::to_string(in.value) + " positions from a wavelet's 16-bit index, outside 1..65535");
      checkTask(in.task, [] { return std::string("activates"); });
      return;
    }
    if (in.kind == Instruction::Kind::CountDown) {
      checkRegister(in.reg);
      checkTask(in.task, [] { return std::string("activates"); });
      checkTask(in.task2, [] { return std::string("activates"); });
      return;
    }
    if (in.kind != Instruction::Kind::Op) {
      checkTask(in.task, [] { return std::string("targets"); });
      if (in.kind == Instruction::Kind::Activate && p_.tasks[in.task].color != kUnbound)
        fail("activates task '" + p_.tasks[in.task].name + "', which is bound to a color and runs on its wavelets");
      return;
    }
    const TensorOp& op = in.op;
    if (op.length == 0) fail("has no vector operand, or its vectors are empty");
    if (op.thread != kSynchronous && (op.thread < 0 || unsigned(op.thread) >= params_.threads))
      fail("runs on thread " + std::to_string(op.thread) + ", but arch.pe.threads=" +
           std::to_string(params_.threads));
    if (op.activateOnDone != kNoTask) checkTask(op.activateOnDone, [] { return std::string("activates"); });
    if (op.unblockOnDone != kNoTask) checkTask(op.unblockOnDone, [] { return std::string("unblocks"); });
    if (op.dst.kind != Descriptor::Kind::Memory && op.dst.kind != Descriptor::Kind::FabricOut)
      fail("the destination must be a memory vector or a fabric output");
    for (const Descriptor* d : {&op.dst, &op.src[0], &op.src[1], &op.src[2]})
      if (d->index >= 0) checkRegister(unsigned(d->index));
    checkOperand(op, op.dst, -1);
    std::uint32_t inputColors = 0;
    for (unsigned i = 0; i < sourceCount(op.opcode); ++i) {
      const Descriptor& s = op.src[i];
      if (s.kind == Descriptor::Kind::None) fail("source " + std::to_string(i) + " is missing");
      if (s.kind == Descriptor::Kind::FabricOut) fail("source " + std::to_string(i) + " is a fabric output");
      if (s.kind == Descriptor::Kind::FabricIn) {
        if (inputColors & (1u << s.color))
          fail("reads color " + std::to_string(s.color) + " twice; each element takes one wavelet per color");
        inputColors |= 1u << s.color;
        for (const Task& t : p_.tasks)
          if (t.color == s.color)
            fail("reads color " + std::to_string(s.color) + ", which also starts task '" + t.name + "'");
      }
      checkOperand(op, s, int(i));
    }
  }

  void checkOperand(const TensorOp& op, const Descriptor& d, int operand) const {
    const auto name = [&] { return operand < 0 ? std::string("destination") : "source " + std::to_string(operand); };
    if (d.isVector() && d.length != op.length)
      fail(name() + " has " + std::to_string(d.length) + " elements, the operation " + std::to_string(op.length));
    if (d.isFabric()) {
      checkColor(d.color, [&] { return name() + " uses color"; });
      if (d.kind == Descriptor::Kind::FabricIn)
        checkDelivered(d.color, [&] { return name() + " reads color"; });
      else
        checkSent(d.color);
    }
    if (d.kind != Descriptor::Kind::Memory) return;
    if (d.buffer >= p_.buffers.size()) fail(name() + " names buffer " + std::to_string(d.buffer) + ", not declared");
    const BufferDecl& b = p_.buffers[d.buffer];
    const ElementType want = operandType(op.opcode, op.precision, operand);
    if (b.type != want)
      fail(name() + " is buffer '" + b.name + "' of " + elementTypeName(b.type) + ", but " + precisionName(op.precision) +
           " " + opcodeName(op.opcode) + " needs " + elementTypeName(want) + " there");
    const std::uint64_t index = d.index >= 0 ? maxIndex_[unsigned(d.index)] : 0;
    const std::uint64_t last = std::uint64_t(d.offset) + index * d.indexScale + std::uint64_t(op.length - 1) * d.stride;
    if (last >= b.elements)
      fail(name() + " reaches element " + std::to_string(last) + " of buffer '" + b.name + "'" +
           (index ? " (index register " + std::to_string(d.index) + " at its largest, " + std::to_string(index) + ")"
                  : std::string()) +
           ", which has " + std::to_string(b.elements) + " elements");
  }

  // The largest value each index register can hold: set values and count limits - 1.
  void findMaxIndex() {
    for (const Task& t : p_.tasks)
      for (const Instruction& in : t.code) {
        if (in.reg >= kMaxRegisters) continue;  // reported by checkRegister
        if (in.kind == Instruction::Kind::SetIndex) maxIndex_[in.reg] = std::max<std::uint64_t>(maxIndex_[in.reg], in.value);
        if (in.kind == Instruction::Kind::CountIndex && in.value > 0)
          maxIndex_[in.reg] = std::max<std::uint64_t>(maxIndex_[in.reg], in.value - 1);
        if (in.kind == Instruction::Kind::ArgumentRun && in.value > 0 && in.reg2 < kMaxRegisters) {
          maxIndex_[in.reg] = std::max<std::uint64_t>(maxIndex_[in.reg], in.value - 1);
          maxIndex_[in.reg2] = std::max<std::uint64_t>(maxIndex_[in.reg2], 0xFFFF / in.value);
        }
      }
  }

  static constexpr unsigned kMaxRegisters = 256;
  std::uint64_t maxIndex_[kMaxRegisters] = {};

  const Program& p_;
  const PeParams& params_;
  const fabric::FabricParams& fabric_;
  const fabric::ColorRouteTable* routes_;
  fabric::RouterId pe_;
  std::size_t task_ = ~std::size_t(0), instruction_ = 0;  // where the check is
};

}  // namespace

void checkProgram(const Program& program, const PeParams& params, const fabric::FabricParams& fabric,
                  const fabric::ColorRouteTable* routes, fabric::RouterId pe) {
  Checker(program, params, fabric, routes, pe).run();
}

ColorUse colorUse(const Program& program) {
  ColorUse use;
  for (const Task& t : program.tasks) {
    if (t.color != kUnbound) use.received |= 1u << t.color;
    for (const Instruction& in : t.code) {
      if (in.kind != Instruction::Kind::Op) continue;
      if (in.op.dst.kind == Descriptor::Kind::FabricOut) use.sent |= 1u << in.op.dst.color;
      for (const Descriptor& d : in.op.src)
        if (d.kind == Descriptor::Kind::FabricIn) use.received |= 1u << d.color;
    }
  }
  return use;
}

bool routesServe(const ColorUse& use, const fabric::ColorRouteTable& routes, fabric::RouterId pe) {
  for (std::uint32_t m = use.received; m; m &= m - 1)
    if (!(routes.at(pe, unsigned(__builtin_ctz(m))).forward & fabric::bit(fabric::Port::Ramp))) return false;
  for (std::uint32_t m = use.sent; m; m &= m - 1)
    if (!(routes.at(pe, unsigned(__builtin_ctz(m))).accept & fabric::bit(fabric::Port::Ramp))) return false;
  return true;
}

}  // namespace wsesim::pe
