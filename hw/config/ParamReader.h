#pragma once
// Typed, validated access to a ConfigTree. Every read names its key and its
// allowed range; a missing, mistyped or out-of-range value throws a
// ConfigError that says so. Keys nobody read are reported as unknown, and
// everything read can be listed back as the resolved configuration.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "hw/common/EnumNames.h"
#include "hw/config/ConfigTree.h"

namespace wsesim::config {

struct ResolvedParam {
  enum class Kind { Integer, Real, Text, Flag };
  Kind kind;
  std::string text;  // canonical text of the value
};

// A read as its reader declared it: what `wsesim keys` lists.
struct KeySpec {
  std::string key;
  std::string type;                     // integer, real, text, choice, flag
  std::string min, max;                 // integer and real keys, canonical text
  std::vector<std::string> options;     // choice keys
  std::optional<std::string> fallback;  // the reader's own default; none: the key is required...
  bool optional = false;                // ...unless it may stay unset (optionalInteger)
  std::string note;                     // why the range is what it is
  std::optional<ConfigValue> given;     // what the configuration held, with its origin (e.g. a preset)
  // Text keys: values `wsesim keys` may stand in for a required key left
  // unset, to list the keys read after it (a zoo's model names).
  std::vector<std::string> examples;
};

class ParamReader {
 public:
  explicit ParamReader(const ConfigTree& tree) : tree_(tree) {}

  // `note` (optional) is appended to range errors, to say why the range is what it is.
  std::int64_t integer(const std::string& key, std::int64_t min, std::int64_t max,
                       std::optional<std::int64_t> fallback = std::nullopt, const std::string& note = "");
  double real(const std::string& key, double min, double max, std::optional<double> fallback = std::nullopt,
              const std::string& note = "");
  std::string text(const std::string& key, std::optional<std::string> fallback = std::nullopt,
                   std::vector<std::string> examples = {});
  std::string choice(const std::string& key, const std::vector<std::string>& options,
                     std::optional<std::string> fallback = std::nullopt);
  // One of an enum's names (hw/common/EnumNames.h), as its value.
  template <class E, std::size_t N>
  E choice(const std::string& key, const EnumName<E> (&names)[N],
           std::optional<std::common_type_t<E>> fallback = std::nullopt) {  // E deduced from the names only
    return *valueOf(names, choice(key, namesOf(names),
                                  fallback ? std::optional<std::string>(nameOf(names, *fallback)) : std::nullopt));
  }
  bool flag(const std::string& key, std::optional<bool> fallback = std::nullopt);
  // A key with no default that may stay unset: nullopt then.
  std::optional<std::int64_t> optionalInteger(const std::string& key, std::int64_t min, std::int64_t max);

  bool has(const std::string& key) const { return tree_.find(key) != nullptr; }

  // Throws naming every key under `prefix` ("" for all) that no read
  // consumed, each with its origin and what `hint` (if given) knows of it.
  void rejectUnknownKeys(const std::string& prefix = "",
                         const std::function<std::string(const std::string&)>& hint = {}) const;

  const std::map<std::string, ResolvedParam>& resolved() const { return resolved_; }

  // Instrumentation for `wsesim keys`: every read is also declared to
  // `specs`, and a key with neither a value nor a default reads as a stand-in
  // (the low end of its range, its first choice, empty text, false) instead
  // of throwing, so that a reader runs to its end on an empty configuration.
  void declareInto(std::vector<KeySpec>* specs) { specs_ = specs; }

 private:
  const ConfigValue* lookup(const std::string& key, bool hasFallback) const;
  void record(const std::string& key, ResolvedParam::Kind kind, std::string text);
  void declare(KeySpec spec) const;

  const ConfigTree& tree_;
  std::map<std::string, ResolvedParam> resolved_;
  std::vector<KeySpec>* specs_ = nullptr;
};

}  // namespace wsesim::config
