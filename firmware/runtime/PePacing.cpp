#include "firmware/runtime/PePacing.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "hw/sim/CycleDriver.h"

namespace wsesim::runtime {

PePacing::PePacing(const firmware::GemmMapping& mapping, pe::PeGrid& pes, fabric::ColorRouteTable& routes,
                   std::uint32_t routeSwitchCycles, std::uint64_t start)
    : mapping_(mapping),
      pes_(pes),
      routes_(routes),
      mesh_(routes.mesh()),
      loader_(mapping.phaseLoader(pes, routes.mesh())),
      switchCycles_(routeSwitchCycles),
      indexOf_(mesh_.routers(), -1) {
  if (!loader_ || !mapping.outline().phaseOutputs.empty())
    throw std::logic_error(mapping.describe() + ": only resident mappings that load PE by PE run paced");
  for (std::uint32_t r = 0; r < mapping.gridY(); ++r)
    for (std::uint32_t c = 0; c < mapping.gridX(); ++c) {
      indexOf_[mapping.pe(mesh_, c, r)] = std::int32_t(grid_.size());
      grid_.push_back(Pe{mapping.pe(mesh_, c, r)});
    }
  waits_.resize(grid_.size());
  learnRouteChanges();
  pes_.watchProgramEnds(true);
  for (std::uint32_t k = 0; k < grid_.size(); ++k) enter(k, 0, start);
  loadDue(start);
}

PePacing::~PePacing() { pes_.watchProgramEnds(false); }

void PePacing::learnRouteChanges() {
  routes_.clear();
  mapping_.programRoutes(routes_);
  mapping_.programPhaseRoutes(routes_, 0);
  fabric::ColorRouteTable next = routes_;
  changes_.resize(mapping_.phases());
  for (std::uint32_t p = 1; p < mapping_.phases(); ++p) {
    next.recordChanges(&changes_[p]);
    mapping_.programPhaseRoutes(next, p);
    next.recordChanges(nullptr);
    std::vector<fabric::RouteChange>& changes = changes_[p];
    std::stable_sort(changes.begin(), changes.end(),
                     [](const fabric::RouteChange& a, const fabric::RouteChange& b) { return a.router < b.router; });
    for (const fabric::RouteChange& c : changes) {
      if (indexOf_[c.router] < 0)
        throw std::logic_error(mapping_.describe() + ": phase " + std::to_string(p) + " changes a route at router " +
                               mesh_.name(c.router) + ", outside the grid, which paced phases cannot switch");
      std::vector<std::uint32_t>& phases = changedIn_[std::uint64_t(c.router) * 32 + c.color];
      if (phases.empty() || phases.back() != p) phases.push_back(p);
    }
  }
}

std::pair<const fabric::RouteChange*, const fabric::RouteChange*> PePacing::changesAt(std::uint32_t k,
                                                                                   std::uint32_t phase) const {
  const std::vector<fabric::RouteChange>& changes = changes_[phase];
  const auto byRouter = [](const fabric::RouteChange& c, fabric::RouterId r) { return c.router < r; };
  const auto first = std::lower_bound(changes.begin(), changes.end(), grid_[k].router, byRouter);
  auto last = first;
  while (last != changes.end() && last->router == grid_[k].router) ++last;
  return {changes.data() + (first - changes.begin()), changes.data() + (last - changes.begin())};
}

std::int64_t PePacing::lastChange(fabric::RouterId r, unsigned color, std::uint32_t phase) const {
  const auto it = changedIn_.find(std::uint64_t(r) * 32 + color);
  if (it == changedIn_.end()) return -1;
  const auto after = std::upper_bound(it->second.begin(), it->second.end(), phase);
  return after == it->second.begin() ? -1 : std::int64_t(*(after - 1));
}

void PePacing::enter(std::uint32_t k, std::uint32_t phase, std::uint64_t now) {
  Pe& pe = grid_[k];
  if (phase > 0) pes_.unload(pe.router, mapping_.keptBuffers());
  const auto [first, last] = changesAt(k, phase);
  for (const fabric::RouteChange* c = first; c != last; ++c)
    routes_.set(mesh_.xOf(c->router), mesh_.yOf(c->router), c->color, c->route.accept, c->route.forward);
  pe.phase = phase;
  pe.readyAt = now;
  pe.state = State::Waiting;
  if (phaseStarts_.size() == phase) phaseStarts_.push_back(now);
  ++entered_;

  // The senders that waited for this router to switch.
  std::vector<Wait>& waits = waits_[k];
  for (auto it = waits.begin(); it != waits.end();) {
    if (it->phase > phase) {
      ++it;
      continue;
    }
    Pe& sender = grid_[it->sender];
    sender.readyAt = std::max(sender.readyAt, now);
    if (--sender.blockers == 0) schedule(it->sender);
    it = waits.erase(it);
  }
  waitForLines(k, phase);
  if (pe.blockers == 0) schedule(k);
}

void PePacing::waitForLines(std::uint32_t k, std::uint32_t phase) {
  auto sends = sends_.find(phase);
  if (sends == sends_.end()) {
    sends = sends_.emplace(phase, PhaseSends{}).first;
    for (const firmware::LineTransfer& t : mapping_.transfers(phase))
      sends->second.bySender.emplace(mesh_.id(t.line.x(t.from), t.line.y(t.from)), t);
    sends->second.toEnter = grid_.size();
  }
  Pe& pe = grid_[k];
  const auto [first, last] = sends->second.bySender.equal_range(pe.router);
  for (auto it = first; it != last; ++it) {
    const firmware::LineTransfer& t = it->second;
    for (std::uint32_t position = t.lo; position <= t.hi; ++position) {
      const fabric::RouterId r = mesh_.id(t.line.x(position), t.line.y(position));
      const std::int64_t needed = lastChange(r, t.color, phase);
      if (needed < 0) continue;
      const std::uint32_t holder = std::uint32_t(indexOf_[r]);
      if (grid_[holder].phase >= needed) continue;
      waits_[holder].push_back(Wait{k, std::uint32_t(needed)});
      ++pe.blockers;
    }
  }
  if (--sends->second.toEnter == 0) sends_.erase(sends);
}

void PePacing::schedule(std::uint32_t k) {
  Pe& pe = grid_[k];
  pe.state = State::Scheduled;
  loads_.emplace(pe.readyAt + (changes_[pe.phase].empty() ? 0 : switchCycles_), k);
}

bool PePacing::routerDrained(std::uint32_t k, std::uint32_t phase, const fabric::FabricKernel& fabric) const {
  std::uint32_t changed = 0;
  const auto [first, last] = changesAt(k, phase);
  for (const fabric::RouteChange* c = first; c != last; ++c) changed |= 1u << c->color;
  return !(fabric.queuedColors(grid_[k].router) & changed);
}

void PePacing::ended(std::uint32_t k, std::uint64_t now, const fabric::FabricKernel& fabric) {
  Pe& pe = grid_[k];
  if (pe.phase + 1 == mapping_.phases()) return;
  if (routerDrained(k, pe.phase + 1, fabric)) {
    enter(k, pe.phase + 1, now);
  } else {
    pe.state = State::Draining;
    draining_.push_back(k);
  }
}

void PePacing::loadDue(std::uint64_t now) {
  if (loads_.empty() || loads_.top().first > now) return;
  pes_.skipTo(now);
  while (!loads_.empty() && loads_.top().first <= now) {
    Pe& pe = grid_[loads_.top().second];
    loads_.pop();
    loader_->load(pe.router, pe.phase);
    pe.state = State::Running;
    lastLoaded_ += pe.phase + 1 == mapping_.phases();
  }
}

void PePacing::beginCycle(std::uint64_t now, const fabric::FabricKernel& fabric) {
  for (const fabric::RouterId r : pes_.programEnds()) {
    const std::int32_t k = indexOf_[r];
    if (k >= 0 && grid_[std::size_t(k)].state == State::Running && pes_.programEnded(r))
      ended(std::uint32_t(k), now, fabric);
  }
  pes_.clearProgramEnds();
  for (auto it = draining_.begin(); it != draining_.end();) {
    const std::uint32_t k = *it;
    if (grid_[k].state == State::Draining && routerDrained(k, grid_[k].phase + 1, fabric)) {
      enter(k, grid_[k].phase + 1, now);
      it = draining_.erase(it);
    } else {
      ++it;
    }
  }
  loadDue(now);
}

std::uint64_t PePacing::nextActivity(std::uint64_t now) const {
  if (!pes_.programEnds().empty() || !draining_.empty()) return now;
  return loads_.empty() ? sim::kNever : std::max(now, loads_.top().first);
}

}  // namespace wsesim::runtime
