#pragma once
// The fixture of the end-to-end tests of the `wsesim` executable: each test
// runs the real binary (WSESIM_BINARY) in a fresh temporary directory and
// checks its exit status, its messages, and exactly which files it leaves
// behind.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "testbench/tests/ScratchDir.h"

namespace wsesim::clitest {

namespace fs = std::filesystem;
using nlohmann::json;

using wsesim::testing::ScratchDir;

inline std::string readFile(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void writeFile(const fs::path& file, const std::string& text) { std::ofstream(file, std::ios::binary) << text; }

struct Outcome {
  int status = -1;  // exit status, or -signal
  std::string out, err;
};

// A run of a small NoC job: the tiny preset (8 x 8), packet mode, uniform
// random traffic, a short warm-up and measurement window.
inline const char* const kSmallRun =
    "arch:\n"
    "  preset: tiny\n"
    "  fabric:\n"
    "    routing: xy\n"
    "workload:\n"
    "  type: noc\n"
    "  pattern: uniform_random\n"
    "  injection_rate: 0.01\n"
    "  warmup_cycles: 100\n"
    "  measure_cycles: 2000\n";

// stderr less the warning a sanitized build's ASan runtime (GCC 12's and
// clang 14's alike) prints when an error leaves a SystemC thread's
// coroutine stack: "==PID==WARNING: ASan is ignoring requested
// __asan_handle_no_return ..." and its two lines of advice. It is never
// an error report (ASan would end the process with its own status), so
// the tests that check an error's exact words check them under the
// sanitizers too (docs/testing.md).
inline std::string withoutAsanStackWarning(std::string err) {
  const std::string advice = "False positive error reports may follow\nFor details see "
                             "https://github.com/google/sanitizers/issues/189\n";
  for (std::size_t at; (at = err.find("WARNING: ASan is ignoring requested __asan_handle_no_return")) !=
                       std::string::npos;) {
    const std::size_t begin = err.rfind('\n', at) == std::string::npos ? 0 : err.rfind('\n', at) + 1;
    const std::size_t line = err.find('\n', at);
    std::size_t end = line == std::string::npos ? err.size() : line + 1;
    if (err.compare(end, advice.size(), advice) == 0) end += advice.size();
    err.erase(begin, end - begin);
  }
  return err;
}

class Cli : public ::testing::Test {
 protected:
  // Runs `wsesim ARGS` inside the work directory. stdout and stderr go to
  // files in a separate directory, so the work directory holds only what
  // wsesim itself wrote. `env` is prepended (e.g. "WSESIM_PRESET_DIR=...").
  Outcome wsesim(const std::string& args, const std::string& env = "") {
    const fs::path out = capture_.path() / "stdout", err = capture_.path() / "stderr";
    const std::string command = "cd '" + work_.path().string() + "' && " + (env.empty() ? "" : "env " + env + " ") +
                                "'" WSESIM_BINARY "' " + args + " >'" + out.string() + "' 2>'" + err.string() + "'";
    const int raw = std::system(command.c_str());
    Outcome o;
    o.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : WIFSIGNALED(raw) ? -WTERMSIG(raw) : -1000;
    o.out = readFile(out);
    o.err = withoutAsanStackWarning(readFile(err));
    return o;
  }

  fs::path work(const std::string& name) const { return work_.path() / name; }
  fs::path scratch(const std::string& name) const { return capture_.path() / name; }

  std::set<std::string> filesInWork() const {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(work_.path())) names.insert(entry.path().filename().string());
    return names;
  }

  json readJson(const std::string& name) const { return json::parse(readFile(work(name))); }

 private:
  ScratchDir work_, capture_;
};

inline void expectMentions(const std::string& text, const std::vector<std::string>& parts) {
  for (const std::string& part : parts)
    EXPECT_NE(text.find(part), std::string::npos) << "lacks \"" << part << "\":\n" << text;
}

}  // namespace wsesim::clitest
