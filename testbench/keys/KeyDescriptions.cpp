#include "testbench/keys/KeyDescriptions.h"

namespace wsesim::keys {
namespace {

bool matches(const std::string& pattern, const std::string& key) {
  std::size_t p = 0, k = 0;
  while (p < pattern.size() && k < key.size()) {
    if (pattern[p] == '<') {
      p = pattern.find('>', p) + 1;
      k = key.find('.', k);
      if (k == std::string::npos) k = key.size();
    } else if (pattern[p++] != key[k++]) {
      return false;
    }
  }
  return p == pattern.size() && k == key.size();
}

}  // namespace

const std::vector<KeyDescription>& keyDescriptions() {
  static const std::vector<KeyDescription> descriptions = {
  };
  return descriptions;
}

const KeyDescription* describe(const std::string& section, const std::string& key) {
  const KeyDescription* any = nullptr;
  for (const KeyDescription& d : keyDescriptions()) {
    if (!matches(d.pattern, key)) continue;
    if (d.section == section) return &d;
    if (d.section.empty() && !any) any = &d;
  }
  return any;
}

}  // namespace wsesim::keys
