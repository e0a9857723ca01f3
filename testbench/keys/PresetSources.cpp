#include "testbench/keys/PresetSources.h"

#include <fstream>
#include <vector>

namespace wsesim::keys {
namespace {

std::string trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \t") - begin + 1);
}

// "arch." + dotted key -> the comment of its own line, for every key line.
std::map<std::string, std::string> readComments(const std::filesystem::path& file) {
  std::map<std::string, std::string> comments;
  std::ifstream in(file);
  std::vector<std::pair<std::size_t, std::string>> open;  // indentation, key of the enclosing lines
  for (std::string line; std::getline(in, line);) {
    const std::size_t indent = line.find_first_not_of(' ');
    const std::size_t colon = line.find(':');
    if (indent == std::string::npos || line[indent] == '#' || colon == std::string::npos) continue;
    while (!open.empty() && open.back().first >= indent) open.pop_back();
    std::string key = "arch";
    for (const auto& [depth, name] : open) key += "." + name;
    key += "." + trim(line.substr(indent, colon - indent));
    open.emplace_back(indent, trim(line.substr(indent, colon - indent)));
    const std::size_t hash = line.find(" #", colon);
    if (hash != std::string::npos) comments[key] = trim(line.substr(hash + 2));
  }
  return comments;
}

}  // namespace

std::string PresetSources::source(const std::string& name, const std::string& key) {
  auto preset = comments_.find(name);
  if (preset == comments_.end()) preset = comments_.emplace(name, readComments(dir_ / (name + ".yaml"))).first;
  for (std::string k = key; k.find('.') != std::string::npos; k.erase(k.rfind('.'))) {
    const auto c = preset->second.find(k);
    if (c != preset->second.end()) return c->second;
  }
  return "";
}

}  // namespace wsesim::keys
