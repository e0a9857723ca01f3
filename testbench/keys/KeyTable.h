#pragma once
// The key catalogue as text: one row per key (type, range, default, where
// the default comes from, what the key means), rendered as a terminal
// listing, as the Markdown tables of docs/configuration.md (between
// generated-region comments, which scripts/gen_config_docs.py replaces), or
// as JSON.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "testbench/keys/KeyCatalogue.h"

namespace wsesim::keys {

struct KeyRow {
  std::string key, type, range, defaultValue, source, meaning;
};

struct KeyTable {
  std::string name;  // as KeySection::name
  std::vector<KeyRow> rows;
  std::string incomplete;  // as KeySection::incomplete
  std::string standIns;    // as KeySection::standIns
};

std::vector<KeyTable> keyTables(const std::vector<KeySection>& sections, const std::filesystem::path& presetDir);

std::string renderText(const std::vector<KeyTable>& tables, const std::string& preset);
std::string renderMarkdown(const std::vector<KeyTable>& tables, const std::string& preset);
nlohmann::json renderJson(const std::vector<KeyTable>& tables, const std::string& preset);

}  // namespace wsesim::keys
