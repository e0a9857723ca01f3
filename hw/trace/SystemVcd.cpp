#include "hw/trace/SystemVcd.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <sstream>
#include <vector>

namespace wsesim::trace {
namespace {

constexpr std::int64_t kUndefined = -1;  // written as all x

struct Var {
  std::string scope, name;
  unsigned width;
};

struct Change {
  std::uint64_t ps;
  unsigned order;  // at one time, ends (0) before starts (1)
  std::size_t var;
  std::int64_t value;
};

class Waveform {
 public:
  Waveform(const sc_core::sc_time& origin) : origin_(origin) {}

  std::size_t var(const std::string& scope, const std::string& name, unsigned width) {
    vars_.push_back(Var{scope, name, width});
    changes_.push_back(Change{0, 0, vars_.size() - 1, width == 1 ? 0 : kUndefined});
    return vars_.size() - 1;
  }
  // `value` on `var` over [begin, end), undefined (or 0 for a wire) after.
  void interval(std::size_t var, const sc_core::sc_time& begin, const sc_core::sc_time& end, std::int64_t value) {
    if (end <= begin) return;
    changes_.push_back(Change{ps(begin), 1, var, value});
    changes_.push_back(Change{ps(end), 0, var, vars_[var].width == 1 ? 0 : kUndefined});
  }
  // A wire that is 1 while any of the intervals is open, or a count of them.
  void overlapping(std::size_t var, const std::vector<std::pair<sc_core::sc_time, sc_core::sc_time>>& intervals) {
    changes_.push_back(Change{0, 0, var, 0});  // nothing open at first (a count starts at 0, not x)
    std::map<std::uint64_t, std::int64_t> delta;
    for (const auto& [begin, end] : intervals) {
      if (end <= begin) continue;
      delta[ps(begin)] += 1;
      delta[ps(end)] -= 1;
    }
    std::int64_t open = 0, shown = 0;
    for (const auto& [at, d] : delta) {
      open += d;
      const std::int64_t value = vars_[var].width == 1 ? (open > 0 ? 1 : 0) : open;
      if (value != shown) changes_.push_back(Change{at, 1, var, value});
      shown = value;
    }
  }

  std::string text() {
    std::ostringstream out;
    out << "$timescale 1ps $end\n";
    std::string scope;
    for (std::size_t i = 0; i < vars_.size(); ++i) {
      if (vars_[i].scope != scope) {
        if (!scope.empty()) out << "$upscope $end\n";
        scope = vars_[i].scope;
        out << "$scope module " << scope << " $end\n";
      }
      out << "$var wire " << vars_[i].width << " " << id(i) << " " << vars_[i].name << " $end\n";
    }
    if (!scope.empty()) out << "$upscope $end\n";
    out << "$enddefinitions $end\n";
    std::stable_sort(changes_.begin(), changes_.end(), [](const Change& a, const Change& b) {
      return a.ps != b.ps ? a.ps < b.ps : a.order < b.order;
    });
    std::uint64_t now = ~0ull;
    for (const Change& c : changes_) {
      if (c.ps != now) out << "#" << (now = c.ps) << "\n";
      const unsigned width = vars_[c.var].width;
      if (width == 1) {
        out << (c.value ? '1' : '0') << id(c.var) << "\n";
      } else if (c.value == kUndefined) {
        out << "bx " << id(c.var) << "\n";
      } else {
        std::string bits;
        for (std::uint64_t v = std::uint64_t(c.value); v; v >>= 1) bits.insert(bits.begin(), char('0' + (v & 1)));
        out << "b" << (bits.empty() ? "0" : bits) << " " << id(c.var) << "\n";
      }
    }
    return out.str();
  }

 private:
  std::uint64_t ps(const sc_core::sc_time& t) const {
    return t <= origin_ ? 0 : std::uint64_t((t - origin_).to_seconds() * 1e12 + 0.5);
  }
  // Short printable identifiers, as VCD wants.
  static std::string id(std::size_t i) {
    std::string s;
    do {
      s += char('!' + i % 94);
      i /= 94;
    } while (i);
    return s;
  }

  sc_core::sc_time origin_;
  std::vector<Var> vars_;
  std::vector<Change> changes_;
};

using Intervals = std::vector<std::pair<sc_core::sc_time, sc_core::sc_time>>;

}  // namespace

std::string systemVcd(const system::Cluster& cluster) {
  Waveform w(cluster.began());
  const system::MemoryX& mx = cluster.memoryx;
  const std::size_t fetch = w.var("memoryx", "fetch_layer", 32), stream = w.var("memoryx", "stream_layer", 32),
                    update = w.var("memoryx", "update_layer", 32);
  for (const system::LayerStream& s : mx.streams()) {
    w.interval(fetch, s.fetchStart, s.fetchEnd, std::int64_t(s.layer));
    w.interval(stream, s.streamStart, s.streamEnd, std::int64_t(s.layer));
  }
  for (const system::OptimizerUpdate& u : mx.updates()) w.interval(update, u.start, u.end, std::int64_t(u.layer));
  const std::size_t activations = w.var("memoryx", "activation_transfers", 16);
  Intervals storing;
  for (const system::ActivationTransfer& a : mx.activationTransfers()) storing.emplace_back(a.offered, a.end);
  w.overlapping(activations, storing);

  const std::size_t reducing = w.var("swarmx", "reductions_in_flight", 16);
  Intervals reductions;
  for (const system::Reduction& r : cluster.swarmx.reductions()) reductions.emplace_back(r.firstSent, r.arrived);
  w.overlapping(reducing, reductions);

  for (std::size_t i = 0; i < cluster.systems.size(); ++i) {
    const system::CsSystem& cs = cluster.systems[i];
    const std::string scope = "system_" + std::to_string(i);
    const std::size_t task = w.var(scope, "wafer_task", 32), waits = w.var(scope, "wafer_waits", 1);
    const std::size_t in = w.var(scope, "io_ring_in", 1), out = w.var(scope, "io_ring_out", 1);
    Intervals waiting;
    sc_core::sc_time free = cluster.began();
    for (const system::TaskRecord& r : cs.records()) {
      w.interval(task, r.start, r.end, std::int64_t(r.task));
      // Idle before the task (for weights or activations), and past its duration at the end of a stream-bound one.
      waiting.emplace_back(free, r.start);
      waiting.emplace_back(r.start + cs.work()[r.task].duration, r.end);
      free = r.end;
    }
    w.overlapping(waits, waiting);
    Intervals ingress, egress;
    for (const system::ChannelRecord& c : cs.ioRing().ingress()) ingress.emplace_back(c.firstByte, c.lastByte);
    for (const system::ChannelRecord& c : cs.ioRing().egress()) egress.emplace_back(c.firstByte, c.lastByte);
    w.overlapping(in, ingress);
    w.overlapping(out, egress);
  }
  return w.text();
}

}  // namespace wsesim::trace
