#include "testbench/cli/RunArguments.h"

#include <boost/program_options.hpp>

#include <map>

namespace wsesim::cli {
namespace po = boost::program_options;

const char* const kRunUsage =
    "usage: wsesim run CONFIG.yaml [--set key=value]... [--out RESULT.json] [--vcd TRACE.vcd] [--map MAP.json]\n"
    "       [--timeline TIMELINE.json]\n";

namespace {

// What each option's value is, for the messages.
const std::map<std::string, std::string> kOptionValues = {
    {"set", "dotted.key=value"}, {"out", "RESULT.json"}, {"vcd", "TRACE.vcd"},
    {"map", "MAP.json"},         {"timeline", "TIMELINE.json"}};

std::string optionList() {
  std::string list;
  for (const auto& [name, value] : kOptionValues) list += (list.empty() ? "--" : ", --") + name;
  return list;
}

std::string needsValue(const std::string& name) {
  const auto value = kOptionValues.find(name);
  return "--" + name + " needs a value: --" + name + " " + (value == kOptionValues.end() ? "VALUE" : value->second);
}

// Boost takes '--set --out r.json' as --set with the value '--out'.
void rejectOptionAsValue(const std::string& name, const std::string& value) {
  if (value.size() > 1 && value[0] == '-') throw UsageError(needsValue(name) + ", not the option '" + value + "'");
}

}  // namespace

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
    throw UsageError(needsValue(e.get_option_name().substr(e.get_option_name().find_first_not_of('-'))));
  } catch (const po::multiple_occurrences& e) {
    throw UsageError(e.get_option_name() + " is given more than once; give one file");
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  for (const std::string& assignment : args.overrides) rejectOptionAsValue("set", assignment);
  rejectOptionAsValue("out", args.outFile);
  rejectOptionAsValue("vcd", args.vcdFile);
  rejectOptionAsValue("map", args.mapFile);
  rejectOptionAsValue("timeline", args.timelineFile);
  if (configFiles.empty())
    throw UsageError("no configuration file given: name the run's YAML file, e.g. wsesim run testbench/configs/noc_small.yaml");
  if (configFiles.size() > 1)
    throw UsageError("one configuration file expected, got '" + configFiles[0] + "' and '" + configFiles[1] + "'");
  args.configFile = configFiles.front();
  return args;
}

}  // namespace wsesim::cli
