#include "testbench/results/AtomicFile.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace wsesim::results {

void writeFileAtomically(const std::filesystem::path& target, const std::string& contents) {
  const std::filesystem::path temp = target.string() + ".tmp." + std::to_string(::getpid());
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
