#pragma once
// YAML as a configuration language: yaml-cpp accepts a mapping that repeats
// a key (the last one silently wins, so a second `arch:` section replaces the
// first) and ignores every document after the first. Here both are errors,
// and so are bytes that are not UTF-8 (which YAML requires and which the
// result JSON could not hold).

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <string>
#include <vector>

#include "hw/common/Error.h"

namespace wsesim::yaml {

// The message names the origin (a file name, "--set KEY"), the line and what is wrong.
class YamlError : public Error {
 public:
  using Error::Error;
};

// Exactly one YAML document, with no key repeated in any mapping at any
// depth (the message names the key's dotted path and both lines). `origin`
// begins every message. Empty text is a null node.
YAML::Node loadOneDocument(const std::string& text, const std::string& origin);

// Every file read whole is at most this long (the largest preset or zoo
// file is a few KiB; a result's config fed back as a run file, tens).
inline constexpr std::size_t kMaxFileBytes = std::size_t(16) << 20;

// The whole file, a regular file or a pipe of at most kMaxFileBytes; a
// missing or unreadable file, a directory, a device (/dev/zero) or socket,
// or a longer file is a YamlError naming `what` and the path.
std::string readTextFile(const std::filesystem::path& file, const std::string& what);

// A file readTextFile has read: what it was read as, its path, and its
// device and inode (so that no output of the run is written over it).
struct FileRead {
  std::string what;
  std::filesystem::path path;
  unsigned long long device = 0, inode = 0;
};
// Every file readTextFile has read in this process, in order.
const std::vector<FileRead>& filesRead();

// Returns the 0-based byte offset of the first byte that does not belong to
// well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF),
// or std::string::npos when `text` is UTF-8.
std::size_t firstNonUtf8Byte(const std::string& text);

}  // namespace wsesim::yaml
