#pragma once
// Where a preset's value comes from, as the preset file says it: the comment
// on the value's line, or on the nearest enclosing key's line (`lanes:  #
// WSE-FACTS ...` covers every lane count under it). yaml-cpp drops comments,
// so the file is read as text; presets are plain block mappings.

#include <filesystem>
#include <map>
#include <string>

namespace wsesim::keys {

class PresetSources {
 public:
  explicit PresetSources(std::filesystem::path presetDir) : dir_(std::move(presetDir)) {}
  // The comment behind `key` ("arch.pe.sram_bytes") in preset `name`, "" if none.
  std::string source(const std::string& name, const std::string& key);

 private:
  std::filesystem::path dir_;
  std::map<std::string, std::map<std::string, std::string>> comments_;  // preset -> dotted key -> comment
};

}  // namespace wsesim::keys
