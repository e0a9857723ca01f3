#include "firmware/runtime/GemmSequence.h"

#include <stdexcept>

namespace wsesim::runtime {

GemmSequence::GemmSequence(std::vector<SimulatedGemm*> gemms, pe::PeGrid& pes, fabric::ColorRouteTable& routes,
                           wafer::EdgeIngress& ingress, wafer::EdgeEgress& egress,
                           const energy::ActionMeter& meter, std::uint32_t routeSwitchCycles)
    : gemms_(std::move(gemms)),
      pes_(pes),
      routes_(routes),
      ingress_(ingress),
      egress_(egress),
      meter_(meter),
      routeSwitchCycles_(routeSwitchCycles) {
  if (gemms_.empty()) throw std::invalid_argument("a GEMM sequence needs at least one GEMM");
  start(0, 0);
}

void GemmSequence::start(std::size_t index, std::uint64_t now) {
  index_ = index;
  egress_.restart();
  gemms_[index]->begin(learnt_);
  current_ = std::make_unique<GemmPhases>(*gemms_[index], pes_, routes_, ingress_, egress_, nullptr,
                                          routeSwitchCycles_, now);
  starts_.push_back(now);
}

void GemmSequence::beginCycle(std::uint64_t now, fabric::FabricKernel& fabric) {
  if (!last() && current_->finished(now, fabric)) {
    current_->unload({});
    done_.push_back(LastRound{current_->roundPhases(now), current_->roundInputEnd()});
    gemms_[index_]->learn(learnt_, done_.back().phases);
    actionsAtEnd_.push_back(meter_.actionsUntil(now));
    fabric.restartArbiters();  // as GemmPhases does between phases: a GEMM starts as on a chip of its own
    start(index_ + 1, now);
  }
  current_->beginCycle(now, fabric);
}

GemmTime GemmSequence::fullTime(std::size_t index, std::uint64_t end, const config::ArchConfig& arch,
                                std::uint32_t meshColumns) const {
  if (index < done_.size())
    return gemms_[index]->fullTime(done_[index].phases, done_[index].inputEnd, arch, meshColumns);
  if (index == index_) return current_->fullTime(end, arch, meshColumns);
  throw std::out_of_range("GEMM " + std::to_string(index) + " of the sequence has not run");
}

energy::ActionCounts GemmSequence::actions(std::size_t index, std::uint64_t end) const {
  if (index > done_.size()) throw std::out_of_range("GEMM " + std::to_string(index) + " of the sequence has not run");
  const energy::ActionCounts atEnd =
      index < actionsAtEnd_.size() ? actionsAtEnd_[index] : meter_.actionsUntil(end);
  return index == 0 ? atEnd : atEnd - actionsAtEnd_[index - 1];
}

std::uint64_t GemmSequence::nextActivity(std::uint64_t now) const {
  // The chip takes the earliest of this, the ingress's and the PEs'.
  const std::uint64_t next = current_->nextActivity(now);
  // The current GEMM has nothing left to do: the next one starts now (once
  // the fabric is empty, as GemmPhases::nextActivity).
  if (next == sim::kNever && !last() && current_->nothingScheduled(now)) return now;
  return next;
}

bool GemmSequence::finished(std::uint64_t now, const fabric::FabricKernel& fabric) const {
  return last() && current_->finished(now, fabric);
}

double GemmSequence::progress(std::uint64_t now) const {
  return (double(index_) + std::max(0.0, current_->progress(now))) / double(gemms_.size());
}

}  // namespace wsesim::runtime
