#include "testbench/results/AtomicFile.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <stdexcept>

namespace wsesim::results {
namespace fs = std::filesystem;
namespace {

std::string temporarySuffix() { return ".tmp." + std::to_string(::getpid()); }
fs::path temporaryFor(const fs::path& target) { return target.string() + temporarySuffix(); }

std::runtime_error failure(const std::string& why, int error) {
  return std::runtime_error(why + ": " + std::strerror(error));
}

// The real path of `dir`, or "" if it has none.
std::string realPath(const fs::path& dir) {
  char real[PATH_MAX];
  return ::realpath(dir.c_str(), real) ? std::string(real) : std::string();
}

const char* kindName(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a file";
}

// A killed earlier run leaves TARGET.tmp.PID (SIGKILL cannot be caught) or,
// before temporaries carried the PID, a waveform's TARGET.partial.vcd. They
// are removed once their process is gone and they have not changed for a
// minute (a run of another PID namespace sharing the folder keeps its own).
void removeStaleTemporaries(const fs::path& target) {
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string name = target.filename().string(), tmp = name + ".tmp.";
  DIR* listing = ::opendir(dir.c_str());
  if (!listing) return;
  while (const dirent* entry = ::readdir(listing)) {
    const std::string file = entry->d_name;
    bool stale = file == name + ".partial.vcd";
    if (file.size() > tmp.size() && file.compare(0, tmp.size(), tmp) == 0) {
      const std::string pid = file.substr(tmp.size());
      if (pid.find_first_not_of("0123456789") != std::string::npos || pid.size() > 9) continue;
      stale = ::kill(pid_t(std::atol(pid.c_str())), 0) != 0 && errno == ESRCH;
    }
    struct stat st;
    if (stale && ::lstat((dir / file).c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        std::time(nullptr) - st.st_mtime > 60)
      ::unlink((dir / file).c_str());
  }
  ::closedir(listing);
}

void checkFileWritable(const fs::path& target) {
  std::error_code ec;
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (!fs::exists(dir, ec)) throw std::runtime_error("the directory '" + dir.string() + "' does not exist");
  if (!fs::is_directory(dir, ec)) throw std::runtime_error("'" + dir.string() + "' is not a directory");
  const std::string temporaryName = temporaryFor(target).filename().string();
  const long nameMax = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  if (nameMax > 0 && temporaryName.size() > std::size_t(nameMax))
    throw std::runtime_error("file name too long: " + std::to_string(temporaryName.size()) +
                             " bytes with the temporary's suffix, at most " + std::to_string(nameMax));
  // An unnamed file: a process killed right here leaves nothing behind.
  int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR)) {  // a file system without O_TMPFILE
    const fs::path probe = temporaryFor(target);
    fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) ::unlink(probe.c_str());
  }
  if (fd < 0) throw failure("cannot create a file in '" + dir.string() + "'", errno);
  ::close(fd);
  removeStaleTemporaries(target);
}

}  // namespace

