#include "testbench/keys/UnknownKeyHint.h"

#include <algorithm>
#include <set>

namespace wsesim::keys {
namespace {

// Levenshtein distance: one edit per inserted, deleted or replaced character.
std::size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

bool sharedSection(const std::string& name) { return name == "arch" || name == "run" || name == "workload"; }

}  // namespace

std::string unknownKeyHint(const std::vector<KeySection>& catalogue, const std::string& type, const std::string& key) {
  std::set<std::string> otherTypes;
  std::string closest;
  // A misspelling is a few edits away: about one in five characters, at least two.
  std::size_t best = std::max<std::size_t>(2, key.size() / 5) + 1;
  for (const KeySection& section : catalogue) {
    const bool ours = sharedSection(section.name) || section.name == type;
    for (const config::KeySpec& spec : section.keys) {
      if (!ours) {
        if (spec.key == key) otherTypes.insert(section.name);
        continue;
      }
      if (const std::size_t d = editDistance(spec.key, key); d < best) best = d, closest = spec.key;
    }
  }
  if (!otherTypes.empty()) {
    std::string names;
    for (const std::string& t : otherTypes) names += (names.empty() ? "" : " and ") + t;
    return "a key of workload.type " + names + ", not " + type;
  }
  return closest.empty() ? "" : "did you mean " + closest + "?";
}

}  // namespace wsesim::keys
