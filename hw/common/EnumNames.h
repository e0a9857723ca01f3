#pragma once
// One table of names per enum that is read by name (a configuration key) and
// written by name (results, messages, program dumps), looked up both ways, so
// that a name is spelled once:
//
//   inline constexpr EnumName<Precision> kPrecisionNames[] = {{Precision::Fp16, "fp16"}, ...};
//   nameOf(kPrecisionNames, Precision::Fp16)  -> "fp16"
//   valueOf(kPrecisionNames, "fp16")          -> Precision::Fp16
//   ParamReader::choice(key, kPrecisionNames, fallback) reads a key as one of them.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wsesim {

template <class E>
struct EnumName {
  E value;
  const char* name;
};

// Every value has a row: a missing one is a bug, caught by the tests of each table.
template <class E, std::size_t N>
constexpr const char* nameOf(const EnumName<E> (&table)[N], E value) {
  for (const EnumName<E>& row : table)
    if (row.value == value) return row.name;
  return "?";
}

template <class E, std::size_t N>
std::optional<E> valueOf(const EnumName<E> (&table)[N], std::string_view name) {
  for (const EnumName<E>& row : table)
    if (name == row.name) return row.value;
  return std::nullopt;
}

template <class E, std::size_t N>
std::vector<std::string> namesOf(const EnumName<E> (&table)[N]) {
  std::vector<std::string> names;
  for (const EnumName<E>& row : table) names.push_back(row.name);
  return names;
}

}  // namespace wsesim
