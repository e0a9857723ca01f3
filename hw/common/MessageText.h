#pragma once
// User text inside a one-line message. A value may be a megabyte long or
// hold newlines (a YAML block scalar), and aliases can make millions of
// keys: a message shows the first part of each, escapes what would break
// its line, and says how much it left out.

#include <cstdio>
#include <string>
#include <vector>

namespace wsesim {

// How much of one value a message quotes, and how long a whole message may be.
inline constexpr std::size_t kShownBytes = 200;
inline constexpr std::size_t kMessageBytes = 4096;
// How many items of a list a message names.
inline constexpr std::size_t kShownItems = 20;

// `text` with its control characters written as escapes: a newline as \n,
// a tab as \t, a carriage return as \r, the others as \xHH.
inline std::string escapedText(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f) out += c;
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      out += hex;
    }
  }
  return out;
}

// The first `max` bytes of `text` (cut between UTF-8 characters) escaped,
// then "... (and N more bytes)" if it was longer.
inline std::string shownText(const std::string& text, std::size_t max = kShownBytes) {
  std::size_t cut = text.size();
  if (cut > max) {
    cut = max;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  }
  std::string shown = escapedText(text.substr(0, cut));
  if (cut < text.size()) shown += "... (and " + std::to_string(text.size() - cut) + " more bytes)";
  return shown;
}

// "a, b, c", or the first `shown` items and "and N more".
inline std::string listText(const std::vector<std::string>& items, std::size_t shown = kShownItems) {
  std::string list;
  for (std::size_t i = 0; i < items.size() && i < shown; ++i) list += (i ? ", " : "") + items[i];
  if (items.size() > shown) list += " and " + std::to_string(items.size() - shown) + " more";
  return list;
}

// A whole message made one line of bounded length, whatever it quotes.
inline std::string oneLine(const std::string& message) { return shownText(message, kMessageBytes); }

}  // namespace wsesim
