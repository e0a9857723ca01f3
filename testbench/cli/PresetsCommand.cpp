#include <cstdio>
#include <ostream>

#include "hw/config/ArchConfig.h"
#include "hw/config/ConfigError.h"
#include "hw/config/ConfigTree.h"
#include "hw/config/ParamReader.h"
#include "testbench/cli/Cli.h"

namespace wsesim::cli {

int presetsCommand(std::ostream& out, std::ostream& err) {
  const std::filesystem::path dir = config::defaultPresetDir();
  const std::vector<std::string> names = config::presetNames(dir);
  if (names.empty()) {
    err << "wsesim: no presets found in " << dir.string() << " (set WSESIM_PRESET_DIR)\n";
    return kConfigError;
  }
  char line[256];
  std::snprintf(line, sizeof line, "%-8s %11s %9s %9s %10s %7s %6s %5s %5s  %s\n", "preset", "mesh", "PEs",
                "SRAM/PE", "SRAM total", "clock", "colors", "queue", "hop", "description");
  out << "presets in " << dir.string() << "\n" << line;
  for (const std::string& name : names) {
    try {
      config::ConfigTree tree;
      tree.set("arch.preset", name, "wsesim presets");
      tree.applyPreset(dir);
      config::ParamReader params(tree);
      const config::ArchConfig a = config::ArchConfig::read(params);
      const double pes = double(a.mesh.width) * a.mesh.height;
      std::snprintf(line, sizeof line, "%-8s %5ux%-5u %9.0f %6.0f KiB %6.2f GiB %4.2f GHz %6u %5u %5u  %s\n",
                    name.c_str(), a.mesh.width, a.mesh.height, pes, double(a.pe.sramBytes) / 1024,
                    pes * double(a.pe.sramBytes) / double(1ull << 30), a.clockHz / 1e9, a.fabric.colors,
                    a.fabric.queueDepth, a.fabric.hopLatencyCycles, a.description.c_str());
      out << line;
    } catch (const config::ConfigError& e) {
      err << "wsesim: preset " << name << " is invalid: " << e.what() << "\n";
      return kConfigError;
    }
  }
  return kOk;
}

}  // namespace wsesim::cli
