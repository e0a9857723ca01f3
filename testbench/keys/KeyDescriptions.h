#pragma once
// What each configuration key means, in a sentence, for `wsesim keys` and the
// generated tables of docs/configuration.md. The list of keys itself comes
// from the readers (KeyCatalogue); this is only their prose, and a test
// (cli.KeysDescribeEveryKey) fails when a key read has none or an entry
// here names no key read.

#include <string>
#include <vector>

namespace wsesim::keys {

struct KeyDescription {
  std::string section;  // "" for any, else a workload type (its keys' meanings differ)
  std::string pattern;  // a dotted key; "<name>" stands for any one part
  std::string meaning;
};

const std::vector<KeyDescription>& keyDescriptions();

// The entry for `key` in `section` (one of the workload type's own first),
// null if there is none.
const KeyDescription* describe(const std::string& section, const std::string& key);

}  // namespace wsesim::keys
