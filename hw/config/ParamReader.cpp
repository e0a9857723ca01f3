#include "hw/config/ParamReader.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "hw/common/MessageText.h"
#include "hw/common/ConfigError.h"

namespace wsesim::config {
namespace {

std::string where(const std::string& key, const ConfigValue& v) {
  return key + " = '" + shownText(v.text) + "' (" + v.origin + ")";
}

std::optional<double> parseNumber(const std::string& text) {
  if (text.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// Plain integers are read exactly; "1e6"-style values are accepted while a
// double represents them exactly (up to 2^53).
std::optional<std::int64_t> parseInteger(const std::string& text) {
  std::int64_t value = 0;
  const char* begin = text.data() + (text.size() > 1 && text[0] == '+' ? 1 : 0);
  const auto [end, error] = std::from_chars(begin, text.data() + text.size(), value);
  if (error == std::errc() && end == text.data() + text.size()) return value;
  const std::optional<double> number = parseNumber(text);
  if (!number || std::floor(*number) != *number || std::fabs(*number) > 9007199254740992.0) return std::nullopt;
  return std::int64_t(*number);
}

// A key left unset whose default the other keys put out of its range (an
// empty range: workload.color with arch.fabric.colors = 1), found before the
// run rather than as a simulation failure naming no key.
ConfigError defaultOutOfRange(const std::string& key, const std::string& value, const std::string& range) {
  return ConfigError(key + " (not set, default " + value + "): out of range here, must be " + range +
                     "; set it, or the keys its range follows");
}

std::string formatReal(double v) {
  std::ostringstream out;
  out.precision(17);
  out << v;
  return out.str();
}

}  // namespace

const ConfigValue* ParamReader::lookup(const std::string& key, bool hasFallback) const {
  const ConfigValue* v = tree_.find(key);
  if (!v && !hasFallback && !specs_)
    throw ConfigError(key + ": missing; set it in the configuration or with --set " + key + "=..." +
                      (key.rfind("arch.", 0) == 0 ? ", or choose a preset (arch.preset) that defines it" : ""));
  return v;
}

void ParamReader::record(const std::string& key, ResolvedParam::Kind kind, std::string text) {
  resolved_[key] = ResolvedParam{kind, std::move(text)};
}

void ParamReader::declare(KeySpec spec) const {
  if (!specs_) return;
  if (const ConfigValue* v = tree_.find(spec.key)) spec.given = *v;
  specs_->push_back(std::move(spec));
}

std::int64_t ParamReader::integer(const std::string& key, std::int64_t min, std::int64_t max,
                                  std::optional<std::int64_t> fallback, const std::string& note) {
  declare({key, "integer", std::to_string(min), std::to_string(max), {},
           fallback ? std::optional<std::string>(std::to_string(*fallback)) : std::nullopt, false, note, {}, {}});
  const std::string range = "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]" +
                            (note.empty() ? "" : " (" + note + ")");
  std::int64_t value = fallback.value_or(min);
  if (const ConfigValue* v = lookup(key, fallback.has_value())) {
    const std::optional<std::int64_t> number = parseInteger(v->text);
    if (!number) throw ConfigError(where(key, *v) + ": expected " + range);
    value = *number;
    if (value < min || value > max) throw ConfigError(where(key, *v) + ": out of range, must be " + range);
  } else if ((value < min || value > max) && !specs_) {
    throw defaultOutOfRange(key, std::to_string(value), range);
  }
  record(key, ResolvedParam::Kind::Integer, std::to_string(value));
  return value;
}

std::optional<std::int64_t> ParamReader::optionalInteger(const std::string& key, std::int64_t min, std::int64_t max) {
  if (has(key)) return integer(key, min, max);
  declare({key, "integer", std::to_string(min), std::to_string(max), {}, std::nullopt, true, "", {}, {}});
  return std::nullopt;
}

double ParamReader::real(const std::string& key, double min, double max, std::optional<double> fallback,
                         const std::string& note) {
  declare({key, "real", formatReal(min), formatReal(max), {},
           fallback ? std::optional<std::string>(formatReal(*fallback)) : std::nullopt, false, note, {}, {}});
  const std::string range = "a number in [" + formatReal(min) + ", " + formatReal(max) + "]" +
                            (note.empty() ? "" : " (" + note + ")");
  double value = fallback.value_or(min);
  if (const ConfigValue* v = lookup(key, fallback.has_value())) {
    const std::optional<double> number = parseNumber(v->text);
    if (!number) throw ConfigError(where(key, *v) + ": expected " + range);
    value = *number;
    if (value < min || value > max) throw ConfigError(where(key, *v) + ": out of range, must be " + range);
  } else if ((value < min || value > max) && !specs_) {
    throw defaultOutOfRange(key, formatReal(value), range);
  }
  record(key, ResolvedParam::Kind::Real, formatReal(value));
  return value;
}

std::string ParamReader::text(const std::string& key, std::optional<std::string> fallback,
                              std::vector<std::string> examples) {
  declare({key, "text", "", "", {}, fallback, false, "", {}, std::move(examples)});
  const ConfigValue* v = lookup(key, fallback.has_value());
  std::string value = v ? v->text : fallback.value_or("");
  record(key, ResolvedParam::Kind::Text, value);
  return value;
}

std::string ParamReader::choice(const std::string& key, const std::vector<std::string>& options,
                                std::optional<std::string> fallback) {
  declare({key, "choice", "", "", options, fallback, false, "", {}, {}});
  const ConfigValue* v = lookup(key, fallback.has_value());
  const std::string value = v ? v->text : fallback ? *fallback : options.front();
  bool known = false;
  std::string list;
  for (const std::string& o : options) {
    known = known || o == value;
    list += (list.empty() ? "" : ", ") + o;
  }
  if (!known && !v)  // a reader's own default: a bug in the reader, not in the run file
    throw std::logic_error(key + ": the reader's default '" + value + "' is not one of its options " + list);
  if (!known) throw ConfigError(where(key, *v) + ": must be one of " + list);
  record(key, ResolvedParam::Kind::Text, value);
  return value;
}

bool ParamReader::flag(const std::string& key, std::optional<bool> fallback) {
  declare({key, "flag", "", "", {"false", "true"},
           fallback ? std::optional<std::string>(*fallback ? "true" : "false") : std::nullopt, false, "", {}, {}});
  bool value = fallback.value_or(false);
  if (const ConfigValue* v = lookup(key, fallback.has_value())) {
    const std::string& t = v->text;
    if (t == "true" || t == "yes" || t == "on") value = true;
    else if (t == "false" || t == "no" || t == "off") value = false;
    else throw ConfigError(where(key, *v) + ": expected true or false");
  }
  record(key, ResolvedParam::Kind::Flag, value ? "true" : "false");
  return value;
}

void ParamReader::rejectUnknownKeys(const std::string& prefix,
                                    const std::function<std::string(const std::string&)>& hint) const {
  std::vector<std::string> unknown;
  for (const auto& [key, value] : tree_.values()) {
    if (key.compare(0, prefix.size(), prefix) != 0 || resolved_.count(key)) continue;
    const std::string known = hint ? hint(key) : "";
    unknown.push_back(shownText(key) + " (" + value.origin + (known.empty() ? "" : "; " + known) + ")");
  }
  // One line, as every error: scripts read the first line of stderr. The
  // first 20 keys, and how many more (aliases may make thousands).
  if (!unknown.empty()) throw ConfigError("unknown configuration key(s): " + listText(unknown));
}

}  // namespace wsesim::config
