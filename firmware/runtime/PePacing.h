#pragma once
// Runs a mapping's phases PE by PE (GemmOutline::pacedPhases), as a PE
// program that loops over its steps does on the machine: each PE goes on
// to its next phase as soon as its own program has ended, with no
// wafer-wide barrier. What keeps the phases apart is the routes:
// - a phase's route changes (programPhaseRoutes, against the phase
//   before) are made router by router, each when its PE enters the phase
//   and no wavelet of a changed color waits in that router, so a wavelet of
//   the phase before is never routed by the new routes;
// - a PE that sends in a phase loads its program only once every router on
//   its transfers' lines holds the phase's routes for the colors it sends
//   on, so a new wavelet never meets an old route;
// - a PE entering a phase whose routes change anywhere loads its program
//   arch.fabric.route_switch_cycles after it is ready (the barrier model's
//   switch, paid per PE).
// Wavelets that reach a PE before its program for them is loaded wait in
// its inboxes, holding the line back as on the machine. So a step's
// broadcast latency overlaps the work of the PEs nearer its root, and the
// cost of a step does not grow with the grid (docs/validation.md).
//
// Requires: the mapping streams nothing in, and every router whose route a
// phase changes belongs to a PE of the grid that receives or sends
// everything passing it in the phases around the change (broadcast lines).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <unordered_map>
#include <utility>
#include <vector>

#include "firmware/gemm/GemmMapping.h"
#include "hw/fabric/ColorRouteTable.h"
#include "hw/fabric/FabricKernel.h"
#include "hw/pe/PeGrid.h"

namespace wsesim::runtime {

class PePacing {
 public:
  // Programs the routes, and every PE's phase 0 loads in cycle `start`.
  // `mapping`, `pes` and `routes` must outlive it.
  PePacing(const firmware::GemmMapping& mapping, pe::PeGrid& pes, fabric::ColorRouteTable& routes,
           std::uint32_t routeSwitchCycles, std::uint64_t start);
  ~PePacing();

  void beginCycle(std::uint64_t now, const fabric::FabricKernel& fabric);
  std::uint64_t nextActivity(std::uint64_t now) const;
  // Every PE has loaded its last phase's program: with nothing left for
  // the PEs to do, the mapping is done (no cycle later, as the barrier's).
  bool lastPhasesLoaded() const { return lastLoaded_ == grid_.size(); }
  // Phases entered over all PEs, as a share of all.
  double progress() const { return double(entered_) / (double(grid_.size()) * mapping_.phases()); }
  // Per phase, the cycle the first PE entered it.
  const std::vector<std::uint64_t>& phaseStarts() const { return phaseStarts_; }

 private:
  enum class State : std::uint8_t { Waiting, Scheduled, Running, Draining };
  struct Pe {
    fabric::RouterId router = 0;
    std::uint32_t phase = 0;  // entered: its router holds this phase's routes
    State state = State::Waiting;
    std::uint32_t blockers = 0;  // routers on its transfers' lines still to switch
    std::uint64_t readyAt = 0;   // it entered its phase, or its last blocker switched
  };
  // A sender waiting until this router has entered `phase`.
  struct Wait {
    std::uint32_t sender;
    std::uint32_t phase;
  };
  using Load = std::pair<std::uint64_t, std::uint32_t>;  // (cycle, grid PE)

  // changes_: what each phase's routes change against the phase before.
  void learnRouteChanges();
  // The phase's route changes at grid PE k's router.
  std::pair<const fabric::RouteChange*, const fabric::RouteChange*> changesAt(std::uint32_t k,
                                                                              std::uint32_t phase) const;
  // The last phase up to `phase` that changes router r's route for `color`, or -1.
  std::int64_t lastChange(fabric::RouterId r, unsigned color, std::uint32_t phase) const;
  void enter(std::uint32_t k, std::uint32_t phase, std::uint64_t now);
  void waitForLines(std::uint32_t k, std::uint32_t phase);
  void schedule(std::uint32_t k);
  // Grid PE k's program has ended: on to its next phase, if its router may switch.
  void ended(std::uint32_t k, std::uint64_t now, const fabric::FabricKernel& fabric);
  bool routerDrained(std::uint32_t k, std::uint32_t phase, const fabric::FabricKernel& fabric) const;
  void loadDue(std::uint64_t now);

  const firmware::GemmMapping& mapping_;
  pe::PeGrid& pes_;
  fabric::ColorRouteTable& routes_;
  fabric::MeshGeometry mesh_;
  std::unique_ptr<firmware::PhaseLoader> loader_;
  std::uint32_t switchCycles_;
  std::vector<Pe> grid_;
  std::vector<std::int32_t> indexOf_;                      // mesh router -> grid PE, -1 outside the grid
  std::vector<std::vector<fabric::RouteChange>> changes_;  // per phase, by router
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> changedIn_;  // router x 32 + color -> phases
  std::vector<std::vector<Wait>> waits_;                                     // per grid PE, on its router
  // Per phase being entered: its transfers by sending router, and PEs yet to enter it.
  struct PhaseSends {
    std::multimap<fabric::RouterId, firmware::LineTransfer> bySender;
    std::size_t toEnter = 0;
  };
  std::map<std::uint32_t, PhaseSends> sends_;
  std::priority_queue<Load, std::vector<Load>, std::greater<Load>> loads_;
  std::vector<std::uint32_t> draining_;
  std::vector<std::uint64_t> phaseStarts_;
  std::size_t lastLoaded_ = 0;
  std::uint64_t entered_ = 0;
};

}  // namespace wsesim::runtime
