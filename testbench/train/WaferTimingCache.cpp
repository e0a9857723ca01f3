#include "testbench/train/WaferTimingCache.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "testbench/results/AtomicFile.h"
#include "testbench/results/EnergyReport.h"

namespace wsesim::train {
namespace {

std::uint64_t fnv1a(const std::string& bytes, std::uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string hex(std::uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", (unsigned long long)v);
  return text;
}

// The running executable's contents, hashed: any change to the simulator changes it.
std::string executableHash() {
  std::ifstream exe("/proc/self/exe", std::ios::binary);
  if (!exe) throw std::runtime_error("run.wafer_timing_cache: cannot read /proc/self/exe to key the cache");
  return hex(fnv1a(std::string(std::istreambuf_iterator<char>(exe), {})));
}

bool excluded(const std::string& key) {
  for (const char* prefix : {"arch.memoryx.", "arch.swarmx.", "arch.cluster.", "arch.energy.", "arch.area.", "run."})
    if (key.rfind(prefix, 0) == 0) return true;
  for (const char* exact : {"workload.steps", "workload.optimizer", "workload.wafers"})
    if (key == exact) return true;
  // How the step is laid out: the entry is keyed by the GEMMs the layout
  // gives instead (TrainWorkload), so a layout given and the same one
  // `auto` chose share it.
  for (const char* exact : {"workload.micro_batch", "workload.activation_recompute", "workload.activation_offload"})
    if (key == exact) return true;
  return false;
}

// The entry is the cache's own file, always written as a regular file
// (a temporary renamed over the name): whatever else was planted under the
// name (a FIFO that would wait for a reader, a symlink, a device node) is
// replaced, not written through as a user's output path would be.
results::OutputTarget entryTarget(const std::filesystem::path& file) {
  results::OutputTarget target;
  target.given = file.string();
  target.path = file;
  return target;
}

}  // namespace

std::string waferTimingKey(const std::map<std::string, config::ResolvedParam>& resolved) {
  std::string key;
  for (const auto& [name, param] : resolved)
    if (!excluded(name)) key += name + "=" + param.text + "\n";
  return key;
}

WaferTimingCache::WaferTimingCache(const std::filesystem::path& dir, const std::string& key)
    : key_(key + "executable=" + executableHash() + "\n"), file_(dir / ("train-" + hex(fnv1a(key_)) + ".json")) {}

std::optional<WaferTiming> WaferTimingCache::load() const {
  // Only a regular file of a sane size is ours to read (a FIFO or a device
  // planted under the name would block or never end): anything else, a
  // different key under the same hash or a damaged entry, and the run simulates.
  constexpr std::uintmax_t kLargestEntry = std::uintmax_t(16) << 20;
  std::error_code error;
  if (!std::filesystem::is_regular_file(file_, error) || std::filesystem::file_size(file_, error) > kLargestEntry || error)
    return std::nullopt;
  std::ifstream in(file_);
  if (!in) return std::nullopt;
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || doc.value("key", "") != key_) return std::nullopt;
  try {
    WaferTiming t;
    for (const nlohmann::json& g : doc.at("gemms"))
      t.gemms.push_back(GemmTiming{g.at(0).get<std::uint64_t>(), g.at(1).get<std::uint64_t>(),
                                   g.at(2).get<std::uint64_t>(), results::actionsFromJson(g.at(3))});
    t.simulatedCycles = doc.at("simulated_cycles").get<std::uint64_t>();
    t.weightsIn = doc.at("weights_in").get<std::uint64_t>();
    t.gradientsOut = doc.at("gradients_out").get<std::uint64_t>();
    return t;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

void WaferTimingCache::store(const WaferTiming& timing) const {
  nlohmann::json gemms = nlohmann::json::array();
  for (const GemmTiming& g : timing.gemms)
    gemms.push_back({g.cycles, g.inputEnd, g.streamedBytes, results::actionsJson(g.actions)});
  const nlohmann::json doc = {{"key", key_},
                              {"gemms", gemms},
                              {"simulated_cycles", timing.simulatedCycles},
                              {"weights_in", timing.weightsIn},
                              {"gradients_out", timing.gradientsOut}};
  createDirectory();
  results::writeOutput(entryTarget(file_), doc.dump(1) + "\n");
}

void WaferTimingCache::createDirectory() const {
  std::error_code error;
  std::filesystem::create_directories(file_.parent_path(), error);
  if (error)
    throw std::runtime_error("run.wafer_timing_cache: cannot create " + file_.parent_path().string() + ": " +
                             error.message());
}

void WaferTimingCache::checkStorable() const {
  std::error_code error;
  std::filesystem::create_directories(file_.parent_path(), error);
  try {
    if (error) throw std::runtime_error("cannot create " + file_.parent_path().string() + ": " + error.message());
    results::checkWritable(entryTarget(file_));
  } catch (const std::exception& e) {
    throw std::runtime_error("run.wafer_timing_cache: the wafer's timing could not be kept in " + file_.string() +
                             " (checked before simulating): " + e.what());
  }
}

}  // namespace wsesim::train
