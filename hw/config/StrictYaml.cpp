#include "hw/config/StrictYaml.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>

#include "hw/common/MessageText.h"
namespace wsesim::yaml {
namespace {

std::string lineOf(const YAML::Mark& mark) { return std::to_string(mark.line + 1); }

std::string keyText(const YAML::Node& key) { return key.IsScalar() ? key.Scalar() : "(a structure)"; }

// A document is walked as its readers will walk it: through its aliases,
// which yaml-cpp keeps as shared nodes. A node that contains itself (an
// alias inside its own anchor) would take every walk round forever, and a
// few aliases of aliases expand a small file into millions of values; both
// stop here, before any reader sees the document.
constexpr std::size_t kMaxNodes = 100000;

constexpr long kPipeFsMagic = 0x50495045;  // statfs f_type of an anonymous pipe (linux/magic.h PIPEFS_MAGIC)

struct Walk {
  const std::string& origin;
  std::vector<std::pair<YAML::Node, std::string>> enclosing;  // the maps and lists around the node, with their paths
  std::size_t nodes = 0;
};

std::string pathText(const std::string& path) { return path.empty() ? "(the top level)" : "'" + shownText(path) + "'"; }

void rejectRepeatedKeys(const YAML::Node& node, const std::string& path, Walk& walk) {
  if (++walk.nodes > kMaxNodes)
    throw YamlError(walk.origin + ": more than " + std::to_string(kMaxNodes) +
                    " values once its aliases are expanded (the last at " + pathText(path) +
                    "); aliases of aliases repeat values exponentially: write the values out");
  if (!node.IsSequence() && !node.IsMap()) return;
  for (const auto& [outer, outerPath] : walk.enclosing)
    if (outer.is(node))
      throw YamlError(walk.origin + ": " + pathText(path) + " refers through an alias to " + pathText(outerPath) +
                      " (line " + lineOf(outer.Mark()) + "), which contains it: a value cannot contain itself");
  walk.enclosing.emplace_back(node, path);
  if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i) rejectRepeatedKeys(node[i], path + "[" + std::to_string(i) + "]", walk);
  } else {
    std::map<std::string, YAML::Mark> seen;
    for (const auto& item : node) {
      const std::string key = keyText(item.first);
      const std::string dotted = path.empty() ? key : path + "." + key;
      const auto [first, fresh] = seen.emplace(key, item.first.Mark());
      if (!fresh)
        throw YamlError(walk.origin + ": key '" + shownText(dotted) + "' is given twice (lines " + lineOf(first->second) +
                        " and " + lineOf(item.first.Mark()) + "); give it once");
      rejectRepeatedKeys(item.second, dotted, walk);
    }
  }
  walk.enclosing.pop_back();
}

// 1-based line of byte `offset`.
std::size_t lineAt(const std::string& text, std::size_t offset) {
  return 1 + std::size_t(std::count(text.begin(), text.begin() + std::ptrdiff_t(offset), '\n'));
}

// The line of the '---' that starts `document`: the last marker at or
// before its first node (yaml-cpp marks the node, or for an empty document
// the line after the marker, or nothing).
std::string documentStartLine(const std::string& text, const YAML::Node& document) {
  const int markLine = document.Mark().line;  // 0-based, -1: none
  std::istringstream lines(text);
  std::size_t line = 0, marker = 0;
  for (std::string l; std::getline(lines, l);) {
    if (markLine >= 0 && line > std::size_t(markLine)) break;
    if (++line, l.compare(0, 3, "---") == 0) marker = line;
  }
  if (marker) return std::to_string(marker);
  return markLine >= 0 ? lineOf(document.Mark()) : "?";
}

}  // namespace

std::size_t firstNonUtf8Byte(const std::string& text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t length;
    std::uint32_t code;
    if (c >= 0xC2 && c <= 0xDF) length = 2, code = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF) length = 3, code = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4) length = 4, code = c & 0x07;
    else return i;
    if (i + length > n) return i;
    for (std::size_t k = 1; k < length; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return i;
      code = (code << 6) | (s[i + k] & 0x3F);
    }
    const bool overlong = (length == 3 && code < 0x800) || (length == 4 && code < 0x10000);
    if (overlong || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF) return i;
    i += length;
  }
  return std::string::npos;
}

