#pragma once
// The merged, flattened configuration of one run: dotted keys
// ("arch.mesh.width") mapped to scalar text and to where that text came from
// (a file, a preset, a --set override). Typed reading and validation happen
// in ParamReader; this class only gathers and layers the sources.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace wsesim::config {

struct ConfigValue {
  std::string text;
  std::string origin;  // e.g. "run.yaml", "preset wse2", "--set"
};

class ConfigTree {
 public:
  static ConfigTree fromFile(const std::filesystem::path& file);
  static ConfigTree fromText(const std::string& yaml, const std::string& origin);

  // "dotted.key=value"; the value is read as a YAML scalar.
  void applyOverride(const std::string& assignment);
  void set(const std::string& key, const std::string& text, const std::string& origin);

  // Fills `arch.*` keys the run did not set from the preset named by
  // `arch.preset` (and the presets it is based on) found in `presetDir`.
  void applyPreset(const std::filesystem::path& presetDir);

  const ConfigValue* find(const std::string& key) const;
  const std::map<std::string, ConfigValue>& values() const { return values_; }

 private:
  std::map<std::string, ConfigValue> values_;
};

// Names of the presets in `presetDir` (files NAME.yaml), sorted.
std::vector<std::string> presetNames(const std::filesystem::path& presetDir);

// $WSESIM_PRESET_DIR if set, else the source tree's hw/config/presets.
std::filesystem::path defaultPresetDir();

}  // namespace wsesim::config
