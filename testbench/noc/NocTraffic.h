#pragma once
// Drives a NoC experiment on the wafer: the PEs' traffic sources inject,
// the PEs' sinks record what arrives, and the run ends once every packet
// created in the measurement window has been delivered (or drain_cycles
// have passed). Latency is from the creation of a packet's head at the
// source (so it includes source queueing and both ramps) to the arrival of
// its tail at the destination PE. Every wavelet of a packet carries the
// packet's creation cycle as its payload, modulo 2^32, as a NoC traffic
// generator timestamps its packets: latencies are exact below 2^32 cycles.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hw/fabric/FabricKernel.h"
#include "hw/sim/CycleDriver.h"
#include "hw/sim/WakeCalendar.h"
#include "testbench/noc/NocConfig.h"
#include "testbench/noc/TrafficSource.h"

namespace wsesim::noc {

struct LatencyStats {
  std::uint64_t samples = 0;
  double average = 0;
  std::uint64_t p50 = 0, p99 = 0, max = 0;
};

class NocTraffic : public sim::CycleDriver, public fabric::WaveletSink {
 public:
  // Sources are the PEs given; `fanout` is how many PEs receive each
  // wavelet. Each of `fabric`'s bands injects its own sources' wavelets.
  NocTraffic(const NocConfig& config, const fabric::FabricKernel& fabric, std::vector<fabric::RouterId> sources,
             std::vector<std::uint8_t> sourceColors, std::uint32_t fanout);

  void beginCycle(std::uint64_t now, fabric::FabricKernel& fabric) override;
  std::uint64_t nextActivity(std::uint64_t now) const override;
  bool finished(std::uint64_t now, const fabric::FabricKernel& fabric) const override;
  // Through warm-up and measurement; the drain that follows counts as the last moment.
  double progress(std::uint64_t now) const override { return std::min(1.0, double(now) / double(measureEnd())); }
  void deliver(fabric::RouterId at, const fabric::Wavelet& w, std::uint64_t arrivalCycle) override;

  std::uint64_t measureStart() const { return config_.warmupCycles; }
  std::uint64_t measureEnd() const { return config_.warmupCycles + config_.measureCycles; }
  std::size_t sources() const { return sources_.size(); }
  std::uint32_t fanout() const { return fanout_; }
  // Wavelets created by the sources during the measurement window.
  std::uint64_t measuredWaveletsCreated() const { return measuredPackets() * config_.packetWavelets; }
  std::uint64_t measuredPackets() const;
  // Copies of measured packets not delivered (a packet has `fanout` copies).
  std::uint64_t measuredDeliveriesMissing() const { return measuredPackets() * fanout_ - measuredTailsArrived_; }
  // Deliveries arriving within the measurement window (every copy counts).
  std::uint64_t windowDeliveries() const { return windowDeliveries_; }
  LatencyStats latency() const;

  // Link transfer counts at the start and end of the window, per router x port.
  const std::vector<std::uint64_t>& transfersAtStart() const { return transfersAtStart_; }
  const std::vector<std::uint64_t>& transfersAtEnd() const { return transfersAtEnd_; }

 private:
  // The sources of one band of the fabric, injected by the thread that
  // steps the band's routers (FabricKernel::forEachBand).
  struct SourceBand {
    // Sources whose current packet exists (created <= now), retried each
    // cycle, in increasing order.
    std::vector<std::uint32_t> ready;
    // Sources waiting for their next packet's creation.
    sim::WakeCalendar waiting;
    // Measured packets that left their source (closeWindow counts the others).
    std::uint64_t measuredPackets = 0;
  };
  // Offers each ready source's next wavelet, in source order.
  void inject(SourceBand& band, std::uint64_t now, fabric::FabricKernel& fabric);
  void snapshot(const fabric::FabricKernel& fabric, std::vector<std::uint64_t>& into) const;
  void closeWindow();
  bool inWindow(std::uint64_t cycle) const { return cycle >= measureStart() && cycle < measureEnd(); }

  NocConfig config_;
  fabric::MeshGeometry mesh_;
  TrafficPattern pattern_;
  std::uint32_t fanout_;
  std::vector<TrafficSource> sources_;
  std::vector<SourceBand> bands_;
  std::size_t readyLastCycle_ = 0;  // sources ready at the end of the last cycle

  bool windowOpen_ = false, windowClosed_ = false;
  std::uint64_t measuredPackets_ = 0;  // those closeWindow() found still at their sources
  std::uint64_t measuredTailsArrived_ = 0;
  std::uint64_t windowDeliveries_ = 0;
  std::vector<std::uint64_t> latencyHistogram_;  // index: cycles
  std::vector<std::uint64_t> transfersAtStart_, transfersAtEnd_;
};

}  // namespace wsesim::noc
