#include <ostream>

#include "hw/common/MessageText.h"
#include "hw/common/ConfigError.h"
#include "hw/config/ConfigTree.h"
#include "testbench/cli/Cli.h"
#include "testbench/cli/RunArguments.h"
#include "testbench/keys/KeyTable.h"

namespace wsesim::cli {
namespace {

const char* const kKeysUsage =
    "usage: wsesim keys [--preset NAME] [--format table|markdown|json] [--set key=value]...\n";

struct KeysArguments {
  std::string preset = "wse2";
  std::string format = "table";
  std::vector<std::string> overrides;
};

KeysArguments parseKeysArguments(int argc, char** argv) {
  KeysArguments args;
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    if (option != "--preset" && option != "--format" && option != "--set")
      throw UsageError("unknown argument '" + option + "' (the options are --preset, --format, --set)");
    if (i + 1 == argc || argv[i + 1][0] == '-') throw UsageError(option + " needs a value");
    const std::string value = argv[++i];
    if (option == "--preset") args.preset = value;
    if (option == "--format") args.format = value;
    if (option == "--set") args.overrides.push_back(value);
  }
  if (args.format != "table" && args.format != "markdown" && args.format != "json")
    throw UsageError("--format " + args.format + ": expected table, markdown or json");
  return args;
}

}  // namespace

int keysCommand(int argc, char** argv, std::ostream& out, std::ostream& err) {
  KeysArguments args;
  try {
    args = parseKeysArguments(argc, argv);
  } catch (const UsageError& e) {
    err << "wsesim keys: " << oneLine(e.what()) << "\n" << kKeysUsage;
    return kUsageError;
  }
  std::vector<keys::KeyTable> tables;
  try {
    const std::filesystem::path dir = config::defaultPresetDir();
    tables = keys::keyTables(keys::keyCatalogue(dir, args.preset, args.overrides), dir);
  } catch (const config::ConfigError& e) {
    err << "wsesim: configuration error: " << oneLine(e.what()) << "\n";
    return kConfigError;
  }
  if (args.format == "table") out << keys::renderText(tables, args.preset);
  if (args.format == "markdown") out << keys::renderMarkdown(tables, args.preset);
  if (args.format == "json") out << keys::renderJson(tables, args.preset).dump(2) << "\n";
  return kOk;
}

}  // namespace wsesim::cli