OutputTarget resolveOutput(const std::string& given) {
  OutputTarget t;
  t.given = given;
  if (given == "-") {
    t.kind = OutputTarget::Kind::Descriptor;
    t.descriptor = STDOUT_FILENO;
    return t;
  }
  if (given.empty()) throw std::runtime_error("an empty path names no file");
  const std::string ownDescriptors = "/proc/" + std::to_string(::getpid()) + "/fd";
  fs::path p = given;
  for (int hops = 0;; ++hops) {
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) break;  // a missing file is created
    if (hops == 40) throw std::runtime_error("too many levels of symbolic links from '" + given + "'");
    const fs::path parent = p.has_parent_path() ? p.parent_path() : fs::path(".");
    // /dev/stdout -> /proc/self/fd/1: a descriptor of this process, not a file to replace.
    const std::string name = p.filename().string();
    if (realPath(parent) == ownDescriptors && !name.empty() && name.size() < 10 &&
        name.find_first_not_of("0123456789") == std::string::npos) {
      t.kind = OutputTarget::Kind::Descriptor;
      t.descriptor = std::atoi(name.c_str());
      return t;
    }
    std::error_code ec;
    const fs::path link = fs::read_symlink(p, ec);
    if (ec) throw std::runtime_error("cannot follow the symlink '" + p.string() + "': " + ec.message());
    p = link.is_absolute() || !p.has_parent_path() ? link : p.parent_path() / link;
  }
  t.path = p;
  struct stat st;
  if (::stat(p.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return t;
  if (S_ISCHR(st.st_mode)) {
    t.kind = OutputTarget::Kind::Device;
    return t;
  }
  if (S_ISFIFO(st.st_mode)) {
    t.kind = OutputTarget::Kind::Fifo;
    return t;
  }
  const std::string through = p.string() == given ? "" : " (through the symlink to '" + p.string() + "')";
  if (S_ISDIR(st.st_mode)) throw std::runtime_error("'" + given + "' is a directory" + through);
  throw std::runtime_error("'" + given + "' is " + kindName(st.st_mode) + through +
                           ": an output is a regular file, a character device, a FIFO or - (standard output)");
}

std::optional<std::pair<dev_t, ino_t>> OutputTarget::identity() const {
  struct stat st;
  const int status = kind == Kind::Descriptor ? ::fstat(descriptor, &st) : ::stat(path.c_str(), &st);
  if (status != 0) return std::nullopt;
  return std::make_pair(st.st_dev, st.st_ino);
}

bool OutputTarget::sameAs(const OutputTarget& other) const {
  const auto mine = identity(), theirs = other.identity();
  if (mine || theirs) return mine == theirs;
  if (kind != Kind::File || other.kind != Kind::File) return false;
  std::error_code ec1, ec2;
  const fs::path a = fs::weakly_canonical(fs::absolute(path), ec1), b = fs::weakly_canonical(fs::absolute(other.path), ec2);
  return ec1 || ec2 ? fs::absolute(path).lexically_normal() == fs::absolute(other.path).lexically_normal() : a == b;
}

void checkWritable(const OutputTarget& target) {
  switch (target.kind) {
    case OutputTarget::Kind::File:
      return checkFileWritable(target.path);
    case OutputTarget::Kind::Device: {
      const int fd = ::open(target.path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
      if (fd < 0) throw failure("cannot open the device '" + target.path.string() + "'", errno);
      ::close(fd);
      return;
    }
    case OutputTarget::Kind::Fifo:
      // Opening it now would wait for a reader: only the permission is checked.
      if (::access(target.path.c_str(), W_OK) != 0)
        throw failure("cannot write the FIFO '" + target.path.string() + "'", errno);
      return;
    case OutputTarget::Kind::Descriptor: {
      const int flags = ::fcntl(target.descriptor, F_GETFL);
      if (flags < 0) throw failure("descriptor " + std::to_string(target.descriptor) + " is not open", errno);
      if ((flags & O_ACCMODE) == O_RDONLY)
        throw std::runtime_error("descriptor " + std::to_string(target.descriptor) + " is open for reading only");
      return;
    }
  }
}

void checkWritable(const fs::path& target) { checkWritable(resolveOutput(target.string())); }

OutputWriter::OutputWriter(const OutputTarget& target) : target_(target) {
  switch (target.kind) {
    case OutputTarget::Kind::File:
      temporary_ = temporaryFor(target.path);
      partial_ = PartialFile(temporary_.string());
      ::unlink(temporary_.c_str());  // one of a process that had this PID
      fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
      break;
    case OutputTarget::Kind::Device:
    case OutputTarget::Kind::Fifo:
      fd_ = ::open(target.path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
      break;
    case OutputTarget::Kind::Descriptor:
      fd_ = ::fcntl(target.descriptor, F_DUPFD_CLOEXEC, 0);
      break;
  }
  if (fd_ < 0) fail(errno);
}

OutputWriter::~OutputWriter() { abandon(); }

void OutputWriter::write(const char* data, std::size_t size) noexcept {
  while (size > 0 && !error_ && !done_) {
    const ssize_t n = ::write(fd_, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error_ = n < 0 ? errno : EIO;
      return;
    }
    data += n, size -= std::size_t(n);
  }
}

void OutputWriter::commit() {
  if (done_) throw std::logic_error("OutputWriter::commit after commit or abandon");
  if (error_) fail(error_);
  // fsync: a file's blocks are on the disk before its name points at them.
  if (target_.kind == OutputTarget::Kind::File && ::fsync(fd_) != 0) fail(errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail(errno);
  if (target_.kind == OutputTarget::Kind::File && ::rename(temporary_.c_str(), target_.path.c_str()) != 0)
    fail(errno);
  partial_.reset();
  done_ = true;
}

void OutputWriter::abandon() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!done_ && !temporary_.empty()) ::unlink(temporary_.c_str());
  partial_.reset();
  done_ = true;
}

void OutputWriter::fail(int error) {
  abandon();
  throw failure("cannot write " + target_.given, error);
}

void writeOutput(const OutputTarget& target, const std::string& contents) {
  OutputWriter writer(target);
  writer.write(contents.data(), contents.size());
  writer.commit();
}

void writeFileAtomically(const fs::path& target, const std::string& contents) {
  writeOutput(resolveOutput(target.string()), contents);
}

}  // namespace wsesim::results
