#include "hw/pe/PeKeys.h"

namespace wsesim::pe {

const common::KeyTable<PeParams>& peKeys() {
  using Key = common::Key<PeParams>;
  static const common::KeyTable<PeParams> keys = {"arch.pe.", {
      // SRAM offsets are 32-bit in the micro-ISA.
      Key::integer("sram_bytes", 1, (std::int64_t(1) << 32) - 1, [](PeParams& p, std::int64_t v) { p.sramBytes = std::uint64_t(v); },
       "SRAM per PE: buffers beyond it are an error naming PE, buffer and bytes (pe-model.md)"),
      Key::integer("sram_banks", 1, 64, [](PeParams& p, std::int64_t v) { p.sramBanks = unsigned(v); },
       "interleaved SRAM banks; strided access that hits fewer banks lowers the lane count"),
      Key::integer("sram_bank_word_bytes", 1, 64, [](PeParams& p, std::int64_t v) { p.sramBankWordBytes = unsigned(v); },
       "bytes per bank word; consecutive words go to consecutive banks"),
      Key::integer("sram_read_ports", 1, 3, [](PeParams& p, std::int64_t v) { p.sramReadPorts = unsigned(v); },
       "memory vectors an op reads per cycle at full rate; more take several passes"),
      Key::integer("threads", 1, 32, [](PeParams& p, std::int64_t v) { p.threads = unsigned(v); },
       "hardware threads for asynchronous ops"),
      Key::integer("tasks", 1, 64, [](PeParams& p, std::int64_t v) { p.tasks = unsigned(v); }, "task IDs per program"),
      Key::integer("data_tasks", 0, 64, [](PeParams& p, std::int64_t v) { p.dataTasks = unsigned(v); },
       "tasks that can be bound to a color").boundedBy("tasks"),  // no more than there are tasks
      Key::integer("op_overhead_cycles", 0, 1024, [](PeParams& p, std::int64_t v) { p.opOverheadCycles = unsigned(v); },
       "cycles per tensor op before its first element: the hardware's DSD op issue (each firmware program adds its "
       "own loop: `arch.firmware.*`)"),
      Key::integer("task_start_cycles", 0, 1024, [](PeParams& p, std::int64_t v) { p.taskStartCycles = unsigned(v); },
       "cycles from picking a task to issuing its first instruction"),
      Key::integer("fabric_input_cycles", 0, 1024, [](PeParams& p, std::int64_t v) { p.fabricInputCycles = unsigned(v); },
       "cycles from the RAMP delivering a wavelet to the compute engine using it (a data task starting, a fabric op "
       "reading it); a relay stage costs `2 ramp + hop + this` (pe-model.md)"),
      Key::integer("index_registers", 0, 64, [](PeParams& p, std::int64_t v) { p.indexRegisters = unsigned(v); },
       "index registers per PE: memory descriptors can step through a buffer by one of them (pe-model.md)"),
      // Inbox counts are 8-bit, as the router's queue counts.
      Key::integer("ramp_inbox_depth", 1, 255, [](PeParams& p, std::int64_t v) { p.rampInboxDepth = unsigned(v); },
       "wavelets of one color the RAMP can hand a PE before it has used the first; while the inbox is full the router "
       "holds the color back (its own key since the router queues' depth is a different buffer; pe-model.md)"),
  }, {
      {"lanes.<precision>.<op>", "SIMD lanes (elements per cycle) of this op at this precision"},
      {"cycles_per_element.<precision>.<op>",
       "sustained cycles per element at full lanes; an op runs at the slower of this and its lanes, a fabric op at "
       "most one element a cycle (pe-model.md)"},
  }};
  return keys;
}

}  // namespace wsesim::pe