YAML::Node loadOneDocument(const std::string& text, const std::string& origin) {
  if (const std::size_t bad = firstNonUtf8Byte(text); bad != std::string::npos)
    throw YamlError(origin + ": line " + std::to_string(lineAt(text, bad)) + " is not UTF-8 text (byte " +
                    std::to_string(bad) + ")");
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    throw YamlError(origin + ": not valid YAML: " + e.what());
  }
  if (documents.size() > 1)
    throw YamlError(origin + ": a second YAML document starts at line " + documentStartLine(text, documents[1]) +
                    "; a file holds one document (remove the '---' and what follows, or merge it into the first)");
  const YAML::Node root = documents.empty() ? YAML::Node() : documents.front();
  Walk walk{origin, {}, 0};
  rejectRepeatedKeys(root, "", walk);
  return root;
}

std::vector<FileRead>& readSoFar() {
  static std::vector<FileRead> files;
  return files;
}

const std::vector<FileRead>& filesRead() { return readSoFar(); }

std::string readTextFile(const std::filesystem::path& file, const std::string& what) {
  const std::string name = what + " '" + shownText(file.string()) + "'";
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) throw YamlError("cannot read " + name + ": it is a directory");
  // Not blocking: a FIFO without a writer, or a device, must not hang the
  // open before its kind is known.
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) throw YamlError("cannot open " + name + ": " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int error = errno;
    ::close(fd);
    throw YamlError("cannot read " + name + ": " + std::strerror(error));
  }
  const char* kind = S_ISCHR(st.st_mode) ? "a character device" : S_ISBLK(st.st_mode) ? "a block device"
                   : S_ISSOCK(st.st_mode) ? "a socket" : nullptr;
  if (kind) {
    ::close(fd);
    throw YamlError("cannot read " + name + ": it is " + kind + ", not a file (a run file, preset or model " +
                    "file is a regular file or a pipe)");
  }
  if (S_ISREG(st.st_mode) && std::uintmax_t(st.st_size) > kMaxFileBytes) {
    ::close(fd);
    throw YamlError("cannot read " + name + ": it is " + std::to_string(st.st_size) + " bytes, more than the " +
                    std::to_string(kMaxFileBytes >> 20) + " MiB a run file, preset or model file may have");
  }
  readSoFar().push_back(FileRead{what, file, st.st_dev, st.st_ino});
  // A named FIFO may get its writer after this open: reading it without
  // blocking, an end of file before any writer came means none yet, so
  // poll() waits for one. An anonymous pipe (`<(...)`, /dev/stdin) has had
  // its writer: there an end of file is the end.
  struct statfs fs;
  const bool waitForWriter = S_ISFIFO(st.st_mode) && ::fstatfs(fd, &fs) == 0 && fs.f_type != kPipeFsMagic;
  if (!waitForWriter) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  bool writerSeen = !waitForWriter;
  // At most one byte past the cap: a file that grows, or a pipe, stops there.
  std::string text;
  char buf[1 << 16];
  while (text.size() <= kMaxFileBytes) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      text.append(buf, std::size_t(n));
      writerSeen = true;
      continue;
    }
    if (n == 0 && writerSeen) break;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN) {
      const int error = errno;
      ::close(fd);
      throw YamlError("cannot read " + name + ": " + std::strerror(error));
    }
    // A FIFO: no writer yet (n == 0), or no data yet (EAGAIN).
    writerSeen = writerSeen || n < 0;
    pollfd wait{fd, POLLIN, 0};
    if (::poll(&wait, 1, -1) > 0) writerSeen = true;
  }
  ::close(fd);
  if (text.size() > kMaxFileBytes)
    throw YamlError("cannot read " + name + ": more than the " + std::to_string(kMaxFileBytes >> 20) +
                    " MiB a run file, preset or model file may have");
  return text;
}

}  // namespace wsesim::yaml
