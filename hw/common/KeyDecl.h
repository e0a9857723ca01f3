#pragma once
// Configuration keys declared once, beside the params struct they set (as
// Ramulator 2 declares a component's parameters beside the component): a
// key's name below the struct's prefix, its range or options, what it sets
// and what it means. The config layer reads a struct's table
// (config::ArchConfig), and `wsesim keys` and docs/configuration.md
// describe the keys from the same rows; nothing else lists them. Values
// come from the presets, whose comments give each one's provenance
// (WSE-FACTS, fitted or a modelling choice), so a row holds no default.

#include <cstdint>
#include <string>
#include <vector>

namespace wsesim::common {

template <class Params>
struct IntegerKey {
  const char* name;  // below the struct's prefix, e.g. "sram_bytes" under "arch.pe."
  std::int64_t min, max;
  void (*set)(Params&, std::int64_t);
  const char* meaning;
  // Another key of the table, read first, whose value v bounds this one
  // from above: at most bound(v) (v itself without `bound`), and `why`
  // (from v) says so in a range error; null: no such key.
  const char* boundBy = nullptr;
  std::int64_t (*bound)(std::int64_t) = nullptr;
  std::string (*why)(std::int64_t) = nullptr;
};

template <class Params>
struct ChoiceKey {
  const char* name;
  std::vector<std::string> (*options)();
  void (*set)(Params&, const std::string&);
  const char* meaning;
};

// A family of keys read in a loop (e.g. one per precision and op): its
// pattern ("<name>" for any one part) and meaning; the reader is the
// config layer's.
struct KeyFamily {
  const char* pattern;
  const char* meaning;
};

// A params struct's keys: its integers (in reading order), then its choices.
template <class Params>
struct KeyTable {
  const char* prefix;  // "arch.pe."
  std::vector<IntegerKey<Params>> integers;
  std::vector<ChoiceKey<Params>> choices;
  std::vector<KeyFamily> families;
};

}  // namespace wsesim::common
