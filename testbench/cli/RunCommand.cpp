#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <ostream>
#include <systemc>

#include "hw/common/MessageText.h"
#include "hw/config/ArchConfig.h"
#include "hw/common/ConfigError.h"
#include "hw/config/RunConfig.h"
#include "hw/config/StrictYaml.h"
#include "hw/fabric/FabricError.h"
#include "testbench/cli/Cli.h"
#include "testbench/cli/ProgressLine.h"
#include "testbench/cli/RunArguments.h"
#include "testbench/keys/UnknownKeyHint.h"
#include "testbench/results/AtomicFile.h"
#include "testbench/results/HostStats.h"
#include "testbench/results/PartialFiles.h"
#include "testbench/results/ResultDocument.h"
#include "testbench/results/WaveformPipe.h"
#include "testbench/registry/WorkloadTypes.h"
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
  const std::uint64_t limit = results::hostMemoryLimit(run);
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
    // The system models are named when they are a tenth of the estimate or more.
    const std::string systems = 10 * plan.systemBytes >= plan.bytes ? "; " + formatBytes(plan.systemBytes) + " of it for the models of " +
                                                       std::to_string(arch.cluster.systems) +
                                                       " systems (arch.cluster.systems)"
                                                 : std::string();
    throw config::ConfigError("the run needs an estimated " + formatBytes(plan.bytes) + " of host memory for " + mesh +
                              sram + systems + "), more than the limit " + limitText + ": " +
                              (2 * plan.systemBytes > plan.bytes ? "lower arch.cluster.systems, " : "") +
                              shrinkAdvice(plan.mesh, arch.mesh) +
                              (plan.sramData ? ", use run.mode: timing (no SRAM bytes)" : "") +
                              ", or set run.max_host_bytes if the estimate is too high for this run");
  }
  return "estimated " + formatBytes(plan.bytes) + " before the run, limit " + limitText;
}

// trace.vcd -> trace_system.vcd: the system model's waveform beside the wafer's.
std::string systemVcdFile(const std::string& vcdFile) {
  const std::filesystem::path p(vcdFile);
  return (p.parent_path() / (p.stem().string() + "_system.vcd")).string();
}

// A path that names a regular file, or none yet, once symlinks are followed.
bool namesAFile(const std::string& given) {
  try {
    return results::resolveOutput(given).kind == results::OutputTarget::Kind::File;
  } catch (const std::exception&) {
    return false;  // checkOutputs says why
  }
}

// An output the command line names, once its path is resolved (results/AtomicFile.h).
struct NamedOutput {
  const char* option;
  std::string given;
  results::OutputTarget target;
};

// Resolves and checks every output before the simulation: each can be
// written, none is a file the run reads, no two are one file. Returns the
// message of the first that cannot, or "".
std::string checkOutputs(std::vector<NamedOutput>& outputs) {
  for (NamedOutput& o : outputs) {
    try {
      o.target = results::resolveOutput(o.given);
      results::checkWritable(o.target);
    } catch (const std::exception& e) {
      return "cannot write " + std::string(o.option) + " " + o.given + ": " + e.what();
    }
    o.target.given = std::string(o.option) + " " + o.given;  // what later messages name
    for (const yaml::FileRead& input : yaml::filesRead())
      if (const auto id = o.target.identity(); id && id->first == input.device && id->second == input.inode)
        return "cannot write " + o.target.given + ": it is " + input.path.string() + ", the " + input.what +
               " this run reads; name another file";
  }
  for (std::size_t i = 0; i < outputs.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (outputs[i].target.sameAs(outputs[j].target))
        return "cannot write " + outputs[i].target.given + ": " + outputs[j].target.given +
               " names the same file; give each output its own";
  return "";
}

}  // namespace

