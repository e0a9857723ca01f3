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

// What a run found: results() and summary() are both written from it.
struct NocResults {
  std::uint64_t sources = 0, fanout = 1;
  LatencyStats latency;
  double offeredRate = 0, acceptedRate = 0;  // wavelets per source per cycle in the window
  fabric::FabricCounters counters;
  std::uint64_t measuredPackets = 0, measuredDeliveriesMissing = 0;
  LinkLoad links, ramps;
  double routerCyclesPerSecond = 0, waveletHopsPerSecond = 0;
  double elaborationSeconds = 0, simulationSeconds = 0;
  std::uint64_t fabricBytes = 0;
  unsigned fabricBands = 1;         // the fabric's bands, stepped at once by run.threads
  std::uint64_t cyclesInBands = 0;  // the cycles in which they were
};

class NocWorkload : public workload::Workload {
 public:
  NocWorkload(const NocConfig& config, const config::ArchConfig& arch, const config::RunConfig& run)
      : config_(config), arch_(arch), run_(run) {}

  void run(const workload::RunOptions& options) override;
  workload::HostMemoryPlan plannedHostMemory() const override;
  nlohmann::json typeResults() const override;
  std::string typeSummary() const override;

 private:
  // Utilisation (wavelets per cycle) over the window, of mesh links (ramps: false) or of the RAMP outputs.
  LinkLoad linkLoad(const NocTraffic& traffic, bool ramps) const;
  chip::ChipParts chipParts() const;

  NocConfig config_;
  config::ArchConfig arch_;
  config::RunConfig run_;
  NocResults found_;
};

// At most one source per PE, each also in the ready list or the calendar;
// two snapshots of every link counter frame the window.
workload::HostMemoryPlan NocWorkload::plannedHostMemory() const {
  const std::uint64_t pes = arch_.mesh.routers();
  const std::uint64_t perSource = sizeof(fabric::RouterId) + sizeof(std::uint8_t) + sizeof(TrafficSource) +
                                  sizeof(std::uint32_t) + sizeof(std::uint64_t) + sizeof(std::uint32_t);
  workload::HostMemoryPlan plan = workload::chipHostMemory(arch_, run_, chipParts());
  plan.bytes += pes * perSource + 2 * pes * fabric::kPortCount * sizeof(std::uint64_t);
  return plan;
}

// The traffic drives the fabric itself (no PEs); the broadcast patterns route by color.
chip::ChipParts NocWorkload::chipParts() const {
  chip::ChipParts parts;
  parts.pes = false;
  parts.routes = isBroadcast(config_.pattern);
  parts.fabricThreads = run_.hostThreads();
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

  NocTraffic traffic(config_, chip.fabric(), sources, colors, fanout);
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
  const double windowSourceCycles = double(traffic.sources()) * double(config_.measureCycles);
  NocResults& r = found_;
  r.sources = traffic.sources();
  r.fanout = fanout;
  r.latency = traffic.latency();
  r.offeredRate = windowSourceCycles > 0 ? double(traffic.measuredWaveletsCreated()) / windowSourceCycles : 0.0;
  r.acceptedRate = windowSourceCycles > 0 ? double(traffic.windowDeliveries()) / fanout / windowSourceCycles : 0.0;
  r.counters = wafer.fabric().counters();
  r.measuredPackets = traffic.measuredPackets();
  r.measuredDeliveriesMissing = traffic.measuredDeliveriesMissing();
  r.links = linkLoad(traffic, false);
  r.ramps = linkLoad(traffic, true);
  r.routerCyclesPerSecond = simSeconds > 0 ? double(mesh.routers()) * double(cycles_) / simSeconds : 0.0;
  r.waveletHopsPerSecond = simSeconds > 0 ? double(r.counters.hops) / simSeconds : 0.0;
  r.elaborationSeconds = times.elaborationSeconds;
  r.simulationSeconds = simSeconds;
  r.fabricBytes = wafer.fabric().hostBytes();
  r.fabricBands = wafer.fabric().bands();
  r.cyclesInBands = wafer.fabric().cyclesInBands();
  // The whole run's traffic; the PEs are traffic sources, idle as compute engines.
  results::EnergyScope scope;
  scope.seconds = double(cycles_) * arch_.secondsPerCycle();
  cost_ = results::energyResults(chip.actionsUntil(cycles_), arch_, scope);
}

