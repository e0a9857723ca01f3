#include "testbench/results/PartialFiles.h"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

namespace wsesim::results {
namespace {

// The registry is plain arrays, so that the handler may read it: it does
// nothing but unlink(), rmdir(), write() and _exit(), which are
// async-signal-safe. A run registers a few files at a time.
constexpr int kSlots = 32;
enum : int { kFree = 0, kFile = 1, kDirectory = 2 };
char gPaths[kSlots][PATH_MAX];
volatile sig_atomic_t gKinds[kSlots];

constexpr int kInterrupts[] = {SIGINT, SIGTERM, SIGHUP};

sigset_t interruptSet() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : kInterrupts) sigaddset(&set, s);
  return set;
}

// The registry changes with the interrupting signals blocked in this thread
// (the only one that takes them: the waveform's copier blocks them).
class InterruptsBlocked {
 public:
  InterruptsBlocked() {
    const sigset_t set = interruptSet();
    pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  ~InterruptsBlocked() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

 private:
  sigset_t old_;
};

void say(const char* text) {
  for (std::size_t left = std::strlen(text); left > 0;) {
    const ssize_t n = ::write(STDERR_FILENO, text, left);
    if (n <= 0) return;
    text += n, left -= std::size_t(n);
  }
}

extern "C" void onInterrupt(int signal) {
  for (int kind : {int(kFile), int(kDirectory)})
    for (int i = 0; i < kSlots; ++i)
      if (gKinds[i] == kind) kind == kFile ? ::unlink(gPaths[i]) : ::rmdir(gPaths[i]);
  say("wsesim: interrupted by ");
  say(signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "SIGHUP");
  say("; unfinished output files removed\n");
  ::_exit(128 + signal);
}

}  // namespace

void removePartialFilesOnInterrupt() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  action.sa_mask = interruptSet();  // one interruption at a time
  for (int s : kInterrupts) {
    struct sigaction old {};
    // A signal the caller ignores (nohup's SIGHUP) stays ignored.
    if (sigaction(s, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(s, &action, nullptr);
  }
}

void concludeRun() {
  const sigset_t set = interruptSet();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

PartialFile::PartialFile(const std::string& path, bool directory) {
  if (path.size() >= PATH_MAX) return;  // no such path can be opened either
  InterruptsBlocked blocked;
  for (int i = 0; i < kSlots; ++i)
    if (gKinds[i] == kFree) {
      std::memcpy(gPaths[i], path.c_str(), path.size() + 1);
      gKinds[i] = directory ? kDirectory : kFile;
      slot_ = i;
      return;
    }
  throw std::logic_error("more than 32 unfinished output files at once");
}

PartialFile& PartialFile::operator=(PartialFile&& other) noexcept {
  if (this != &other) {
    reset();
    slot_ = other.slot_;
    other.slot_ = -1;
  }
  return *this;
}

void PartialFile::reset() noexcept {
  if (slot_ < 0) return;
  InterruptsBlocked blocked;
  gKinds[slot_] = kFree;
  slot_ = -1;
}

}  // namespace wsesim::results
