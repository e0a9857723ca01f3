#include "testbench/cli/ListingCommand.h"

#include <ostream>
#include <utility>

#include "hw/common/MessageText.h"
#include "testbench/cli/RunArguments.h"

namespace wsesim::cli {
namespace {

ListingFormat parseFormat(int argc, char** argv) {
  std::string format = "table";
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    if (option != "--format") throw UsageError("unknown argument '" + option + "' (the option is --format)");
    if (i + 1 == argc) throw UsageError("--format needs a value");
    format = argv[++i];
  }
  if (format == "table") return ListingFormat::kTable;
  if (format == "json") return ListingFormat::kJson;
  throw UsageError("--format " + format + ": expected table or json");
}

}  // namespace

std::optional<ListingFormat> parseListingFormat(int argc, char** argv, std::ostream& err) {
  try {
    return parseFormat(argc, argv);
  } catch (const UsageError& e) {
    err << "wsesim " << argv[0] << ": " << oneLine(e.what()) << "\nusage: wsesim " << argv[0] << " [--format table|json]\n";
    return std::nullopt;
  }
}

nlohmann::json listingDocument(const std::string& dirKey, const std::filesystem::path& dir,
                               const std::string& listKey, nlohmann::json entries) {
  return {{dirKey, dir.string()}, {"wsesim_version", WSESIM_VERSION}, {listKey, std::move(entries)}};
}

}  // namespace wsesim::cli
