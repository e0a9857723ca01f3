#pragma once
// Configuration keys declared once, beside the params struct they set (as
// Ramulator 2 declares a component's parameters beside the component): a
// key's name below the struct's prefix, its range or options, what it sets
// and what it means. The config layer reads a struct's table in its order
// (config::ArchConfig), and `wsesim keys` and docs/configuration.md
// describe the keys from the same rows; nothing else lists them. Values
// come from the presets, whose comments give each one's provenance
// (WSE-FACTS, fitted or a modelling choice), so a row holds no default.

#include <cstdint>
#include <string>
#include <vector>

namespace wsesim::common {

template <class Params>
struct Key {
  enum class Kind { Integer, Real, Choice };
  Kind kind;
  const char* name;  // below the table's prefix, e.g. "sram_bytes" under "arch.pe."
  const char* meaning;
  std::int64_t integerMin = 0, integerMax = 0;
  double realMin = 0, realMax = 0;
  std::vector<std::string> (*options)() = nullptr;
  void (*setInteger)(Params&, std::int64_t) = nullptr;
  void (*setReal)(Params&, double) = nullptr;
  void (*setChoice)(Params&, const std::string&) = nullptr;
  // Integer keys: another integer key of the table, read first, whose
  // value v bounds this one from above: at most bound(v) (v itself without
  // `bound`), and `why` (from v) says so in a range error; null: none.
  const char* boundBy = nullptr;
  std::int64_t (*bound)(std::int64_t) = nullptr;
  std::string (*why)(std::int64_t) = nullptr;

  static Key integer(const char* name, std::int64_t min, std::int64_t max, void (*set)(Params&, std::int64_t),
                     const char* meaning) {
    Key k{Kind::Integer, name, meaning};
    k.integerMin = min;
    k.integerMax = max;
    k.setInteger = set;
    return k;
  }
  static Key real(const char* name, double min, double max, void (*set)(Params&, double), const char* meaning) {
    Key k{Kind::Real, name, meaning};
    k.realMin = min;
    k.realMax = max;
    k.setReal = set;
    return k;
  }
  static Key choice(const char* name, std::vector<std::string> (*options)(), void (*set)(Params&, const std::string&),
                    const char* meaning) {
    Key k{Kind::Choice, name, meaning};
    k.options = options;
    k.setChoice = set;
    return k;
  }
  // This integer key, bounded by another (see boundBy).
  Key boundedBy(const char* key, std::int64_t (*boundOf)(std::int64_t) = nullptr,
                std::string (*whyOf)(std::int64_t) = nullptr) const {
    Key k = *this;
    k.boundBy = key;
    k.bound = boundOf;
    k.why = whyOf;
    return k;
  }
};

// A family of keys read in a loop (e.g. one per precision and op): its
// pattern ("<name>" for any one part) and meaning; the reader is the
// config layer's.
struct KeyFamily {
  const char* pattern;
  const char* meaning;
};

// A params struct's keys, in reading order.
template <class Params>
struct KeyTable {
  const char* prefix;  // "arch.pe."
  std::vector<Key<Params>> keys;
  std::vector<KeyFamily> families;
};

}  // namespace wsesim::common
