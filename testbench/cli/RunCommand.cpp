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
#include "testbench/cli/RunArguments.h"
#include "testbench/results/AtomicFile.h"
#include "testbench/results/HostStats.h"
#include "testbench/results/ResultDocument.h"
#include "testbench/workload/Workload.h"

namespace wsesim::cli {
namespace {

std::string formatBytes(std::uint64_t bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f GiB (%llu bytes)", double(bytes) / double(1ull << 30),
                (unsigned long long)bytes);
  return text;
}

std::string meshText(const fabric::MeshGeometry& mesh) {
  return std::to_string(mesh.width) + " x " + std::to_string(mesh.height);
}

// What shrinks the mesh simulated: a mesh narrowed to the columns a GEMM's
// rows need keeps every row of arch.mesh, so only fewer rows help.
std::string shrinkAdvice(const fabric::MeshGeometry& simulated, const fabric::MeshGeometry& arch) {
  if (simulated.width < arch.width && simulated.height == arch.height)
    return "make arch.mesh.height smaller (the mesh simulated has all " + std::to_string(arch.height) +
           " rows of arch.mesh)";
  return "make arch.mesh smaller";
}

// Refuses, before anything is built, a run that plans to take more host
// memory than it may (a bad_alloc or the OOM killer hours later otherwise);
// returns the estimate and the limit, for a failure that happens anyway.
// The refusal names the mesh the workload simulates, and arch.mesh when
// that is narrower.
std::string checkHostMemory(const workload::Workload& work, const config::ArchConfig& arch,
                            const config::RunConfig& run) {
  const workload::HostMemoryPlan plan = work.plannedHostMemory();
  const std::uint64_t limit = run.maxHostBytes ? *run.maxHostBytes : results::availableHostBytes();
  const std::string limitText =
      formatBytes(limit) + (run.maxHostBytes ? " (run.max_host_bytes)"
                                             : " (the host's available memory, MemAvailable in /proc/meminfo)");
  if (limit != 0 && plan.bytes > limit) {
    const bool narrowed = plan.mesh.width != arch.mesh.width || plan.mesh.height != arch.mesh.height;
    const std::string mesh = narrowed ? "the " + meshText(plan.mesh) + " mesh it simulates of the " +
                                            meshText(arch.mesh) + " arch.mesh (" + plan.narrowedBy
                                      : "its " + meshText(arch.mesh) + " mesh (arch.mesh";
    const std::string sram =
        plan.sramData ? ", and arch.pe.sram_bytes = " + std::to_string(arch.pe.sramBytes) + " per PE in functional mode"
                      : std::string();
    throw config::ConfigError("the run needs an estimated " + formatBytes(plan.bytes) + " of host memory for " + mesh +
                              sram + "), more than the limit " + limitText + ": " +
                              shrinkAdvice(plan.mesh, arch.mesh) +
                              (plan.sramData ? ", use run.mode: timing (no SRAM bytes)" : "") +
                              ", or set run.max_host_bytes if the estimate is too high for this run");
  }
  return "estimated " + formatBytes(plan.bytes) + " before the run, limit " + limitText;
}

// A VCD being written lives under a temporary name until the run succeeds.
std::string partialVcdBase(const std::string& vcdFile) { return vcdFile + ".partial"; }
void removePartialVcd(const std::string& vcdBase) {
  std::error_code ignored;  // nothing to remove is fine; a failure here must not hide the run's
  if (!vcdBase.empty()) std::filesystem::remove(vcdBase + ".vcd", ignored);
}
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
    const std::string type = workload::readWorkloadType(*params);
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
  struct Output {
    const char* option;
    std::string file, written;  // as given; the name written first
  };
  const Output outputs[] = {{"--out", args.outFile, args.outFile},
                            {"--vcd", args.vcdFile, args.vcdFile},
                            {"--vcd", args.vcdFile, vcdBase.empty() ? "" : vcdBase + ".vcd"},
                            {"--map", args.mapFile, args.mapFile},
                            {"--timeline", args.timelineFile, args.timelineFile}};
  for (const Output& o : outputs) {
    if (o.file.empty()) continue;
    try {
      results::checkWritable(o.written);
    } catch (const std::exception& e) {
      err << "wsesim: cannot write " << o.option << " " << o.file << ": " << e.what() << "\n";
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
    removePartialVcd(vcdBase);
    err << "wsesim: simulation failed: out of host memory (" << memoryVerdict << ")\n";
    return kSimulationError;
  } catch (const std::exception& e) {
    removePartialVcd(vcdBase);
    err << "wsesim: simulation failed: " << e.what() << "\n";
    return kSimulationError;
  }

  results::RunMeasurements measured;
  measured.cycles = work->cycles();
  measured.plannedHostBytes = work->plannedHostMemory().bytes;
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
