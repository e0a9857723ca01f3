#include "hw/trace/TimelineRecorder.h"

#include <algorithm>
#include <cmath>

#include <cstdio>

namespace wsesim::trace {
namespace {

const char* const kLinkCounter[fabric::kPortCount] = {"wavelets out N", "wavelets out E", "wavelets out S",
                                                      "wavelets out W", "wavelets out RAMP"};

// Task names are program identifiers; escape anyway, so any name stays valid JSON.
std::string jsonString(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out + "\"";
}

}  // namespace

TimelineRecorder::TimelineRecorder(const config::ArchConfig& arch, const config::Region& region,
                                   const fabric::FabricKernel& fabric, const pe::PeArray* pes,
                                   std::uint64_t linkWindow)
    : energy_(arch.energyModel()),
      fabric_(fabric),
      pes_(pes),
      mesh_(arch.mesh),
      secondsPerCycle_(arch.secondsPerCycle()),
      linkWindow_(linkWindow),
      nextLinkSample_(linkWindow) {
  for (std::uint32_t y = region.y0; y <= region.y1; ++y)
    for (std::uint32_t x = region.x0; x <= region.x1; ++x) traced_.push_back(TracedPe{mesh_.id(x, y)});
}

void TimelineRecorder::endTask(TracedPe& pe, std::uint64_t cycle) {
  if (pe.task < 0) return;
  const unsigned track = unsigned(&pe - traced_.data()) + 1;
  spans_.push_back(Span{pes_->taskName(pe.id, pe.task), track, 0, pe.taskSince, cycle});
  pe.task = -1;
}

void TimelineRecorder::sample(std::uint64_t cycle) {
  if (pes_) {
    for (TracedPe& pe : traced_) {
      const pe::PeActivity a = pes_->activity(pe.id);
      const std::uint64_t runs = pes_->counters(pe.id).tasksRun;
      if (a.task != pe.task || runs != pe.tasksRun) {
        endTask(pe, cycle);
        pe.task = a.task;
        pe.taskSince = cycle;
        pe.tasksRun = runs;
      }
      if (a.threadsBusy != pe.threads) {
        pe.threads = a.threadsBusy;
        counters_.push_back(Counter{"threads busy", unsigned(&pe - traced_.data()) + 1, cycle, pe.threads});
      }
    }
  }
  if (cycle + 1 >= nextLinkSample_) sampleLinks(cycle + 1);
}

void TimelineRecorder::sampleLinks(std::uint64_t cycle) {
  const std::uint64_t window = cycle - (nextLinkSample_ - linkWindow_);
  std::uint64_t regionMilliwatts = 0;
  for (TracedPe& pe : traced_) {
    for (unsigned o = 0; o < fabric::kPortCount; ++o) {
      const std::uint32_t sent = fabric_.transfers(pe.id, fabric::Port(o));
      // Modulo 2^32, exact over any window shorter than that.
      const std::uint32_t inWindow = sent - pe.sent[o];
      counters_.push_back(Counter{kLinkCounter[o], unsigned(&pe - traced_.data()) + 1, cycle, inWindow});
      (fabric::Port(o) == fabric::Port::Ramp ? pe.delivered : pe.hopsOut) += inWindow;
      pe.sent[o] = sent;
    }
    regionMilliwatts += samplePower(pe, cycle, window);
  }
  counters_.push_back(Counter{"region power mW", 0, cycle, regionMilliwatts});
  nextLinkSample_ = cycle + linkWindow_;
}

std::uint64_t TimelineRecorder::samplePower(TracedPe& pe, std::uint64_t cycle, std::uint64_t windowCycles) {
  const pe::PeActions* actions = pes_ ? pes_->actions(pe.id) : nullptr;
  const double energyPj = energy_.peEnergyPj(actions ? *actions : pe::PeActions{},
                                             pes_ ? pes_->busyCyclesUntil(pe.id, cycle) : 0, pe.hopsOut,
                                             pe.delivered, cycle);
  const double seconds = double(windowCycles) * secondsPerCycle_;
  const std::uint64_t milliwatts =
      seconds > 0 ? std::uint64_t(std::llround((energyPj - pe.energyPj) * 1e-12 / seconds * 1e3)) : 0;
  pe.energyPj = energyPj;
  counters_.push_back(Counter{"power mW", unsigned(&pe - traced_.data()) + 1, cycle, milliwatts});
  return milliwatts;
}

void TimelineRecorder::addSpan(const std::string& name, std::uint64_t begin, std::uint64_t end,
                               const std::string& lane) {
  unsigned tid = 0;
  if (!lane.empty()) {
    const auto found = std::find(lanes_.begin(), lanes_.end(), lane);
    tid = unsigned(found - lanes_.begin()) + 1;
    if (found == lanes_.end()) lanes_.push_back(lane);
  }
  spans_.push_back(Span{name, 0, tid, begin, end});
}

void TimelineRecorder::write(std::ostream& out, std::uint64_t end) {
  for (TracedPe& pe : traced_) endTask(pe, end);
  sampleLinks(end);
  char number[64];
  const auto time = [&](std::uint64_t cycle) {
    std::snprintf(number, sizeof number, "%.6f", micros(cycle));
    return std::string(number);
  };
  out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  out << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"workload\"}}";
  for (std::size_t i = 0; i < lanes_.size(); ++i)
    out << ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":" << i + 1
        << ",\"args\":{\"name\":" << jsonString(lanes_[i]) << "}}";
  for (std::size_t i = 0; i < traced_.size(); ++i)
    out << ",\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << i + 1 << ",\"args\":{\"name\":\"PE "
        << mesh_.name(traced_[i].id) << "\"}},\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" << i + 1
        << ",\"args\":{\"sort_index\":" << i + 1 << "}}";
  for (const Span& s : spans_)
    out << ",\n{\"ph\":\"X\",\"name\":" << jsonString(s.name) << ",\"pid\":" << s.track << ",\"tid\":" << s.lane
        << ",\"ts\":"
        << time(s.begin) << ",\"dur\":" << time(s.end - s.begin) << ",\"args\":{\"cycle\":" << s.begin
        << ",\"cycles\":" << s.end - s.begin << "}}";
  for (const Counter& c : counters_)
    out << ",\n{\"ph\":\"C\",\"name\":\"" << c.name << "\",\"pid\":" << c.track << ",\"ts\":" << time(c.cycle)
        << ",\"args\":{\"value\":" << c.value << "}}";
  out << "\n]}\n";
}

}  // namespace wsesim::trace
