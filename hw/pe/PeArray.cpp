#include "hw/pe/PeArray.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "hw/pe/ProgramError.h"
#include "hw/pe/ProgramText.h"

namespace wsesim::pe {

PeArray::PeArray(const PeParams& params, DataMode mode, fabric::FabricKernel& fabric,
                 const fabric::ColorRouteTable* routes)
    : params_(params),
      mode_(mode),
      fabric_(fabric),
      routes_(routes),
      peCount_(fabric.params().mesh.routers()),
      slotsPerPe_(params.threads + 1),
      depth_(params.rampInboxDepth),
      pes_(peCount_),
      counters_(peCount_),
      sram_(peCount_),
      bufferBase_(peCount_),
      kept_(peCount_),
      slots_(peCount_ * slotsPerPe_),
      indexRegisters_(peCount_ * params.indexRegisters),
      inboxHeaders_(peCount_ * fabric.params().colors),
      inboxEntries_(peCount_ * fabric.params().colors * depth_) {
  for (unsigned b = 0; b < fabric.bands(); ++b) bands_.push_back(std::make_unique<PeBand>());
  if (mode == DataMode::Functional) data_ = std::make_unique<SramData>(peCount_, params.sramBytes);
}

PeArray::~PeArray() = default;

ProgramId PeArray::addProgram(Program program, ProgramLifetime lifetime) {
  LoadedProgram loaded;
  loaded.lifetime = lifetime;
  for (std::size_t t = 0; t < program.tasks.size(); ++t) {
    std::vector<OpTiming> timing;
    for (const Instruction& in : program.tasks[t].code)
      timing.push_back(in.kind == Instruction::Kind::Op ? opTiming(in.op, params_, program.loopCycles) : OpTiming{0, 0, 0, 0, 0});
    loaded.timing.push_back(std::move(timing));
    if (program.tasks[t].color != kUnbound) loaded.dataTasks |= std::uint64_t(1) << t;
  }
  for (const Task& task : program.tasks) {
    std::vector<std::uint8_t> classes;
    for (const Instruction& in : task.code)
      classes.push_back(in.kind == Instruction::Kind::Op ? registerActionClass(actionClass(in.op)) : 0);
    loaded.actionClasses.push_back(std::move(classes));
  }
  loaded.colors = colorUse(program);
  loaded.program = std::move(program);
  if (!freeProgramIds_.empty()) {
    const ProgramId id = freeProgramIds_.back();
    freeProgramIds_.pop_back();
    programs_[id] = std::move(loaded);
    return id;
  }
  programs_.push_back(std::move(loaded));
  return ProgramId(programs_.size() - 1);
}

void PeArray::load(fabric::RouterId pe, ProgramId id) {
  placeBuffers(pe, id);
  const Program& p = programs_[id].program;
  PeState& s = pes_[pe];
  for (std::size_t t = 0; t < p.tasks.size(); ++t) {
    if (p.tasks[t].activeAtStart) s.activated |= std::uint64_t(1) << t;
    if (p.tasks[t].blockedAtStart) s.blocked |= std::uint64_t(1) << t;
  }
  if (s.activated) wake(pe, undrained_);
  else if (watchEnds_) ends_.push_back(pe);
}

void PeArray::placeAsRun(fabric::RouterId pe, ProgramId id, const std::vector<std::string>& keep) {
  placeBuffers(pe, id);
  unload(pe, keep);
}

void PeArray::placeBuffers(fabric::RouterId pe, ProgramId id) {
  LoadedProgram& lp = programs_.at(id);
  const Program& p = lp.program;
  PeState& s = pes_[pe];
  if (s.program != kNoProgram)
    throw ProgramError("PE " + mesh().name(pe) + " already runs program '" + programs_[s.program].program.name +
                       "'; cannot load '" + p.name + "'");
  // The full check runs once per program; on later PEs only the routes can
  // differ, and the full check names the culprit when they do not serve.
  if (!lp.checked || (routes_ && !routesServe(lp.colors, *routes_, pe)))
    checkProgram(p, params_, fabric_.params(), routes_, pe);
  lp.checked = true;
  std::vector<std::uint32_t>& bases = bufferBase_[pe];
  bases.clear();
  std::vector<ResidentBuffer>& kept = kept_[pe];
  for (const BufferDecl& b : p.buffers) {
    const auto it = std::find_if(kept.begin(), kept.end(), [&](const ResidentBuffer& k) { return k.decl.name == b.name; });
    if (it == kept.end()) {
      bases.push_back(sram_[pe].allocate(mesh().name(pe), b.name, b.bytes(), params_.sramBytes));
      if (data_) data_->zero(pe, bases.back(), b.bytes());
      continue;
    }
    if (it->decl.type != b.type || it->decl.elements != b.elements)
      throw ProgramError("PE " + mesh().name(pe) + ": program '" + p.name + "' declares buffer '" + b.name +
                         "' as " + elementTypeName(b.type) + "[" + std::to_string(b.elements) +
                         "], but the kept buffer of that name is " + elementTypeName(it->decl.type) + "[" +
                         std::to_string(it->decl.elements) + "]");
    bases.push_back(it->offset);
    kept.erase(it);  // the program's own again until it is unloaded
  }
  s.program = id;
  ++lp.loadedOn;
}

void PeArray::unload(fabric::RouterId pe, const std::vector<std::string>& keep) {
  PeState& s = pes_[pe];
  if (s.program == kNoProgram) return;
  // Wavelets waiting in its inboxes stay for the next program.
  if (!programEnded(pe))
    throw ProgramError("PE " + mesh().name(pe) + " is still running program '" + programs_[s.program].program.name +
                       "' and cannot unload it");
  // Buffers kept from earlier programs go too, unless named again.
  std::vector<ResidentBuffer>& kept = kept_[pe];
  for (auto it = kept.begin(); it != kept.end();) {
    if (std::find(keep.begin(), keep.end(), it->decl.name) != keep.end()) {
      ++it;
      continue;
    }
    sram_[pe].free(mesh().name(pe), it->decl.name);
    it = kept.erase(it);
  }
  const std::vector<BufferDecl>& buffers = programs_[s.program].program.buffers;
  for (std::size_t b = 0; b < buffers.size(); ++b) {
    if (std::find(keep.begin(), keep.end(), buffers[b].name) != keep.end())
      kept_[pe].push_back(ResidentBuffer{buffers[b], bufferBase_[pe][b]});
    else
      sram_[pe].free(mesh().name(pe), buffers[b].name);
  }
  bufferBase_[pe].clear();
  for (unsigned reg = 0; reg < params_.indexRegisters; ++reg) indexRegister(pe, reg) = 0;
  LoadedProgram& lp = programs_[s.program];
  if (--lp.loadedOn == 0 && lp.lifetime == ProgramLifetime::UntilUnloaded) {
    lp = LoadedProgram{};
    freeProgramIds_.push_back(s.program);
  }
  s.program = kNoProgram;
  s.activated = s.blocked = 0;
}

PeArray::ResidentBuffer PeArray::locate(fabric::RouterId pe, const std::string& buffer, std::uint32_t offset,
                                        std::uint64_t count, const char* access) const {
  if (!data_) throw ProgramError(std::string(access) + " PE data needs run.mode: functional");
  ResidentBuffer found{};
  bool known = false;
  if (pes_[pe].program != kNoProgram) {
    const std::vector<BufferDecl>& buffers = programs_[pes_[pe].program].program.buffers;
    for (std::size_t b = 0; b < buffers.size() && !known; ++b)
      if (buffers[b].name == buffer) found = ResidentBuffer{buffers[b], bufferBase_[pe][b]}, known = true;
  }
  for (const ResidentBuffer& k : kept_[pe])
    if (!known && k.decl.name == buffer) found = k, known = true;
  if (!known) throw ProgramError("PE " + mesh().name(pe) + " has no buffer '" + buffer + "'");
  if (offset + count > found.decl.elements)
    throw ProgramError("PE " + mesh().name(pe) + ": " + access + " " + std::to_string(count) + " elements at " +
                       std::to_string(offset) + " overruns buffer '" + buffer + "' of " +
                       std::to_string(found.decl.elements));
  return found;
}

void PeArray::write(fabric::RouterId pe, const std::string& buffer, std::uint32_t offset,
                    const std::vector<float>& values) {
  const ResidentBuffer b = locate(pe, buffer, offset, values.size(), "writing");
  const ElementType t = b.decl.type;
  for (std::size_t i = 0; i < values.size(); ++i) data_->store(pe, b.offset + (offset + i) * elementBytes(t), t, values[i]);
}

std::vector<float> PeArray::read(fabric::RouterId pe, const std::string& buffer, std::uint32_t offset,
                                 std::uint32_t count) const {
  const ResidentBuffer b = locate(pe, buffer, offset, count, "reading");
  const ElementType t = b.decl.type;
  std::vector<float> out(count);
  for (std::uint32_t i = 0; i < count; ++i) out[i] = data_->load(pe, b.offset + std::uint64_t(offset + i) * elementBytes(t), t);
  return out;
}

std::uint64_t PeArray::nextActivity(std::uint64_t now) const {
  std::uint64_t next = sim::kNever;
  for (const std::unique_ptr<PeBand>& band : bands_) {
    // Inboxes popped from full give the router their room back at the start
    // of the next cycle visited (beginCycle): that must be this one.
    if (!band->releases.empty()) return now;
    next = std::min(next, band->wakes.next());
  }
  return std::max(now, next);
}

bool PeArray::finished(std::uint64_t, const fabric::FabricKernel& fabric) const {
  for (const std::unique_ptr<PeBand>& band : bands_)
    if (!band->wakes.empty()) return false;
  return fabric.idle();
}

void PeArray::deliver(fabric::RouterId at, const fabric::Wavelet& w, std::uint64_t arrivalCycle) {
  InboxHeader& h = inboxHeader(at, w.color);
  // The compute engine sees the wavelet fabric_input_cycles after the RAMP delivers it.
  const std::uint64_t usable = arrivalCycle + params_.fabricInputCycles;
  // The router delivers only while the inbox has room (setRampAccepting).
  inboxEntry(at, w.color, (h.head + h.count) % depth_) = InboxEntry{usable, w.payload};
  if (++h.count == depth_) fabric_.setRampAccepting(at, w.color, false);
  // Deliveries happen after this cycle's visits, so the earliest wake is the next cycle.
  wake(at, std::max(usable, now_ + 1));
}

void PeArray::rampFreed(fabric::RouterId at, unsigned color, std::uint64_t from) {
  bool waited = false;
  for (std::uint32_t m = pes_[at].busySlots; m; m &= m - 1) {
    OpSlot& slot = slots(at)[__builtin_ctz(m)];
    if (!slot.waitsForRoom || slot.op->dst.color != color) continue;
    slot.waitsForRoom = false;
    waited = true;
  }
  if (waited) wake(at, from);
}

const PeArray::InboxEntry* PeArray::arrived(fabric::RouterId r, unsigned color, std::uint64_t now) const {
  const InboxHeader& h = inboxHeader(r, color);
  if (h.count == 0) return nullptr;
  const InboxEntry& e = inboxEntry(r, color, h.head);
  return e.arrival <= now ? &e : nullptr;
}

std::uint32_t PeArray::popInbox(fabric::RouterId r, unsigned color) {
  InboxHeader& h = inboxHeader(r, color);
  const std::uint32_t payload = inboxEntry(r, color, h.head).payload;
  // The freed slot is usable by the router from the next cycle on (credit
  // travels back), as between routers.
  if (h.count == depth_) bandOf(r).releases.push_back(PeBand::Release{r, std::uint8_t(color)});
  h.head = std::uint8_t((h.head + 1) % depth_);
  --h.count;
  return payload;
}

void PeActions::add(unsigned cls, std::uint64_t elements) {
  const Precision precision = Precision(cls >> 5 >> 2);
  const Opcode opcode = Opcode(cls >> 5 & 3);
  opElements[unsigned(precision)][unsigned(opcode)] += elements;
  for (unsigned i = 0; i < 3; ++i)
    if (cls & (1u << i)) sramReadBytes += elements * elementBytes(operandType(opcode, precision, int(i)));
  if (cls & 8) sramWriteBytes += elements * elementBytes(operandType(opcode, precision, -1));
  if (cls & 16) waveletsSent += elements;
}

std::uint8_t PeArray::registerActionClass(unsigned cls) {
  const auto found = std::find(registeredClasses_.begin(), registeredClasses_.end(), cls);
  if (found != registeredClasses_.end()) return std::uint8_t(found - registeredClasses_.begin());
  if (registeredClasses_.size() == PeBand::kActionClasses)
    throw std::logic_error("more than 256 action classes: actionClass grew beyond the 162 reachable ones");
  registeredClasses_.push_back(cls);
  return std::uint8_t(registeredClasses_.size() - 1);
}

PeActions PeArray::actionTotals() const {
  PeActions t;
  for (std::size_t i = 0; i < registeredClasses_.size(); ++i) {
    std::uint64_t elements = 0;
    for (const std::unique_ptr<PeBand>& band : bands_) elements += band->classElements[i];
    t.add(registeredClasses_[i], elements);
  }
  return t;
}

PeCounters PeArray::totals() const {
  PeCounters t;
  for (const PeCounters& c : counters_) {
    t.opsCompleted += c.opsCompleted;
    t.elements += c.elements;
    t.flops += c.flops;
    t.tasksRun += c.tasksRun;
    t.busyCycles += c.busyCycles;
    t.visits += c.visits;
  }
  return t;
}

PeActivity PeArray::activity(fabric::RouterId pe) const {
  const PeState& s = pes_[pe];
  const unsigned threads = unsigned(__builtin_popcount(s.busySlots & ~(1u << mainSlot())));
  return PeActivity{s.busy, s.task, threads, sram_[pe].used()};
}

std::size_t PeArray::plannedHostBytes(const PeParams& params, const fabric::MeshGeometry& mesh, unsigned colors,
                                      DataMode mode) {
  const std::size_t pes = mesh.routers();
  const std::size_t perPe = sizeof(PeState) + sizeof(PeCounters) + sizeof(SramAllocator) +
                            sizeof(std::vector<std::uint32_t>) + sizeof(std::vector<ResidentBuffer>) +
                            (params.threads + 1) * sizeof(OpSlot) + params.indexRegisters * sizeof(std::uint32_t) +
                            colors * (sizeof(InboxHeader) + params.rampInboxDepth * sizeof(InboxEntry)) +
                            (mode == DataMode::Functional ? params.sramBytes : 0);
  return pes * perPe;
}

std::size_t PeArray::hostBytes() const {
  std::size_t bytes = pes_.capacity() * sizeof(PeState) + counters_.capacity() * sizeof(PeCounters) +
                      perPeActions_.capacity() * sizeof(PeActions) +
                      sram_.capacity() * sizeof(SramAllocator) + bufferBase_.capacity() * sizeof(bufferBase_[0]) +
                      kept_.capacity() * sizeof(kept_[0]) + slots_.bytes() + indexRegisters_.bytes() +
                      inboxHeaders_.bytes() + inboxEntries_.bytes();
  for (const auto& bases : bufferBase_) bytes += bases.capacity() * sizeof(std::uint32_t);
  return bytes;
}

void PeArray::checkQuiescent() const {
  // Runs at every phase end over the whole mesh: first the cheap question
  // (a color's inboxes are one contiguous slice), then words only for the
  // PEs that have something left.
  std::vector<bool> inboxLeft(peCount_, false);
  for (unsigned c = 0; c < fabric_.params().colors; ++c)
    for (fabric::RouterId r = 0; r < peCount_; ++r)
      if (inboxHeader(r, c).count) inboxLeft[r] = true;
  std::ostringstream out;
  std::size_t stuck = 0;
  for (fabric::RouterId r = 0; r < peCount_; ++r) {
    const PeState& s = pes_[r];
    if (s.task == kNoTask && !s.busySlots && !(s.activated & s.blocked) && !inboxLeft[r]) continue;
    std::ostringstream pe;
    if (s.task != kNoTask) {
      const Program& p = programs_[s.program].program;
      const Task& t = p.tasks[s.task];
      // A synchronous op in flight was issued from the previous instruction.
      const bool inOp = s.busySlots & (1u << mainSlot());
      const std::size_t at = inOp ? s.pc - 1u : s.pc;
      pe << " task '" << t.name << "' " << (inOp ? "waits for instruction " : "stopped at instruction ") << at;
      if (at < t.code.size()) pe << " (" << describe(p, t.code[at]) << ")";
      pe << ";";
    }
    for (std::uint32_t m = s.busySlots; m; m &= m - 1) {
      const unsigned i = unsigned(__builtin_ctz(m));
      const OpSlot& slot = slots(r)[i];
      pe << (i == mainSlot() ? " main thread" : " thread " + std::to_string(i)) << " holds "
         << describe(programs_[s.program].program, *slot.op) << " with " << slot.done << " of " << slot.op->length
         << " elements moved;";
    }
    for (unsigned c = 0; c < fabric_.params().colors; ++c)
      if (unsigned n = inboxHeader(r, c).count) pe << " " << n << " wavelets of color " << c << " never consumed;";
    const std::uint64_t waiting = s.activated & s.blocked;
    if (waiting) pe << " activated tasks stay blocked (mask 0x" << std::hex << waiting << std::dec << ");";
    if (pe.tellp() == 0) continue;
    if (++stuck <= 20) out << "  PE " << mesh().name(r) << ":" << pe.str() << "\n";
  }
  if (stuck == 0) return;
  if (stuck > 20) out << "  ... and " << (stuck - 20) << " more PEs\n";
  throw ProgramError("the PEs stopped with work left (" + std::to_string(stuck) + " PEs):\n" + out.str());
}

}  // namespace wsesim::pe
