#include <boost/program_options.hpp>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <ostream>
#include <systemc>

#include "hw/config/ArchConfig.h"
#include "hw/config/ConfigError.h"
#include "hw/config/RunConfig.h"
#include "hw/fabric/FabricError.h"
#include "testbench/cli/Cli.h"
#include "testbench/cli/ProgressLine.h"
#include "testbench/results/AtomicFile.h"
#include "testbench/results/HostStats.h"
#include "testbench/results/ResultDocument.h"
#include "testbench/workload/Workload.h"

namespace wsesim::cli {
namespace po = boost::program_options;

namespace {

struct RunArguments {
  std::string configFile;
  std::vector<std::string> overrides;
  std::string outFile;
  std::string vcdFile;
  std::string mapFile;
  std::string timelineFile;
};

const char* const kRunUsage =
    "usage: wsesim run CONFIG.yaml [--set key=value]... [--out RESULT.json] [--vcd TRACE.vcd] [--map MAP.json]\n"
    "       [--timeline TIMELINE.json]\n";

// What each option's value is, for the messages.
const std::map<std::string, std::string> kOptionValues = {
    {"set", "dotted.key=value"}, {"out", "RESULT.json"}, {"vcd", "TRACE.vcd"},
    {"map", "MAP.json"},         {"timeline", "TIMELINE.json"}};

// A command line that cannot be run, in the CLI's own words (Boost's speak
// of a '--config' option there is none of, or of "positional options").
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string optionList() {
  std::string list;
  for (const auto& [name, value] : kOptionValues) list += (list.empty() ? "--" : ", --") + name;
  return list;
}

RunArguments parseRunArguments(int argc, char** argv) {
  RunArguments args;
  std::vector<std::string> configFiles;
  po::options_description options("wsesim run options");
  options.add_options()("set", po::value(&args.overrides)->composing(), "override a key: dotted.key=value")(
      "out", po::value(&args.outFile), "write the result JSON here (atomically)")(
      "vcd", po::value(&args.vcdFile), "write a VCD waveform of run.vcd.region here")(
      "map", po::value(&args.mapFile), "write per-PE and per-link statistics (JSON) here, for scripts/plot.py --map")(
      "timeline", po::value(&args.timelineFile),
      "write a timeline of run.vcd.region (Chrome trace JSON, for ui.perfetto.dev) here");
  po::options_description positionalOnly;
  positionalOnly.add_options()("config-file", po::value(&configFiles));
  po::options_description all;
  all.add(options).add(positionalOnly);
  po::positional_options_description positional;
  positional.add("config-file", -1);
  // No abbreviations: '--ou' is a typo, not --out.
  const int style = po::command_line_style::unix_style & ~po::command_line_style::allow_guessing;
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(all).positional(positional).style(style).run(), vm);
    po::notify(vm);
  } catch (const po::unknown_option& e) {
    throw UsageError("unknown option '" + e.get_option_name() + "' (the options are " + optionList() + ")");
  } catch (const po::invalid_command_line_syntax& e) {
    const std::string name = e.get_option_name().substr(e.get_option_name().find_first_not_of('-'));
    const auto value = kOptionValues.find(name);
    throw UsageError("--" + name + " needs a value: --" + name + " " +
                     (value == kOptionValues.end() ? "VALUE" : value->second));
  } catch (const po::multiple_occurrences& e) {
    throw UsageError(e.get_option_name() + " is given more than once; give one file");
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  // Boost takes '--set --out' as the value '--out' of --set.
  for (const auto& [name, value] : {std::pair<const char*, const std::string*>{"out", &args.outFile},
                                     {"vcd", &args.vcdFile}, {"map", &args.mapFile}, {"timeline", &args.timelineFile}})
    if (value->rfind("-", 0) == 0 && value->size() > 1)
      throw UsageError(std::string("--") + name + " needs a value: --" + name + " " + kOptionValues.at(name) +
                       ", not the option '" + *value + "'");
  for (const std::string& assignment : args.overrides)
    if (assignment.rfind("-", 0) == 0)
      throw UsageError("--set needs a value: --set dotted.key=value, not the option '" + assignment + "'");
  if (configFiles.empty())
    throw UsageError("no configuration file given: name the run's YAML file, e.g. wsesim run testbench/configs/noc_small.yaml");
  if (configFiles.size() > 1)
    throw UsageError("one configuration file expected, got '" + configFiles[0] + "' and '" + configFiles[1] +
                     "' (an option's value after an option that takes none?)");
  args.configFile = configFiles.front();
  return args;
}

std::string formatBytes(std::uint64_t bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f GiB (%llu bytes)", double(bytes) / double(1ull << 30),
                (unsigned long long)bytes);
  return text;
}

// Refuses, before anything is built, a run that plans to take more host
// memory than it may (a bad_alloc or the OOM killer hours later otherwise);
// returns the estimate and the limit, for a failure that happens anyway.
std::string checkHostMemory(const workload::Workload& work, const config::ArchConfig& arch,
                            const config::RunConfig& run) {
  const std::uint64_t planned = work.plannedHostBytes();
  const std::uint64_t limit = run.maxHostBytes ? *run.maxHostBytes : results::availableHostBytes();
  const std::string limitText =
      formatBytes(limit) + (run.maxHostBytes ? " (run.max_host_bytes)"
                                             : " (the host's available memory, MemAvailable in /proc/meminfo)");
  if (limit != 0 && planned > limit)
    throw config::ConfigError("the run needs an estimated " + formatBytes(planned) + " of host memory for its " +
                              std::to_string(arch.mesh.width) + " x " + std::to_string(arch.mesh.height) +
                              " mesh (arch.mesh" +
                              (run.mode == config::DataMode::Functional
                                   ? ", and arch.pe.sram_bytes = " + std::to_string(arch.pe.sramBytes) +
                                         " per PE in functional mode"
                                   : std::string()) +
                              "), more than the limit " + limitText +
                              ": make arch.mesh smaller, use run.mode: timing (no SRAM bytes), or set "
                              "run.max_host_bytes if the estimate is too high for this run");
  return "estimated " + formatBytes(planned) + " before the run, limit " + limitText;
}

