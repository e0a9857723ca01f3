#pragma once
// Reads a params struct's declared keys (common/KeyDecl.h) in their order:
// what ArchConfig and the cost reader do with every table.

#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "hw/common/KeyDecl.h"
#include "hw/config/ParamReader.h"

namespace wsesim::config {

template <class Params>
void readKeys(ParamReader& p, const common::KeyTable<Params>& table, Params& params) {
  using Kind = typename common::Key<Params>::Kind;
  std::map<std::string, std::int64_t> integers;  // read so far, for the keys they bound
  for (const common::Key<Params>& k : table.keys) {
    const std::string key = table.prefix + std::string(k.name);
    if (k.kind == Kind::Real) {
      k.setReal(params, p.real(key, k.realMin, k.realMax));
    } else if (k.kind == Kind::Choice) {
      k.setChoice(params, p.choice(key, k.options()));
    } else {
      std::int64_t max = k.integerMax;
      std::string why;
      if (k.boundBy) {
        const std::int64_t by = integers.at(k.boundBy);
        max = std::min(max, k.bound ? k.bound(by) : by);
        if (k.why) why = k.why(by);
      }
      const std::int64_t value = p.integer(key, k.integerMin, max, std::nullopt, why);
      integers[k.name] = value;
      k.setInteger(params, value);
    }
  }
}

}  // namespace wsesim::config
