#include <boost/program_options.hpp>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <ostream>
#include <systemc>

#include "hw/config/ArchConfig.h"
#include "hw/config/ConfigError.h"
#include "hw/config/RunConfig.h"
#include "hw/fabric/FabricError.h"
#include "testbench/cli/Cli.h"
#include "testbench/cli/ProgressLine.h"
#include "testbench/results/AtomicFile.h"
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
  po::options_description options("wsesim run options");
  options.add_options()("set", po::value(&args.overrides)->composing(), "override a key: dotted.key=value")(
      "out", po::value(&args.outFile), "write the result JSON here (atomically)")(
      "vcd", po::value(&args.vcdFile), "write a VCD waveform of run.vcd.region here")(
      "map", po::value(&args.mapFile), "write per-PE and per-link statistics (JSON) here, for scripts/plot.py --map")(
      "timeline", po::value(&args.timelineFile),
      "write a timeline of run.vcd.region (Chrome trace JSON, for ui.perfetto.dev) here")(
      "config", po::value(&args.configFile)->required(), "the run's YAML configuration");
  po::positional_options_description positional;
  positional.add("config", 1);
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(options).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    err << "wsesim run: " << e.what() << "\n"
        << "usage: wsesim run CONFIG.yaml [--set key=value]... [--out RESULT.json] [--vcd TRACE.vcd] [--map MAP.json]\n"
           "       [--timeline TIMELINE.json]\n";
    return kUsageError;
  }

  const auto wallStart = std::chrono::steady_clock::now();
  std::unique_ptr<config::ParamReader> params;
  config::ConfigTree tree;
  config::ArchConfig arch;
  std::unique_ptr<workload::Workload> work;
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
  } catch (const config::ConfigError& e) {
    err << "wsesim: configuration error: " << e.what() << "\n";
    return kConfigError;
  }

  const std::string vcdBase = args.vcdFile.empty() ? "" : partialVcdBase(args.vcdFile);
  // Find out now, not after a long run, that the waveform cannot be written.
  if (!vcdBase.empty()) {
    if (std::FILE* probe = std::fopen((vcdBase + ".vcd").c_str(), "w")) {
      std::fclose(probe);
    } else {
      err << "wsesim: cannot write the waveform " << args.vcdFile << ": " << std::strerror(errno) << "\n";
      return kOutputError;
    }
  }
  try {
    // Progress goes to a terminal only: logs and pipes (and tests' streams) stay quiet.
    const bool terminal = &err == &std::cerr && ::isatty(STDERR_FILENO);
    ProgressLine progress(err);
    work->run(workload::RunOptions{vcdBase, !args.mapFile.empty(), !args.timelineFile.empty(),
                                   terminal ? &progress : nullptr});
  } catch (const std::exception& e) {
    if (!vcdBase.empty()) std::filesystem::remove(vcdBase + ".vcd");
    err << "wsesim: simulation failed: " << e.what() << "\n";
    return kSimulationError;
  }

  results::RunMeasurements measured;
  measured.cycles = work->cycles();
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
