#include "testbench/keys/KeyTable.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "testbench/keys/KeyDescriptions.h"
#include "testbench/keys/PresetSources.h"

namespace wsesim::keys {
namespace {

// Large powers of two as 2^k (2^k - 1), every other number in its shortest
// exact form: 1e12, not 1000000000000.
std::string prettyNumber(const std::string& text, bool integer) {
  if (integer) {
    const long long v = std::atoll(text.c_str());
    for (int bits = 16; bits < 63; ++bits) {
      if (v == (1LL << bits)) return "2^" + std::to_string(bits);
      if (v == (1LL << bits) - 1) return "2^" + std::to_string(bits) + " - 1";
    }
    return text;
  }
  const double v = std::strtod(text.c_str(), nullptr);
  char out[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(out, sizeof out, "%.*g", digits, v);
    if (std::strtod(out, nullptr) == v) break;
  }
  std::string s = out;
  const std::size_t e = s.find('e');
  if (e == std::string::npos) return s;
  std::string exponent = s.substr(e + 1);
  const bool negative = exponent[0] == '-';
  exponent = exponent.substr(exponent.find_first_not_of("+-0"));
  return s.substr(0, e) + "e" + (negative ? "-" : "") + exponent;
}

std::string joined(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : separator) + i;
  return out;
}

KeyRow row(const std::string& section, const config::KeySpec& k, PresetSources& presets) {
  KeyRow r;
  r.key = k.key;
  r.type = k.type;
  const bool numeric = k.type == "integer" || k.type == "real";
  if (numeric) r.range = prettyNumber(k.min, k.type == "integer") + " .. " + prettyNumber(k.max, k.type == "integer");
  if (k.type == "choice" || k.type == "flag") r.range = joined(k.options, ", ");
  if (!k.note.empty()) r.range += " (" + k.note + ")";
  const std::string presetOrigin = "preset ";
  if (k.given && k.given->origin.compare(0, presetOrigin.size(), presetOrigin) == 0) {
    const std::string name = k.given->origin.substr(presetOrigin.size());
    r.defaultValue = k.given->text;
    const std::string comment = presets.source(name, k.key);
    r.source = k.given->origin + ": " + (comment.empty() ? "not recorded in the preset" : comment);
  } else if (k.fallback) {
    r.defaultValue = numeric ? prettyNumber(*k.fallback, k.type == "integer") : *k.fallback;
    r.source = "built in";
  } else {
    r.defaultValue = k.optional ? "unset" : "—";
    r.source = k.optional ? "may stay unset" : "required";
  }
  const KeyDescription* d = describe(section, k.key);
  r.meaning = d ? d->meaning : "";
  return r;
}

std::string markdownCell(std::string text) {
  for (std::size_t at = 0; (at = text.find('|', at)) != std::string::npos; at += 2) text.replace(at, 1, "\\|");
  return text;
}

std::string tableTitle(const std::string& name) {
  if (name == "arch" || name == "run" || name == "workload") return name;
  return "workload.type: " + name;
}

}  // namespace

std::vector<KeyTable> keyTables(const std::vector<KeySection>& sections, const std::filesystem::path& presetDir) {
  PresetSources presets(presetDir);
  std::vector<KeyTable> tables;
  for (const KeySection& s : sections) {
    KeyTable t{s.name, {}, s.incomplete, s.standIns};
    for (const config::KeySpec& k : s.keys) t.rows.push_back(row(s.name, k, presets));
    tables.push_back(std::move(t));
  }
  return tables;
}

std::string renderText(const std::vector<KeyTable>& tables, const std::string& preset) {
  std::ostringstream out;
  out << "configuration keys (defaults with arch.preset = " << preset << ")\n";
  for (const KeyTable& t : tables) {
    out << "\n" << tableTitle(t.name) << "\n";
    for (const KeyRow& r : t.rows) {
      out << "  " << r.key << "  " << r.type << (r.range.empty() ? "" : " " + r.range) << "\n"
          << "      default " << (r.defaultValue.empty() ? "(empty)" : r.defaultValue) << " (" << r.source << ")\n";
      if (!r.meaning.empty()) out << "      " << r.meaning << "\n";
    }
    if (!t.standIns.empty())
      out << "  listed with stand-ins for required keys left unset: " << t.standIns
          << "\n  (ranges and defaults read after them may be those values'; --set them to see yours)\n";
    if (!t.incomplete.empty())
      out << "  incomplete: no run of this reader got to its end: " << t.incomplete
          << "\n  (give that key a value with --set to list the keys read after it)\n";
  }
  return out.str();
}

std::string renderMarkdown(const std::vector<KeyTable>& tables, const std::string& preset) {
  std::ostringstream out;
  for (const KeyTable& t : tables) {
    out << "<!-- BEGIN wsesim keys: " << t.name << " (generated from `wsesim keys --format markdown --preset " << preset
        << "` by scripts/gen_config_docs.py; do not edit) -->\n"
        << "| key | type | range | default | from | meaning |\n|---|---|---|---|---|---|\n";
    for (const KeyRow& r : t.rows)
      out << "| `" << r.key << "` | " << r.type << " | " << markdownCell(r.range) << " | "
          << markdownCell(r.defaultValue) << " | " << markdownCell(r.source) << " | " << markdownCell(r.meaning)
          << " |\n";
    if (!t.standIns.empty()) out << "\nListed with stand-ins for required keys left unset: `" << t.standIns << "`.\n";
    out << "<!-- END wsesim keys: " << t.name << " -->\n";
  }
  return out.str();
}

nlohmann::json renderJson(const std::vector<KeyTable>& tables, const std::string& preset) {
  nlohmann::json doc = {{"preset", preset}, {"sections", nlohmann::json::array()}};
  for (const KeyTable& t : tables) {
    nlohmann::json keys = nlohmann::json::array();
    for (const KeyRow& r : t.rows)
      keys.push_back({{"key", r.key}, {"type", r.type}, {"range", r.range}, {"default", r.defaultValue},
                      {"from", r.source}, {"meaning", r.meaning}});
    doc["sections"].push_back({{"name", t.name}, {"keys", keys}, {"incomplete", t.incomplete},
                                  {"stand_ins", t.standIns}});
  }
  return doc;
}

}  // namespace wsesim::keys