nlohmann::json NocWorkload::typeResults() const {
  const NocResults& f = found_;
  const auto load = [](const LinkLoad& l) {
    return nlohmann::json{{"mean", l.mean}, {"p99", l.p99}, {"max", l.max}, {"busiest", l.busiest}};
  };
  nlohmann::json r;
  r["type"] = "noc";
  r["pattern"] = patternName(config_.pattern);
  r["routing"] = fabric::routingName(arch_.fabric.routing);
  r["arbitration"] = fabric::arbitrationName(arch_.fabric.arbitration);
  r["sources"] = f.sources;
  r["fanout"] = f.fanout;
  r["latency_avg"] = f.latency.average;
  r["latency_p50"] = f.latency.p50;
  r["latency_p99"] = f.latency.p99;
  r["latency_max"] = f.latency.max;
  r["latency_samples"] = f.latency.samples;
  r["offered_rate"] = f.offeredRate;
  r["accepted_rate"] = f.acceptedRate;
  r["wavelets_injected"] = f.counters.injected;
  r["wavelets_delivered"] = f.counters.delivered;
  r["wavelets_in_flight"] = f.counters.queued;
  r["wavelet_hops"] = f.counters.hops;
  r["measured_packets"] = f.measuredPackets;
  r["measured_deliveries_missing"] = f.measuredDeliveriesMissing;
  // Measured packets still in the mesh when the drain ended: the network
  // could not carry the offered load, and every latency above is a lower
  // bound (the missing packets' own latencies are longer than the run).
  r["saturated"] = f.measuredDeliveriesMissing > 0;
  r["router_cycles_per_second"] = f.routerCyclesPerSecond;
  r["wavelet_hops_per_second"] = f.waveletHopsPerSecond;
  r["host"] = {{"elaboration_seconds", f.elaborationSeconds},
               {"simulation_seconds", f.simulationSeconds},
               {"fabric_bytes", f.fabricBytes},
               {"fabric_bands", f.fabricBands},
               {"cycles_in_bands", f.cyclesInBands}};
  r["link_utilisation"] = load(f.links);
  r["ramp_utilisation"] = load(f.ramps);
  return r;
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

std::string NocWorkload::typeSummary() const {
  const NocResults& f = found_;
  char line[512];
  std::ostringstream out;
  std::snprintf(line, sizeof line, "NoC %s on %ux%u (%s routing), %s wavelets/PE/cycle offered, %u-wavelet packets\n",
                patternName(config_.pattern), arch_.mesh.width, arch_.mesh.height,
                fabric::routingName(arch_.fabric.routing), std::to_string(config_.injectionRate).c_str(), config_.packetWavelets);
  out << line;
  std::snprintf(line, sizeof line,
                "  latency   avg %.1f  p50 %llu  p99 %llu  max %llu cycles (%llu packets measured, %llu deliveries missing)\n",
                f.latency.average, (unsigned long long)f.latency.p50, (unsigned long long)f.latency.p99,
                (unsigned long long)f.latency.max, (unsigned long long)f.measuredPackets,
                (unsigned long long)f.measuredDeliveriesMissing);
  out << line;
  if (f.measuredDeliveriesMissing > 0) {
    const double missing = double(f.measuredDeliveriesMissing) / double(f.measuredPackets * f.fanout);
    std::snprintf(line, sizeof line,
                  "  warning   saturated: %.1f%% of the measured deliveries had not arrived when the drain "
                  "(workload.drain_cycles = %llu) ended, so these latencies are lower bounds\n",
                  100.0 * missing, (unsigned long long)config_.drainCycles);
    out << line;
  }
  std::snprintf(line, sizeof line, "  rate      offered %.5f  accepted %.5f wavelets/source/cycle\n", f.offeredRate,
                f.acceptedRate);
  out << line;
  std::snprintf(line, sizeof line, "  links     mean %.4f  p99 %.4f  max %.4f wavelets/cycle (busiest: %s)\n",
                f.links.mean, f.links.p99, f.links.max, f.links.busiest.c_str());
  out << line;
  std::snprintf(line, sizeof line, "  host      %.1f M router-cycles/s, %.1f M wavelet-hops/s\n",
                f.routerCyclesPerSecond / 1e6, f.waveletHopsPerSecond / 1e6);
  out << line;
  return out.str();
}

}  // namespace

std::unique_ptr<workload::Workload> makeNocWorkload(config::ParamReader& params, const config::ArchConfig& arch,
                                                    const config::RunConfig& run) {
  return std::make_unique<NocWorkload>(NocConfig::read(params, arch), arch, run);
}

}  // namespace wsesim::noc
