#pragma once
// The `wsesim` command line: run, presets, models, keys, help.

#include <iosfwd>

namespace wsesim::cli {

// Exit statuses, so scripts can tell a bad configuration from a failed run.
enum ExitStatus : int {
  kOk = 0,
  kUsageError = 1,
  kConfigError = 2,
  kSimulationError = 3,
  kOutputError = 4,
};

// Never throws: every failure becomes a message on `err` and an ExitStatus.
int main(int argc, char** argv, std::ostream& out, std::ostream& err);
// The commands themselves, which may throw.
int dispatch(int argc, char** argv, std::ostream& out, std::ostream& err);

int runCommand(int argc, char** argv, std::ostream& out, std::ostream& err);
int presetsCommand(int argc, char** argv, std::ostream& out, std::ostream& err);
int modelsCommand(int argc, char** argv, std::ostream& out, std::ostream& err);
int keysCommand(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace wsesim::cli
