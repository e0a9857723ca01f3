#include <cstdio>
#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "hw/common/MessageText.h"
#include "hw/config/ArchConfig.h"
#include "hw/common/ConfigError.h"
#include "hw/config/ConfigTree.h"
#include "hw/config/ParamReader.h"
#include "testbench/cli/Cli.h"
#include "testbench/cli/ListingCommand.h"

namespace wsesim::cli {
namespace {

config::ArchConfig readPreset(const std::string& name, const std::filesystem::path& dir) {
  config::ConfigTree tree;
  tree.set("arch.preset", name, "wsesim presets");
  tree.applyPreset(dir);
  config::ParamReader params(tree);
  return config::ArchConfig::read(params);
}

std::string tableLine(const std::string& name, const config::ArchConfig& a) {
  const double pes = double(a.mesh.width) * a.mesh.height;
  char line[256];
  std::snprintf(line, sizeof line, "%-8s %5ux%-5u %9.0f %6.0f KiB %6.2f GiB %4.2f GHz %6u %5u %5u  %s\n",
                name.c_str(), a.mesh.width, a.mesh.height, pes, double(a.pe.sramBytes) / 1024,
                pes * double(a.pe.sramBytes) / double(1ull << 30), a.clockHz / 1e9, a.fabric.colors,
                a.fabric.queueDepth, a.fabric.hopLatencyCycles, a.description.c_str());
  return line;
}

nlohmann::json jsonEntry(const std::string& name, const std::filesystem::path& dir, const config::ArchConfig& a) {
  return {{"name", name},
          {"file", (dir / (name + ".yaml")).string()},
          {"description", a.description},
          {"mesh_width", a.mesh.width},
          {"mesh_height", a.mesh.height},
          {"sram_bytes", a.pe.sramBytes},
          {"clock_hz", a.clockHz},
          {"colors", a.fabric.colors},
          {"queue_depth", a.fabric.queueDepth},
          {"hop_latency_cycles", a.fabric.hopLatencyCycles}};
}

}  // namespace

int presetsCommand(int argc, char** argv, std::ostream& out, std::ostream& err) {
  const std::optional<ListingFormat> format = parseListingFormat(argc, argv, err);
  if (!format) return kUsageError;
  const std::filesystem::path dir = config::defaultPresetDir();
  const std::vector<std::string> names = config::presetNames(dir);
  if (names.empty()) {
    err << "wsesim: no presets found in " << dir.string() << " (set WSESIM_PRESET_DIR)\n";
    return kConfigError;
  }
  std::string table;
  nlohmann::json entries = nlohmann::json::array();
  for (const std::string& name : names) {
    try {
      const config::ArchConfig arch = readPreset(name, dir);
      table += tableLine(name, arch);
      entries.push_back(jsonEntry(name, dir, arch));
    } catch (const config::ConfigError& e) {
      err << "wsesim: preset " << oneLine(name) << " is invalid: " << oneLine(e.what()) << "\n";
      return kConfigError;
    }
  }
  if (format == ListingFormat::kJson) {
    out << listingDocument("preset_dir", dir, "presets", std::move(entries)).dump(2) << "\n";
    return kOk;
  }
  char header[256];
  std::snprintf(header, sizeof header, "%-8s %11s %9s %9s %10s %7s %6s %5s %5s  %s\n", "preset", "mesh", "PEs",
                "SRAM/PE", "SRAM total", "clock", "colors", "queue", "hop", "description");
  out << "presets in " << dir.string() << "\n" << header << table;
  return kOk;
}

}  // namespace wsesim::cli
