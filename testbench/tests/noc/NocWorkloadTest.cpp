// The `noc` workload through the library: measured rates and latencies
// against hand-derived zero-load values, multicast fan-out, determinism,
// and the routing mode each pattern needs.
//
// SystemC elaborates once per process, so each simulation runs in a child
// process forked for it (which also keeps this binary correct when run as a
// whole, outside ctest); the child sends back the workload's result JSON.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "hw/config/ArchConfig.h"
#include "hw/common/ConfigError.h"
#include "hw/config/ConfigTree.h"
#include "hw/config/ParamReader.h"
#include "hw/config/RunConfig.h"
#include "testbench/registry/WorkloadTypes.h"
#include "testbench/workload/Workload.h"

namespace wsesim::noc {
namespace {

using nlohmann::json;

// Configuration and workload construction, as `wsesim run` does them;
// unknown keys are rejected so that a typo in a test cannot go unnoticed.
struct Prepared {
  config::ConfigTree tree;
  std::unique_ptr<config::ParamReader> params;
  std::unique_ptr<workload::Workload> work;
};

std::unique_ptr<Prepared> prepare(const std::string& yaml) {
  auto p = std::make_unique<Prepared>();
  p->tree = config::ConfigTree::fromText(yaml, "test");
  p->tree.applyPreset(config::defaultPresetDir());
  p->params = std::make_unique<config::ParamReader>(p->tree);
  const config::ArchConfig arch = config::ArchConfig::read(*p->params);
  const config::RunConfig run = config::RunConfig::read(*p->params, arch);
  const std::string type = p->params->choice("workload.type", {"noc"});
  p->work = workload::workloadTypes().at(type)(*p->params, arch, run);
  p->params->rejectUnknownKeys();
  return p;
}

// Runs the simulation `yaml` describes in a child process and returns the
// workload's results plus "cycles".
json simulate(const std::string& yaml) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error("fork failed");
  if (child == 0) {
    ::close(fds[0]);
    std::string reply;
    int status = 0;
    try {
      auto p = prepare(yaml);
      p->work->run(workload::RunOptions{});
      json r = p->work->results();
      r["cycles"] = p->work->cycles();
      reply = r.dump();
    } catch (const std::exception& e) {
      reply = e.what();
      status = 1;
    }
    for (std::size_t done = 0; done < reply.size();) {
      const ssize_t n = ::write(fds[1], reply.data() + done, reply.size() - done);
      if (n <= 0) break;
      done += std::size_t(n);
    }
    ::_exit(status);
  }
  ::close(fds[1]);
  std::string reply;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) reply.append(buf, std::size_t(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("simulation failed (wait status " + std::to_string(status) + "): " + reply);
  return json::parse(reply);
}

double num(const json& r, const char* key) { return r.at(key).get<double>(); }
std::uint64_t count(const json& r, const char* key) { return r.at(key).get<std::uint64_t>(); }

// Ramp on + ramp off, 2 cycles each in the wse2 preset (tiny's base):
// zero-load latency = hops x 1 cycle + 4.
constexpr double kBothRamps = 2 * 2;

TEST(NocUniformRandom, LowLoadAcceptsWhatIsOfferedAtHopCountPlusRampsLatency) {
  const json r = simulate(
      "arch: {preset: tiny, fabric: {routing: xy}}\n"  // 8 x 8, hop 1, ramp 2, queue depth 4
      "workload: {type: noc, pattern: uniform_random, injection_rate: 0.005,\n"
      "           warmup_cycles: 1000, measure_cycles: 20000, seed: 1}\n");
  const double sources = 64, window = 20000, rate = 0.005;
  ASSERT_EQ(count(r, "sources"), 64u);
  ASSERT_EQ(count(r, "measured_deliveries_missing"), 0u);
  EXPECT_EQ(count(r, "latency_samples"), count(r, "measured_packets"));

  // Offered: packets created in the window ~ Binomial(64 x 20000, 0.005),
  // sd of the rate = sqrt(p (1 - p) / n) = sqrt(0.005 x 0.995 / 1.28e6)
  // = 6.2e-5; 4 sd = 2.5e-4.
  EXPECT_NEAR(num(r, "offered_rate"), rate, 4 * std::sqrt(rate * (1 - rate) / (sources * window)));
  // Accepted counts deliveries in the window instead of creations: they differ
  // only by packets straddling its edges, each edge ~Poisson(64 x 0.005
  // packets/cycle x ~9.4 cycles latency = 3): difference sd ~ sqrt(6) ~ 2.5
  // packets; allow 12 packets (~5 sd) out of 64 x 20000 source-cycles.
  EXPECT_NEAR(num(r, "accepted_rate"), num(r, "offered_rate"), 12 / (sources * window));

  // Mean hop count of uniform random traffic between distinct nodes of a
  // k x k mesh: E|x1 - x2| over independent uniform coordinates is
  // (k^2 - 1) / (3k); summed over both axes and all N^2 ordered pairs
  // (N = k^2), then divided by the N (N - 1) distinct pairs (self pairs add 0):
  // 2 (k^2 - 1) / (3k) x N / (N - 1) = 2k / 3 = 16/3 = 5.333 hops for k = 8.
  // Its standard deviation over the 4032 ordered pairs is 2.62 hops (by enumeration).
  const double meanHops = 2.0 * 8 / 3, hopSd = 2.62;
  const double samples = double(count(r, "latency_samples"));
  const double sampling = 4 * hopSd / std::sqrt(samples);  // 4 sd of a sample mean: ~0.13
  // Hops per delivered wavelet; wavelets still in flight at the end (their
  // hops partly counted) can move it by at most 14 x in_flight / delivered.
  const double delivered = double(count(r, "wavelets_delivered"));
  const double hopsPerWavelet = double(count(r, "wavelet_hops")) / delivered;
  EXPECT_GT(hopsPerWavelet, meanHops - sampling);
  EXPECT_LT(hopsPerWavelet, meanHops + sampling + 14 * double(count(r, "wavelets_in_flight")) / delivered);

  // Latency = hops + both ramps + queueing. At this load links carry ~0.008
  // wavelets/cycle, so a wavelet meets contention at its ~7 arbitration
  // points with probability ~0.06 in all and then waits ~1 cycle: queueing
  // adds ~0.06 cycles; allow 0.25.
  const double zeroLoad = meanHops + kBothRamps;  // 9.333
  EXPECT_GT(num(r, "latency_avg"), zeroLoad - sampling);
  EXPECT_LT(num(r, "latency_avg"), zeroLoad + sampling + 0.25);
  // Median: 41.2 % of pairs are <= 4 hops apart and 55.1 % <= 5 (counts 224,
  // 388, 496, 552, 560 of 4032 pairs at 1..5 hops), so p50 = 5 + 4 = 9.
  EXPECT_EQ(count(r, "latency_p50"), 9u);
  // Longest path: 14 hops + 4 = 18; low load adds at most a few cycles.
  EXPECT_LE(count(r, "latency_max"), 18u + 4u);
}

TEST(NocTranspose, ZeroLoadLatenciesOnASquareMesh) {
  const json r = simulate(
      "arch: {preset: tiny, mesh: {width: 4, height: 4}, fabric: {routing: xy}}\n"
      "workload: {type: noc, pattern: transpose, injection_rate: 0.005,\n"
      "           warmup_cycles: 1000, measure_cycles: 40000, seed: 1}\n");
  ASSERT_EQ(count(r, "measured_deliveries_missing"), 0u);
  // PE (x, y) sends to (y, x): |x - y| hops east or west, then |x - y| north
  // or south, so 2 |x - y| hops; the diagonal sends to itself (0 hops, both
  // ramps only). On 4 x 4, |x - y| = 0, 1, 2, 3 for 4, 6, 4, 2 PEs, so the
  // zero-load latencies 2 |x - y| + 4 are 4, 6, 8, 10 cycles for 4, 6, 4, 2
  // of the 16 sources (25 %, 37.5 %, 25 %, 12.5 %).
  // Mean hops: (0 x 4 + 2 x 6 + 4 x 4 + 6 x 2) / 16 = 40 / 16 = 2.5
  // (= 2 (k^2 - 1) / (3k) for k = 4); sd over sources 1.94.
  const double meanHops = 2.5, hopSd = 1.94;
  const double sampling = 4 * hopSd / std::sqrt(double(count(r, "latency_samples")));  // ~0.14
  const double hopsPerWavelet = double(count(r, "wavelet_hops")) / double(count(r, "wavelets_delivered"));
  EXPECT_NEAR(hopsPerWavelet, meanHops, sampling + 6 * double(count(r, "wavelets_in_flight")) /
                                                        double(count(r, "wavelets_delivered")));
  // Average: 2.5 + 4 = 6.5, plus at most 0.25 cycles of queueing at 0.005 (see uniform random).
  EXPECT_GT(num(r, "latency_avg"), meanHops + kBothRamps - sampling);
  EXPECT_LT(num(r, "latency_avg"), meanHops + kBothRamps + sampling + 0.25);
  // 25 % of packets take 4 cycles and 62.5 % at most 6: p50 = 6.
  EXPECT_EQ(count(r, "latency_p50"), 6u);
  // 87.5 % take at most 8 cycles and the rest 10: p99 = 10 unless over 1 %
  // of all packets were delayed, which low load rules out.
  EXPECT_EQ(count(r, "latency_p99"), 10u);
  // PEs (0,3) and (3,0) each send ~200 packets on the 10-cycle path, so the
  // maximum is at least 10; flows toward the diagonal share row links, so a
  // rare collision may add a cycle or two.
  EXPECT_GE(count(r, "latency_max"), 10u);
  EXPECT_LE(count(r, "latency_max"), 12u);
  // Offered: ~Binomial(16 x 40000, 0.005): sd of the rate 8.8e-5, 4 sd 3.5e-4.
  EXPECT_NEAR(num(r, "offered_rate"), 0.005, 3.5e-4);
}

// The arbitration key reaches the fabric and the results name it: under
// fixed priority too, every measured packet arrives (it decides who waits,
// not whether a wavelet arrives).
TEST(NocArbitration, FixedPriorityIsNamedInTheResultsAndDeliversEveryMeasuredPacket) {
  const json r = simulate(
      "arch: {preset: tiny, mesh: {width: 4, height: 4}, fabric: {routing: xy, arbitration: fixed_priority}}\n"
      "workload: {type: noc, pattern: uniform_random, injection_rate: 0.2,\n"
      "           warmup_cycles: 100, measure_cycles: 2000, seed: 1}\n");
  EXPECT_EQ(r.at("arbitration"), "fixed_priority");
  EXPECT_GT(count(r, "measured_packets"), 0u);
  EXPECT_EQ(count(r, "measured_deliveries_missing"), 0u);
}

TEST(NocRowBroadcast, EveryWaveletReachesTheOtherPesOfItsRow) {
  const json r = simulate(
      "arch: {preset: tiny}\n"  // 8 x 8, color routing
      "workload: {type: noc, pattern: row_broadcast, broadcast_sources: 1, injection_rate: 0.02,\n"
      "           warmup_cycles: 1000, measure_cycles: 50000, seed: 3}\n");
  // One source per row (at x = 0 * 8 / 1 = 0) on color 0: 8 sources, and each
  // wavelet is delivered to the width - 1 = 7 other PEs of its row.
  EXPECT_EQ(r.at("routing"), "color");
  EXPECT_EQ(r.at("arbitration"), "round_robin");  // the preset's
  EXPECT_EQ(count(r, "sources"), 8u);
  EXPECT_EQ(count(r, "fanout"), 7u);
  ASSERT_EQ(count(r, "measured_deliveries_missing"), 0u);
  // Every measured packet yields one latency sample per receiving PE.
  EXPECT_EQ(count(r, "latency_samples"), 7 * count(r, "measured_packets"));
  // From x = 0 a wavelet crosses the 7 links of its row once and is copied to
  // 7 RAMPs: 7 hops and 7 deliveries per injected wavelet, less at most 7 of
  // each per wavelet still queued when the run ends.
  const std::uint64_t injected = count(r, "wavelets_injected"), queued = count(r, "wavelets_in_flight");
  EXPECT_LE(count(r, "wavelets_delivered"), 7 * injected);
  EXPECT_GE(count(r, "wavelets_delivered"), 7 * (injected - queued));
  EXPECT_LE(count(r, "wavelet_hops"), 7 * injected);
  EXPECT_GE(count(r, "wavelet_hops"), 7 * (injected - queued));

  // No contention at all: each row has its own source and links, a source
  // creates at most one packet per cycle and every link and RAMP passes one
  // wavelet per cycle, so nothing ever waits. The copy for the PE d hops away
  // (d = 1 .. 7) arrives after d + 4 cycles, every packet contributing each d
  // once: average 4 + (1 + ... + 7) / 7 = 4 + 4 = 8 exactly; median d = 4 ->
  // 8; p99 and max d = 7 -> 11.
  EXPECT_DOUBLE_EQ(num(r, "latency_avg"), 8.0);
  EXPECT_EQ(count(r, "latency_p50"), 8u);
  EXPECT_EQ(count(r, "latency_p99"), 11u);
  EXPECT_EQ(count(r, "latency_max"), 11u);

  // Offered: ~Binomial(8 x 50000, 0.02): sd of the rate sqrt(0.02 x 0.98 /
  // 4e5) = 2.2e-4, 4 sd 8.9e-4. Accepted (deliveries / 7 in the window) differs
  // by packets straddling the window's edges, ~Poisson(8 x 0.02 x <= 11
  // cycles = 1.8) per edge: allow 8 packets in 4e5 source-cycles.
  EXPECT_NEAR(num(r, "offered_rate"), 0.02, 8.9e-4);
  EXPECT_NEAR(num(r, "accepted_rate"), num(r, "offered_rate"), 8 / 4e5);
}

TEST(NocTinyRates, SourcesThatNeverFireWithinTheRunOfferNothingAndTheRunEndsWithTheWindow) {
  // At 1e-30 (and 1e-300) wavelets per cycle the first packet of every
  // source lies ~1e30 cycles away: nothing is injected, the offered and
  // accepted rates are 0, and the run ends in the cycle the window closes,
  // cycle warm-up + measurement = 1000 + 5000: 6001 cycles stepped (issue
  // 23 found a fully loaded fabric here, and a run of over 30 s).
  for (const char* workload :
       {"{type: noc, pattern: row_broadcast, injection_rate: 1e-30, warmup_cycles: 1000, measure_cycles: 5000}",
        "{type: noc, pattern: uniform_random, injection_rate: 1e-300, warmup_cycles: 1000, measure_cycles: 5000}"}) {
    const bool broadcast = std::string(workload).find("broadcast") != std::string::npos;
    const json r = simulate(std::string("arch: {preset: tiny, fabric: {routing: ") + (broadcast ? "color" : "xy") +
                            "}}\nworkload: " + workload + "\n");
    EXPECT_EQ(count(r, "measured_packets"), 0u) << workload;
    EXPECT_EQ(count(r, "wavelets_injected"), 0u) << workload;
    EXPECT_EQ(num(r, "offered_rate"), 0.0) << workload;
    EXPECT_EQ(num(r, "accepted_rate"), 0.0) << workload;
    EXPECT_EQ(count(r, "cycles"), 6001u) << workload;
  }
}

// Everything a run reports except host timings, which vary run to run.
json deterministicPart(json r) {
  r.erase("host");
  r.erase("router_cycles_per_second");
  r.erase("wavelet_hops_per_second");
  return r;
}

const char* const kSeededRun =
    "arch: {preset: tiny, fabric: {routing: xy}}\n"
    "workload: {type: noc, pattern: uniform_random, injection_rate: 0.05,\n"
    "           warmup_cycles: 200, measure_cycles: 2000, seed: %d}\n";

std::string seeded(int seed) {
  char yaml[512];
  std::snprintf(yaml, sizeof yaml, kSeededRun, seed);
  return yaml;
}

TEST(NocDeterminism, SameSeedGivesIdenticalResults) {
  const json a = deterministicPart(simulate(seeded(7)));
  const json b = deterministicPart(simulate(seeded(7)));
  EXPECT_EQ(a, b) << a.dump(2) << "\n" << b.dump(2);
  EXPECT_GT(count(a, "measured_packets"), 0u);
}

TEST(NocDeterminism, DifferentSeedsGiveDifferentResults) {
  const json a = deterministicPart(simulate(seeded(7)));
  const json b = deterministicPart(simulate(seeded(8)));
  EXPECT_NE(a, b);
  // Different traffic, not only different bookkeeping: ~6400 packets each
  // (64 x 2000 x 0.05), the counts differ (sd ~80) and so do the hop totals.
  EXPECT_NE(a.at("wavelet_hops"), b.at("wavelet_hops"));
  EXPECT_NE(a.at("latency_avg"), b.at("latency_avg"));
}

// Workload construction only (no simulation): the ConfigError's message.
std::string constructionError(const std::string& yaml) {
  try {
    prepare(yaml);
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a ConfigError";
  return "";
}

TEST(NocConfig, AddressedPatternsNeedXyRouting) {
  for (const char* pattern : {"uniform_random", "transpose", "bit_complement", "hotspot", "nearest_neighbour"}) {
    const std::string message = constructionError(std::string("arch: {preset: tiny, fabric: {routing: color}}\n") +
                                                  "workload: {type: noc, pattern: " + pattern + "}\n");
    EXPECT_NE(message.find("arch.fabric.routing"), std::string::npos) << pattern << ": " << message;
    EXPECT_NE(message.find("xy"), std::string::npos) << pattern << ": " << message;
    EXPECT_NE(message.find(pattern), std::string::npos) << pattern << ": " << message;
  }
}

TEST(NocConfig, BroadcastPatternsNeedColorRouting) {
  for (const char* pattern : {"row_broadcast", "column_broadcast"}) {
    const std::string message = constructionError(std::string("arch: {preset: tiny, fabric: {routing: xy}}\n") +
                                                  "workload: {type: noc, pattern: " + pattern + "}\n");
    EXPECT_NE(message.find("arch.fabric.routing = color"), std::string::npos) << pattern << ": " << message;
  }
}

TEST(NocConfig, TransposeNeedsASquareMesh) {
  const std::string message = constructionError(
      "arch: {preset: tiny, mesh: {height: 4}, fabric: {routing: xy}}\nworkload: {type: noc, pattern: transpose}\n");
  EXPECT_NE(message.find("square"), std::string::npos) << message;
  EXPECT_NE(message.find("8x4"), std::string::npos) << message;
}

TEST(NocConfig, BroadcastSourcesAreLimitedByColorsAndRowLength) {
  // At most min(width 8, colors 24) = 8 sources per row: one color each.
  const std::string message = constructionError(
      "arch: {preset: tiny}\nworkload: {type: noc, pattern: row_broadcast, broadcast_sources: 9}\n");
  EXPECT_NE(message.find("workload.broadcast_sources"), std::string::npos) << message;
  EXPECT_NE(message.find("[1, 8]"), std::string::npos) << message;
}

}  // namespace
}  // namespace wsesim::noc
