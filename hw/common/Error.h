#pragma once
// The base of every error wsesim raises on purpose (a bad configuration, a
// program or plan that cannot run, a deadlock, a bad model file, a bad
// command line): one `catch (const wsesim::Error&)` tells them from a
// library's or the host's failures (std::bad_alloc, a filesystem error).
// Each kind derives from it where it is raised, so a caller catches the
// kinds it can act on and lets the rest reach the CLI, which maps them to
// exit statuses (testbench/cli/Cli.h).

#include <stdexcept>

namespace wsesim {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace wsesim
