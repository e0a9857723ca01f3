#pragma once
// The command line of `wsesim run`, parsed with Boost.Program_options and
// every error put in the CLI's own words (Boost's speak of a '--config'
// option there is none of, or of "positional options").

#include <string>
#include <vector>

#include "hw/common/Error.h"

namespace wsesim::cli {

struct RunArguments {
  std::string configFile;
  std::vector<std::string> overrides;
  std::string outFile;
  std::string vcdFile;
  std::string mapFile;
  std::string timelineFile;
};

extern const char* const kRunUsage;

// A command line that cannot be run; the message says what is missing or wrong.
class UsageError : public Error {
 public:
  using Error::Error;
};

// argv[0] is "run". Throws UsageError.
RunArguments parseRunArguments(int argc, char** argv);

}  // namespace wsesim::cli
