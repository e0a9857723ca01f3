#include "testbench/noc/NocWorkload.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <sstream>

#include "hw/chip/WaferChip.h"
#include "testbench/noc/BroadcastRoutes.h"
#include "testbench/noc/NocConfig.h"
#include "testbench/noc/NocTraffic.h"
#include "testbench/results/EnergyReport.h"
#include "testbench/results/WaferMap.h"
#include "testbench/workload/Simulation.h"

namespace wsesim::noc {
namespace {

struct LinkLoad {
  double mean = 0, p99 = 0, max = 0;
  std::string busiest;
};

class NocWorkload : public workload::Workload {
 public:
  NocWorkload(const NocConfig& config, const config::ArchConfig& arch, const config::RunConfig& run)
      : config_(config), arch_(arch), run_(run) {}

  void run(const workload::RunOptions& options) override;
  std::uint64_t cycles() const override { return cycles_; }
  std::uint64_t plannedHostBytes() const override;
  nlohmann::json results() const override { return results_; }
  std::string summary() const override;

 private:
  // Utilisation (wavelets per cycle) over the window, of mesh links (ramps: false) or of the RAMP outputs.
  LinkLoad linkLoad(const NocTraffic& traffic, bool ramps) const;
  chip::ChipParts chipParts() const;

  NocConfig config_;
  config::ArchConfig arch_;
  config::RunConfig run_;
  std::uint64_t cycles_ = 0;
  nlohmann::json results_;
};

// At most one source per PE, each also in the ready list or the calendar;
// two snapshots of every link counter frame the window.
std::uint64_t NocWorkload::plannedHostBytes() const {
  const std::uint64_t pes = arch_.mesh.routers();
  const std::uint64_t perSource = sizeof(fabric::RouterId) + sizeof(std::uint8_t) + sizeof(TrafficSource) +
                                  sizeof(std::uint32_t) + sizeof(std::uint64_t) + sizeof(std::uint32_t);
  return chip::WaferChip::plannedHostBytes(arch_, run_, chipParts()) + pes * perSource +
         2 * pes * fabric::kPortCount * sizeof(std::uint64_t);
}

// The traffic drives the fabric itself (no PEs); the broadcast patterns route by color.
chip::ChipParts NocWorkload::chipParts() const {
  chip::ChipParts parts;
  parts.pes = false;
  parts.routes = isBroadcast(config_.pattern);
  return parts;
}

void NocWorkload::run(const workload::RunOptions& options) {
  const fabric::MeshGeometry mesh = arch_.mesh;
  chip::WaferChip chip(arch_, run_, chipParts());
  std::vector<fabric::RouterId> sources;
  std::vector<std::uint8_t> colors;
  std::uint32_t fanout = 1;
  if (isBroadcast(config_.pattern)) {
    BroadcastPlan plan = programBroadcastRoutes(config_.pattern, config_.broadcastSources, chip.routes());
    sources = std::move(plan.sources);
    colors = std::move(plan.colors);
    fanout = plan.fanout;
  } else {
    sources.resize(mesh.routers());
    std::iota(sources.begin(), sources.end(), 0);
  }

  NocTraffic traffic(config_, mesh, sources, colors, fanout);
  chip.setController(&traffic);
  chip.setSink(&traffic);
  const chip::SimulationTimes times = chip.simulate(options);
  const wafer::Wafer& wafer = chip.wafer();

  cycles_ = wafer.cycles();
  if (options.waferMap) waferMap_ = results::waferMap(wafer.fabric(), nullptr, wafer.cycles(), arch_);
  if (times.timeline) {
    times.timeline->addSpan("warm-up", 0, traffic.measureStart());
    times.timeline->addSpan("measurement", traffic.measureStart(), traffic.measureEnd());
    times.timeline->addSpan("drain", traffic.measureEnd(), wafer.cycles());
    timeline_ = workload::finishTimeline(*times.timeline, wafer.cycles());
  }
  const double simSeconds = times.simulationSeconds;
  const fabric::FabricCounters& counters = wafer.fabric().counters();
  const LatencyStats latency = traffic.latency();
  const double windowSourceCycles = double(traffic.sources()) * double(config_.measureCycles);
  const LinkLoad links = linkLoad(traffic, false);
  const LinkLoad ramps = linkLoad(traffic, true);

  nlohmann::json& r = results_;
  r["type"] = "noc";
  r["pattern"] = patternName(config_.pattern);
  r["routing"] = fabric::routingName(arch_.fabric.routing);
  r["sources"] = traffic.sources();
  r["fanout"] = fanout;
  r["latency_avg"] = latency.average;
  r["latency_p50"] = latency.p50;
  r["latency_p99"] = latency.p99;
  r["latency_max"] = latency.max;
  r["latency_samples"] = latency.samples;
  r["offered_rate"] = windowSourceCycles > 0 ? double(traffic.measuredWaveletsCreated()) / windowSourceCycles : 0.0;
  r["accepted_rate"] =
      windowSourceCycles > 0 ? double(traffic.windowDeliveries()) / fanout / windowSourceCycles : 0.0;
  r["wavelets_injected"] = counters.injected;
  r["wavelets_delivered"] = counters.delivered;
  r["wavelets_in_flight"] = counters.queued;
  r["wavelet_hops"] = counters.hops;
  r["measured_packets"] = traffic.measuredPackets();
  r["measured_deliveries_missing"] = traffic.measuredDeliveriesMissing();
  r["router_cycles_per_second"] = simSeconds > 0 ? double(mesh.routers()) * double(cycles_) / simSeconds : 0.0;
  r["wavelet_hops_per_second"] = simSeconds > 0 ? double(counters.hops) / simSeconds : 0.0;
  r["host"] = {{"elaboration_seconds", times.elaborationSeconds},
               {"simulation_seconds", simSeconds},
               {"fabric_bytes", wafer.fabric().hostBytes()}};
  r["link_utilisation"] = {{"mean", links.mean}, {"p99", links.p99}, {"max", links.max}, {"busiest", links.busiest}};
  r["ramp_utilisation"] = {{"mean", ramps.mean}, {"p99", ramps.p99}, {"max", ramps.max}, {"busiest", ramps.busiest}};
  // The whole run's traffic; the PEs are traffic sources, idle as compute engines.
  results::EnergyScope scope;
  scope.seconds = double(cycles_) * arch_.secondsPerCycle();
  r.update(results::energyResults(chip.actionsUntil(cycles_), arch_, scope));
}

LinkLoad NocWorkload::linkLoad(const NocTraffic& traffic, bool ramps) const {
  const fabric::MeshGeometry mesh = arch_.mesh;
  const auto& before = traffic.transfersAtStart();
  const auto& after = traffic.transfersAtEnd();
  LinkLoad load;
  if (after.empty()) return load;
  std::vector<double> values;
  for (fabric::RouterId r = 0; r < mesh.routers(); ++r) {
    for (unsigned p = 0; p < fabric::kPortCount; ++p) {
      const fabric::Port port = fabric::Port(p);
      if ((port == fabric::Port::Ramp) != ramps) continue;
      if (!ramps && mesh.neighbour(r, port) == fabric::kNoRouter) continue;
      const std::size_t i = std::size_t(r) * fabric::kPortCount + p;
      const double u = double(after[i] - before[i]) / double(config_.measureCycles);
      if (values.empty() || u > load.max) {
        load.max = u;
        load.busiest = "router " + mesh.name(r) + " output " + fabric::portName(port);
      }
      values.push_back(u);
    }
  }
  if (values.empty()) return load;
  load.mean = std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
  const std::size_t k = std::min(values.size() - 1, std::size_t(0.99 * double(values.size())));
  std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(k), values.end());
  load.p99 = values[k];
  return load;
}

std::string NocWorkload::summary() const {
  const nlohmann::json& r = results_;
  char line[512];
  std::ostringstream out;
  std::snprintf(line, sizeof line, "NoC %s on %ux%u (%s routing), %s wavelets/PE/cycle offered, %u-wavelet packets\n",
                r["pattern"].get<std::string>().c_str(), arch_.mesh.width, arch_.mesh.height,
                r["routing"].get<std::string>().c_str(), std::to_string(config_.injectionRate).c_str(),
                config_.packetWavelets);
  out << line;
  std::snprintf(line, sizeof line,
                "  latency   avg %.1f  p50 %llu  p99 %llu  max %llu cycles (%llu packets measured, %llu deliveries missing)\n",
                r["latency_avg"].get<double>(), (unsigned long long)r["latency_p50"].get<std::uint64_t>(),
                (unsigned long long)r["latency_p99"].get<std::uint64_t>(),
                (unsigned long long)r["latency_max"].get<std::uint64_t>(),
                (unsigned long long)r["measured_packets"].get<std::uint64_t>(),
                (unsigned long long)r["measured_deliveries_missing"].get<std::uint64_t>());
  out << line;
  std::snprintf(line, sizeof line, "  rate      offered %.5f  accepted %.5f wavelets/source/cycle\n",
                r["offered_rate"].get<double>(), r["accepted_rate"].get<double>());
  out << line;
  std::snprintf(line, sizeof line, "  links     mean %.4f  p99 %.4f  max %.4f wavelets/cycle (busiest: %s)\n",
                r["link_utilisation"]["mean"].get<double>(), r["link_utilisation"]["p99"].get<double>(),
                r["link_utilisation"]["max"].get<double>(),
                r["link_utilisation"]["busiest"].get<std::string>().c_str());
  out << line;
  std::snprintf(line, sizeof line, "  host      %.1f M router-cycles/s, %.1f M wavelet-hops/s\n",
                r["router_cycles_per_second"].get<double>() / 1e6, r["wavelet_hops_per_second"].get<double>() / 1e6);
  out << line;
  out << results::energySummary(r);
  return out.str();
}

}  // namespace

std::unique_ptr<workload::Workload> makeNocWorkload(config::ParamReader& params, const config::ArchConfig& arch,
                                                    const config::RunConfig& run) {
  return std::make_unique<NocWorkload>(NocConfig::read(params, arch), arch, run);
}

}  // namespace wsesim::noc
