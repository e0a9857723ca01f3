#include "testbench/cli/Cli.h"

#include <exception>
#include <new>
#include <ostream>
#include <string>

#include "hw/common/MessageText.h"

namespace wsesim::cli {
namespace {

const char* kUsage =
    "wsesim " WSESIM_VERSION ": cycle-approximate model of a wafer-scale engine\n"
    "\n"
    "usage:\n"
    "  wsesim run CONFIG.yaml [--set key=value]... [--out RESULT.json] [--vcd TRACE.vcd] [--map MAP.json]\n"
    "             [--timeline TIMELINE.json]\n"
    "      simulate the run CONFIG describes (sections arch, workload, run);\n"
    "      --set overrides any dotted key, e.g. --set arch.pe.sram_bytes=98304;\n"
    "      --map writes per-PE and per-link statistics for heatmaps (scripts/plot.py --map);\n"
    "      --timeline TIMELINE.json writes the tasks, link loads and phases of run.vcd.region\n"
    "      as a Chrome trace for ui.perfetto.dev\n"
    "  wsesim presets [--format table|json]\n"
    "      list the architecture presets (arch.preset) with their key numbers and the\n"
    "      directory they are read from ($WSESIM_PRESET_DIR, else the source tree's)\n"
    "  wsesim models [--format table|json]\n"
    "      list the model zoo (workload.model) with shapes and parameter counts and the\n"
    "      directory it is read from ($WSESIM_MODEL_DIR, else the source tree's models/zoo)\n"
    "  wsesim keys [--preset NAME] [--format table|markdown|json] [--set key=value]...\n"
    "      list every configuration key with its type, range, default (the preset's,\n"
    "      default wse2), where the default comes from, and what it means\n"
    "  wsesim --help\n"
    "\n"
    "exit status: 0 ok, 1 usage, 2 configuration error, 3 simulation failed, 4 cannot write output,\n"
    "             128 + n interrupted by signal n (unfinished outputs removed)\n";

}  // namespace

int main(int argc, char** argv, std::ostream& out, std::ostream& err) {
  // Nothing escapes to SystemC, which would print E549 on stdout and exit 1:
  // every failure is a line on stderr and a documented status.
  try {
    return dispatch(argc, argv, out, err);
  } catch (const std::bad_alloc&) {
    err << "wsesim: out of host memory (std::bad_alloc); run.max_host_bytes bounds what a run may plan to take\n";
  } catch (const std::exception& e) {
    err << "wsesim: internal error: " << oneLine(e.what()) << "\n";
  } catch (...) {
    err << "wsesim: internal error: an exception of unknown type\n";
  }
  return kSimulationError;
}

int dispatch(int argc, char** argv, std::ostream& out, std::ostream& err) {
  const std::string command = argc > 1 ? argv[1] : "";
  if (command == "--help" || command == "-h" || command == "help") {
    out << kUsage;
    return kOk;
  }
  if (command == "run") return runCommand(argc - 1, argv + 1, out, err);
  if (command == "presets") return presetsCommand(argc - 1, argv + 1, out, err);
  if (command == "models") return modelsCommand(argc - 1, argv + 1, out, err);
  if (command == "keys") return keysCommand(argc - 1, argv + 1, out, err);
  err << (command.empty() ? "wsesim: missing command\n" : "wsesim: unknown command '" + command + "'\n") << kUsage;
  return kUsageError;
}

}  // namespace wsesim::cli
