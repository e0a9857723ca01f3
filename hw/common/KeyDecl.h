#pragma once
// A configuration key declared once, beside the params struct it sets (as
// Ramulator 2 declares a component's parameters beside the component): its
// name below the struct's prefix, its range, what it sets and what it
// means. The config layer reads a struct's table (config::ArchConfig), and
// `wsesim keys` and docs/configuration.md describe the keys from the same
// rows; nothing else lists them. Values come from the presets, whose
// comments give each one's provenance (WSE-FACTS, fitted or a modelling
// choice), so a row holds no default.

#include <cstdint>

namespace wsesim::common {

template <class Params>
struct IntegerKey {
  const char* name;  // below the struct's prefix, e.g. "sram_bytes" under "arch.pe."
  std::int64_t min, max;
  void (*set)(Params&, std::int64_t);
  const char* meaning;
  // Another key of the same table whose value bounds this one from above
  // (read first), or null.
  const char* atMost = nullptr;
};

// A family of keys read in a loop (e.g. one per precision and op): its
// pattern ("<name>" for any one part) and meaning; the reader is the
// config layer's.
struct KeyFamily {
  const char* pattern;
  const char* meaning;
};

}  // namespace wsesim::common