// A VCD being written lives under a temporary name until the run succeeds.
std::string partialVcdBase(const std::string& vcdFile) { return vcdFile + ".partial"; }
// trace.vcd -> trace_system.vcd: the system model's waveform beside the wafer's.
std::string systemVcdFile(const std::string& vcdFile) {
  const std::filesystem::path p(vcdFile);
  return (p.parent_path() / (p.stem().string() + "_system.vcd")).string();
}

}  // namespace

int runCommand(int argc, char** argv, std::ostream& out, std::ostream& err) {
  RunArguments args;
  try {
    args = parseRunArguments(argc, argv);
  } catch (const UsageError& e) {
    err << "wsesim run: " << e.what() << "\n" << kRunUsage;
    return kUsageError;
  }

  const auto wallStart = std::chrono::steady_clock::now();
  std::unique_ptr<config::ParamReader> params;
  config::ConfigTree tree;
  config::ArchConfig arch;
  std::unique_ptr<workload::Workload> work;
  std::string memoryVerdict;
  try {
    tree = config::ConfigTree::fromFile(args.configFile);
    for (const std::string& assignment : args.overrides) tree.applyOverride(assignment);
    tree.applyPreset(config::defaultPresetDir());
    params = std::make_unique<config::ParamReader>(tree);
    arch = config::ArchConfig::read(*params);
    const config::RunConfig run = config::RunConfig::read(*params, arch);
    std::vector<std::string> types;
    for (const auto& [name, factory] : workload::workloadTypes()) types.push_back(name);
    const std::string type = params->choice("workload.type", types);
    work = workload::workloadTypes().at(type)(*params, arch, run);
    params->rejectUnknownKeys();
    memoryVerdict = checkHostMemory(*work, arch, run);
  } catch (const config::ConfigError& e) {
    err << "wsesim: configuration error: " << e.what() << "\n";
    return kConfigError;
  }

  const std::string vcdBase = args.vcdFile.empty() ? "" : partialVcdBase(args.vcdFile);
  // Find out now, not after a long run, that an output cannot be written.
  // The waveform is written under its temporary name, then renamed.
  const std::pair<const char*, std::string> outputs[] = {
      {"--out", args.outFile}, {"--vcd", args.vcdFile}, {"--vcd", vcdBase.empty() ? "" : vcdBase + ".vcd"},
      {"--map", args.mapFile}, {"--timeline", args.timelineFile}};
  for (const auto& [option, file] : outputs) {
    if (file.empty()) continue;
    try {
      results::checkWritable(file);
    } catch (const std::exception& e) {
      err << "wsesim: cannot write " << option << " " << file << ": " << e.what() << "\n";
      return kOutputError;
    }
  }
  try {
    // Progress goes to a terminal only: logs and pipes (and tests' streams) stay quiet.
    const bool terminal = &err == &std::cerr && ::isatty(STDERR_FILENO);
    ProgressLine progress(err);
    work->run(workload::RunOptions{vcdBase, !args.mapFile.empty(), !args.timelineFile.empty(),
                                   terminal ? &progress : nullptr});
  } catch (const std::bad_alloc&) {
    if (!vcdBase.empty()) std::filesystem::remove(vcdBase + ".vcd");
    err << "wsesim: simulation failed: out of host memory (" << memoryVerdict << ")\n";
    return kSimulationError;
  } catch (const std::exception& e) {
    if (!vcdBase.empty()) std::filesystem::remove(vcdBase + ".vcd");
    err << "wsesim: simulation failed: " << e.what() << "\n";
    return kSimulationError;
  }

  results::RunMeasurements measured;
  measured.cycles = work->cycles();
  measured.plannedHostBytes = work->plannedHostBytes();
  measured.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
  const nlohmann::json doc = results::resultDocument(*params, arch, measured, work->results());
  out << work->summary();
  out << "  simulated " << measured.cycles << " cycles (" << doc["simulated_seconds"].get<double>() * 1e6
      << " us) in " << measured.wallSeconds << " s wall, peak RSS "
      << doc["host"]["peak_rss_bytes"].get<std::uint64_t>() / (1 << 20) << " MiB\n";
  try {
    if (!vcdBase.empty()) {
      results::publishFile(vcdBase + ".vcd", args.vcdFile);
      out << "  waveform: " << args.vcdFile << "\n";
      if (!work->systemWaveform().empty()) {
        results::writeFileAtomically(systemVcdFile(args.vcdFile), work->systemWaveform());
        out << "  system waveform: " << systemVcdFile(args.vcdFile) << "\n";
      }
    }
    if (!args.timelineFile.empty()) {
      results::writeFileAtomically(args.timelineFile, work->timeline());
      out << "  timeline: " << args.timelineFile << "\n";
    }
    if (!args.mapFile.empty()) {
      results::writeFileAtomically(args.mapFile, work->waferMap().dump() + "\n");
      out << "  wafer map: " << args.mapFile << "\n";
    }
    if (!args.outFile.empty()) {
      results::writeFileAtomically(args.outFile, doc.dump(2) + "\n");
      out << "  results:  " << args.outFile << "\n";
    }
  } catch (const std::exception& e) {
    err << "wsesim: " << e.what() << "\n";
    return kOutputError;
  }
  return kOk;
}

}  // namespace wsesim::cli