int runCommand(int argc, char** argv, std::ostream& out, std::ostream& err) {
  // A reader that goes away (a FIFO, a pipe on stdout) or a file-size limit
  // makes a write fail with EPIPE or EFBIG, reported like any failed write,
  // instead of killing the process with SIGPIPE or SIGXFSZ.
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGXFSZ, SIG_IGN);
  // SIGINT, SIGTERM, SIGHUP: unfinished outputs removed, "interrupted" said, exit 128 + n.
  results::removePartialFilesOnInterrupt();
  RunArguments args;
  try {
    args = parseRunArguments(argc, argv);
  } catch (const UsageError& e) {
    results::concludeRun();
    err << "wsesim run: " << oneLine(e.what()) << "\n" << kRunUsage;
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
    std::optional<std::vector<keys::KeySection>> catalogue;
    params->rejectUnknownKeys("", [&](const std::string& key) {
      // Only on this error's path: the keys every reader reads as configured
      // (not explored option by option, which takes seconds).
      if (!catalogue)
        catalogue = keys::keyCatalogue(config::defaultPresetDir(), arch.preset, args.overrides,
                                       keys::Exploration::DefaultsOnly);
      return keys::unknownKeyHint(*catalogue, type, key);
    });
    memoryVerdict = checkHostMemory(*work, arch, run);
  } catch (const config::ConfigError& e) {
    results::concludeRun();
    err << "wsesim: configuration error: " << oneLine(e.what()) << "\n";
    return kConfigError;
  }

  // Find out now, not after a long run, that an output cannot be written.
  std::vector<NamedOutput> outputs;
  for (const auto& [option, file] : {std::pair<const char*, const std::string*>{"--out", &args.outFile},
                                     {"--vcd", &args.vcdFile},
                                     {"--map", &args.mapFile},
                                     {"--timeline", &args.timelineFile}})
    if (!file->empty()) outputs.push_back(NamedOutput{option, *file, {}});
  const auto named = [&outputs](const char* option) -> const results::OutputTarget* {
    for (const NamedOutput& o : outputs)
      if (std::string(o.option) == option) return &o.target;
    return nullptr;
  };
  // A waveform written to a file gets the system model's beside it (when the workload has one).
  const bool systemVcd = !args.vcdFile.empty() && namesAFile(args.vcdFile);
  if (systemVcd) outputs.push_back(NamedOutput{"--vcd", systemVcdFile(args.vcdFile), {}});
  if (const std::string why = checkOutputs(outputs); !why.empty()) {
    results::concludeRun();
    err << "wsesim: " << oneLine(why) << "\n";
    return kOutputError;
  }
  // stdout carries the run summary, unless an output goes there.
  bool toStdout = false;
  for (const NamedOutput& o : outputs) toStdout = toStdout || o.target.isStandardOutput();
  std::ostream& summary = toStdout ? err : out;

  std::unique_ptr<results::WaveformPipe> waveform;
  try {
    if (const results::OutputTarget* vcd = named("--vcd")) waveform = std::make_unique<results::WaveformPipe>(*vcd);
  } catch (const std::exception& e) {
    results::concludeRun();
    err << "wsesim: " << oneLine(e.what()) << "\n";
    return kOutputError;
  }
  try {
    // Progress goes to a terminal only: logs and pipes (and tests' streams) stay quiet.
    const bool terminal = &err == &std::cerr && ::isatty(STDERR_FILENO);
    ProgressLine progress(err);
    work->run(workload::RunOptions{waveform ? waveform->systemcBaseName() : "", !args.mapFile.empty(),
                                   !args.timelineFile.empty(), terminal ? &progress : nullptr});
  } catch (const std::bad_alloc&) {
    results::concludeRun();
    if (waveform) waveform->abandon();
    err << "wsesim: simulation failed: out of host memory (" << memoryVerdict << ")\n";
    return kSimulationError;
  } catch (const std::exception& e) {
    results::concludeRun();
    if (waveform) waveform->abandon();
    err << "wsesim: simulation failed: " << e.what() << "\n";  // a deadlock adds its blocked queues
    return kSimulationError;
  }

  results::RunMeasurements measured;
  measured.cycles = work->cycles();
  measured.plannedHostBytes = work->plannedHostMemory().bytes;
  measured.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
  const nlohmann::json doc = results::resultDocument(*params, arch, measured, work->results());
  summary << work->summary();
  summary << "  simulated " << measured.cycles << " cycles (" << doc["simulated_seconds"].get<double>() * 1e6
          << " us) in " << measured.wallSeconds << " s wall, peak RSS "
          << doc["host"]["peak_rss_bytes"].get<std::uint64_t>() / (1 << 20) << " MiB\n";
  summary.flush();
  std::cout.flush();  // before anything is written to a descriptor directly
  try {
    if (waveform) {
      waveform->commit();
      summary << "  waveform: " << args.vcdFile << "\n";
      if (!work->systemWaveform().empty()) {
        if (systemVcd) {
          results::writeOutput(outputs.back().target, work->systemWaveform());  // pushed last
          summary << "  system waveform: " << systemVcdFile(args.vcdFile) << "\n";
        } else {
          summary << "  system waveform: not written (--vcd " << args.vcdFile
                  << " is not a regular file to put TRACE_system.vcd beside)\n";
        }
      }
    }
    if (const results::OutputTarget* timeline = named("--timeline")) {
      results::writeOutput(*timeline, work->timeline());
      summary << "  timeline: " << args.timelineFile << "\n";
    }
    if (const results::OutputTarget* map = named("--map")) {
      results::writeOutput(*map, work->waferMap().dump() + "\n");
      summary << "  wafer map: " << args.mapFile << "\n";
    }
    if (const results::OutputTarget* result = named("--out")) {
      results::writeOutput(*result, doc.dump(2) + "\n");
      summary << "  results:  " << args.outFile << "\n";
    }
  } catch (const std::exception& e) {
    results::concludeRun();
    err << "wsesim: " << oneLine(e.what()) << "\n";
    return kOutputError;
  }
  results::concludeRun();
  return kOk;
}

}  // namespace wsesim::cli
