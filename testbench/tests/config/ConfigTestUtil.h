#pragma once
// Helpers shared by the configuration tests: layering a run's sources the way
// `wsesim run` does, catching a ConfigError's message, and scratch preset
// directories.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "hw/common/ConfigError.h"
#include "hw/config/ConfigTree.h"

namespace wsesim::config::testing {

// The CLI's order: the file, then every --set, then the preset chain.
inline ConfigTree layered(const std::string& yaml, const std::vector<std::string>& overrides = {},
                          const std::filesystem::path& presetDir = defaultPresetDir()) {
  ConfigTree tree = ConfigTree::fromText(yaml, "test.yaml");
  for (const std::string& assignment : overrides) tree.applyOverride(assignment);
  tree.applyPreset(presetDir);
  return tree;
}

// The message of the ConfigError `action` throws; a test failure (and "") if
// it throws none. Any other exception escapes and fails the test.
inline std::string configErrorOf(const std::function<void()>& action) {
  try {
    action();
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a ConfigError, none was thrown";
  return "";
}

inline void expectMentions(const std::string& message, std::initializer_list<const char*> parts) {
  for (const char* part : parts)
    EXPECT_NE(message.find(part), std::string::npos) << "message lacks \"" << part << "\":\n" << message;
}

// A directory that disappears with the test.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "wsesim-config-test-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path_ / name) << text; }

 private:
  std::filesystem::path path_;
};

}  // namespace wsesim::config::testing
