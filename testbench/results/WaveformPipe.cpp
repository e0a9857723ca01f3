#include "testbench/results/WaveformPipe.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace wsesim::results {
namespace {

const char* const kFolderPrefix = "wsesim-vcd-";

std::string temporaryDirectory() {
  const char* dir = std::getenv("TMPDIR");
  return dir && *dir ? dir : "/tmp";
}

// A process killed by SIGKILL leaves its folder: the link in it names
// /proc/PID/fd/N of a process that is gone.
void removeStaleFolders(const std::string& tmp) {
  DIR* listing = ::opendir(tmp.c_str());
  if (!listing) return;
  while (const dirent* entry = ::readdir(listing)) {
    if (std::strncmp(entry->d_name, kFolderPrefix, std::strlen(kFolderPrefix)) != 0) continue;
    const std::string folder = tmp + "/" + entry->d_name, link = folder + "/waveform.vcd";
    std::error_code ec;
    const std::string target = std::filesystem::read_symlink(link, ec).string();
    if (ec || target.compare(0, 6, "/proc/") != 0) continue;
    const pid_t pid = pid_t(std::atol(target.c_str() + 6));
    if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH) {
      ::unlink(link.c_str());
      ::rmdir(folder.c_str());
    }
  }
  ::closedir(listing);
}

}  // namespace

WaveformPipe::WaveformPipe(const OutputTarget& target) : writer_(target) {
  try {
    const auto fail = [&](const std::string& what) {
      throw std::runtime_error("cannot write " + target.given + ": " + what + ": " + std::strerror(errno));
    };
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) fail("cannot make a pipe");
    read_ = fds[0], write_ = fds[1];
    stop_ = ::eventfd(0, EFD_CLOEXEC);
    if (stop_ < 0) fail("cannot make an eventfd");
    const std::string tmp = temporaryDirectory();
    removeStaleFolders(tmp);
    std::string pattern = tmp + "/" + kFolderPrefix + "XXXXXX";
    if (!::mkdtemp(pattern.data())) fail("cannot create a temporary folder in " + tmp);
    folder_ = pattern;
    folderEntry_ = PartialFile(folder_, true);
    link_ = folder_ + "/waveform.vcd";
    linkEntry_ = PartialFile(link_);
    const std::string pipeName = "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(write_);
    if (::symlink(pipeName.c_str(), link_.c_str()) != 0) fail("cannot create a link in " + folder_);
    base_ = folder_ + "/waveform";
    // The copier takes no interruption: the main thread's handler does.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    copier_ = std::thread(&WaveformPipe::copy, this);
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
  } catch (...) {
    abandon();
    throw;
  }
}

WaveformPipe::~WaveformPipe() { abandon(); }

void WaveformPipe::copy() noexcept {
  for (;;) {
    pollfd fds[2] = {{read_, POLLIN, 0}, {stop_, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      pipeError_ = errno;
      return;
    }
    if (fds[1].revents) return;
    const ssize_t n = ::read(read_, buffer_.data(), buffer_.size());
    if (n == 0) return;  // SystemC closed its file and we our end
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      pipeError_ = errno;
      return;
    }
    writer_.write(buffer_.data(), std::size_t(n));
  }
}

void WaveformPipe::removeLink() noexcept {
  for (int* fd : {&write_, &read_, &stop_})
    if (*fd >= 0) ::close(*fd), *fd = -1;
  if (!link_.empty()) ::unlink(link_.c_str());
  if (!folder_.empty()) ::rmdir(folder_.c_str());
  linkEntry_.reset();
  folderEntry_.reset();
}

void WaveformPipe::commit() {
  if (done_) throw std::logic_error("WaveformPipe::commit after commit or abandon");
  done_ = true;
  ::close(write_);  // the copier sees the end once SystemC has closed its file too
  write_ = -1;
  copier_.join();
  removeLink();
  if (pipeError_) {
    writer_.abandon();
    throw std::runtime_error("cannot write the waveform: reading its pipe failed: " +
                             std::string(std::strerror(pipeError_)));
  }
  writer_.commit();
}

void WaveformPipe::abandon() noexcept {
  if (done_) return;
  done_ = true;
  if (copier_.joinable()) {
    const std::uint64_t one = 1;
    if (::write(stop_, &one, sizeof one) != sizeof one) ::close(write_), write_ = -1;
    copier_.join();
  }
  removeLink();
  writer_.abandon();
}

}  // namespace wsesim::results
