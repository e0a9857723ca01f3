#pragma once
// The figures a run on the system model reports (docs/system-model.md),
// shared by the workloads that run on it: traffic per link class, MemoryX's
// exposed fetches and optimizer time, each system's wafer in time, and what
// bound each streamed task.

#include <nlohmann/json.hpp>

#include <string>

#include "hw/config/ArchConfig.h"
#include "hw/energy/ActionCounts.h"
#include "hw/system/Cluster.h"

namespace wsesim::results {

// What held a streamed task back: `compute` (the wafer itself),
// `activations` (its offloaded activations coming back, or earlier ones
// still leaving), or the slowest part of the weights' way in: `memoryx`
// when its fetch was exposed, else the slower of SwarmX's links (`swarmx`)
// and the I/O ring (`io_ring`).
std::string streamBound(const system::TaskRecord& record, const system::LayerStream& stream,
                        const config::ArchConfig& arch);

// Bytes, transfers and busy seconds of memoryx_storage, swarmx_broadcast,
// swarmx_reduce, io_ring_ingress and io_ring_egress (the rings summed over systems).
nlohmann::json clusterTraffic(const system::Cluster& cluster);

// The actions outside the wafers for the energy model: MemoryX's storage
// bytes and the parameters its optimizer updated, the bytes SwarmX carried
// (broadcast and reduce), and the I/O rings' bytes (every system's).
energy::ActionCounts clusterActions(const system::Cluster& cluster);

// exposed_fetch_seconds, optimizer_busy_seconds, updates, gradient
// accumulations and their bytes, activations offloaded and fetched (bytes).
nlohmann::json memoryxFigures(const system::Cluster& cluster);

// Per system: wafer_busy_seconds, wafer_idle_seconds (waiting for weights
// or activations), wafer_activation_wait_seconds (of it, for activations),
// wafer_end_seconds, from the cluster's start.
nlohmann::json perSystemTiming(const system::Cluster& cluster);

// Per task kind, the streamed tasks of system 0 by their bound: tasks and
// the seconds the wafer waited.
nlohmann::json streamBounds(const system::Cluster& cluster, const config::ArchConfig& arch);

}  // namespace wsesim::results
