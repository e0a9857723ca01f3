#include "hw/config/ConfigTree.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include "hw/common/MessageText.h"
#include "hw/common/ConfigError.h"
#include "hw/config/StrictYaml.h"

namespace wsesim::config {
namespace {

const std::set<std::string> kSections = {"arch", "workload", "run"};

std::string scalarKey(const YAML::Node& key, const std::string& under, const std::string& origin) {
  if (!key.IsScalar())
    throw ConfigError(origin + ": a key under '" + (under.empty() ? "(top level)" : shownText(under)) +
                      "' is not a plain name (line " + std::to_string(key.Mark().line + 1) + ")");
  return key.Scalar();
}

void flatten(const YAML::Node& node, const std::string& prefix, const std::string& origin,
             std::map<std::string, ConfigValue>& out) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      for (const auto& item : node) {
        const std::string key = scalarKey(item.first, prefix, origin);
        if (key.empty() || key.find('.') != std::string::npos)
          throw ConfigError(origin + ": invalid key '" + shownText(key) + "' under '" + shownText(prefix) + "'");
        flatten(item.second, prefix.empty() ? key : prefix + "." + key, origin, out);
      }
      break;
    case YAML::NodeType::Scalar:
      out[prefix] = ConfigValue{node.Scalar(), origin};
      break;
    case YAML::NodeType::Null:
      throw ConfigError(shownText(prefix) + " (" + origin + "): has no value");
    case YAML::NodeType::Sequence:
      throw ConfigError(shownText(prefix) + " (" + origin + "): lists are not accepted here; give a single value");
    case YAML::NodeType::Undefined:
      break;
  }
}

YAML::Node parseYaml(const std::string& text, const std::string& origin) {
  try {
    return yaml::loadOneDocument(text, origin);
  } catch (const yaml::YamlError& e) {
    throw ConfigError(e.what());
  }
}

std::string readFile(const std::filesystem::path& file, const std::string& what) {
  try {
    return yaml::readTextFile(file, what);
  } catch (const yaml::YamlError& e) {
    throw ConfigError(e.what());
  }
}

}  // namespace

ConfigTree ConfigTree::fromText(const std::string& yaml, const std::string& origin) {
  const YAML::Node root = parseYaml(yaml, origin);
  ConfigTree tree;
  if (!root || root.IsNull()) return tree;
  if (!root.IsMap()) throw ConfigError(origin + ": expected a mapping with sections arch, workload, run");
  for (const auto& item : root) {
    const std::string section = scalarKey(item.first, "", origin);
    if (!kSections.count(section))
      throw ConfigError(origin + ": unknown section '" + shownText(section) + "' (allowed: arch, workload, run)");
    flatten(item.second, section, origin, tree.values_);
  }
  return tree;
}

ConfigTree ConfigTree::fromFile(const std::filesystem::path& file) {
  return fromText(readFile(file, "configuration file"), file.filename().string());
}

void ConfigTree::set(const std::string& key, const std::string& text, const std::string& origin) {
  if (yaml::firstNonUtf8Byte(key) != std::string::npos)
    throw ConfigError(origin + ": a key is not UTF-8 text");
  const std::string section = key.substr(0, key.find('.'));
  if (!kSections.count(section) || key.find('.') == std::string::npos)
    throw ConfigError(origin + ": key '" + shownText(key) + "' must start with arch., workload. or run.");
  values_[key] = ConfigValue{text, origin};
}

void ConfigTree::applyOverride(const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError("--set " + shownText(assignment) + ": expected dotted.key=value");
  const std::string key = assignment.substr(0, eq);
  const YAML::Node value = parseYaml(assignment.substr(eq + 1), "--set " + shownText(key));
  if (!value.IsScalar()) throw ConfigError("--set " + shownText(key) + ": the value must be a single scalar");
  set(key, value.Scalar(), "--set");
}

void ConfigTree::applyPreset(const std::filesystem::path& presetDir) {
  const ConfigValue* named = find("arch.preset");
  if (!named) return;
  std::string name = named->text;
  // Who named the preset being loaded, for error messages.
  std::string namedBy = "arch.preset = " + shownText(name) + " (" + named->origin + ")";
  std::vector<std::string> chain;
  while (!name.empty()) {
    chain.push_back(name);
    if (std::find(chain.begin(), chain.end() - 1, name) != chain.end() - 1) {
      std::string cycle;
      for (const std::string& p : chain) cycle += (cycle.empty() ? "" : " -> ") + shownText(p);
      if (chain.size() == 2) throw ConfigError("preset '" + shownText(name) + "' is based on itself (its 'base' key)");
      throw ConfigError("presets are based on each other in a cycle (" + cycle + "): check their 'base' keys");
    }
    // A preset is a name from the directory's listing, never a path built
    // from user text (which may be too long for a file name, or climb out).
    const std::vector<std::string> known = presetNames(presetDir);
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string list;
      for (const std::string& p : known) list += (list.empty() ? "" : ", ") + p;
      std::error_code ignored;
      const std::string why = !std::filesystem::is_directory(presetDir, ignored)
                                  ? "no such directory; $WSESIM_PRESET_DIR, if set, names it"
                              : known.empty() ? "it holds no presets (NAME.yaml)"
                                              : "known: " + list;
      throw ConfigError(namedBy + ": no such preset in " + presetDir.string() + " (" + why + ")");
    }
    const std::filesystem::path file = presetDir / (name + ".yaml");
    const std::string origin = "preset " + name;
    const YAML::Node root = parseYaml(readFile(file, "preset"), origin);
    if (!root.IsMap()) throw ConfigError(origin + ": expected a mapping of arch parameters");
    std::string base;
    std::map<std::string, ConfigValue> flat;
    for (const auto& item : root) {
      const std::string key = scalarKey(item.first, "", origin);
      if (key == "base") {
        if (!item.second.IsScalar() || item.second.Scalar().empty())
          throw ConfigError(origin + ": base must name one preset");
        base = item.second.Scalar();
        continue;
      }
      flatten(item.second, "arch." + key, origin, flat);
    }
    // Values already present come from a more specific layer and win.
    for (auto& [key, value] : flat) values_.emplace(key, value);
    namedBy = origin + ": base = " + shownText(base);
    name = base;
  }
}

const ConfigValue* ConfigTree::find(const std::string& key) const {
  const auto it = values_.find(key);
  return it == values_.end() ? nullptr : &it->second;
}

std::vector<std::string> presetNames(const std::filesystem::path& presetDir) {
  std::vector<std::string> names;
  if (!std::filesystem::is_directory(presetDir)) return names;
  for (const auto& entry : std::filesystem::directory_iterator(presetDir))
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::filesystem::path defaultPresetDir() {
  if (const char* dir = std::getenv("WSESIM_PRESET_DIR"); dir && *dir) return dir;
  return WSESIM_PRESET_DIR;
}

}  // namespace wsesim::config
