#include "testbench/results/AtomicFile.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace wsesim::results {
namespace {

std::filesystem::path temporaryFor(const std::filesystem::path& target) {
  return target.string() + ".tmp." + std::to_string(::getpid());
}

}  // namespace

void checkWritable(const std::filesystem::path& target) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(target, ec)) throw std::runtime_error("'" + target.string() + "' is a directory");
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (!fs::exists(dir, ec)) throw std::runtime_error("the directory '" + dir.string() + "' does not exist");
  if (!fs::is_directory(dir, ec)) throw std::runtime_error("'" + dir.string() + "' is not a directory");
  const std::string temporaryName = temporaryFor(target).filename().string();
  const long nameMax = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  if (nameMax > 0 && temporaryName.size() > std::size_t(nameMax))
    throw std::runtime_error("file name too long: " + std::to_string(temporaryName.size()) +
                             " bytes with the temporary's suffix, at most " + std::to_string(nameMax));
  // An unnamed file: a process killed right here leaves nothing behind.
  int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY, 0600);
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR)) {  // a file system without O_TMPFILE
    const fs::path probe = temporaryFor(target);
    fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd >= 0) ::unlink(probe.c_str());
  }
  if (fd < 0) throw std::runtime_error("cannot create a file in '" + dir.string() + "': " + std::strerror(errno));
  ::close(fd);
}

void writeFileAtomically(const std::filesystem::path& target, const std::string& contents) {
  const std::filesystem::path temp = temporaryFor(target);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw std::runtime_error("cannot write " + target.string() + ": " + std::strerror(errno));
  std::size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      throw std::runtime_error("cannot write " + target.string() + ": " + std::strerror(err));
    }
    done += std::size_t(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    throw std::runtime_error("cannot write " + target.string() + ": " + std::strerror(err));
  }
  publishFile(temp, target);
}

void publishFile(const std::filesystem::path& finished, const std::filesystem::path& target) {
  if (::rename(finished.c_str(), target.c_str()) != 0) {
    const int err = errno;
    ::unlink(finished.c_str());
    throw std::runtime_error("cannot move " + finished.string() + " to " + target.string() + ": " +
                             std::strerror(err));
  }
}

}  // namespace wsesim::results
