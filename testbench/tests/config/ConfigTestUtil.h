#pragma once
// Helpers shared by the configuration tests: layering a run's sources the way
// `wsesim run` does, catching a ConfigError's message, and scratch preset
// directories (ScratchDir.h).

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
#include "testbench/tests/ScratchDir.h"

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

using wsesim::testing::ScratchDir;

}  // namespace wsesim::config::testing
