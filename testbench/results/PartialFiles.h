#pragma once
// Files that exist only while an output is being written (a temporary about
// to be renamed into place, a waveform's pipe and its folder). An
// interrupted run removes them: on SIGINT, SIGTERM or SIGHUP the handler
// installed by removePartialFilesOnInterrupt() removes every file still
// registered, prints "wsesim: interrupted by SIGNAME ..." on stderr and
// exits with 128 + the signal's number.

#include <string>

namespace wsesim::results {

// Installs the handlers; calling it again does nothing.
void removePartialFilesOnInterrupt();

// The run's outcome is decided (its last line is about to be written, or
// its outputs are all in): an interrupt from now on changes nothing, so it
// is blocked for the rest of the process (a SIGTERM during a failed run's
// exit would otherwise add "interrupted" to its one error line and turn its
// status into 143).
void concludeRun();

// Registers a path for removal on interruption for as long as it lives
// (a directory is removed after the files, and only if empty). Destroying
// or reset() unregisters it; neither removes the file.
class PartialFile {
 public:
  PartialFile() = default;
  explicit PartialFile(const std::string& path, bool directory = false);
  ~PartialFile() { reset(); }
  PartialFile(const PartialFile&) = delete;
  PartialFile& operator=(const PartialFile&) = delete;
  PartialFile(PartialFile&& other) noexcept : slot_(other.slot_) { other.slot_ = -1; }
  PartialFile& operator=(PartialFile&& other) noexcept;

  void reset() noexcept;

 private:
  int slot_ = -1;
};

}  // namespace wsesim::results
