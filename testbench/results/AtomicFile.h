#pragma once
// Output files. What a path given for an output names decides how it is
// written (docs/configuration.md, "Output paths"):
//  - a regular file, or a name not taken yet: written to a temporary file
//    beside it, flushed, then renamed over it, so it appears whole or not at
//    all;
//  - a symlink: followed to the file it finally names, which is written as
//    above (the link stays a link);
//  - a character device or a FIFO: written directly, no temporary and no
//    rename (/dev/null stays /dev/null; /dev/full fails with "No space left
//    on device");
//  - `-`, /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: that open
//    descriptor of the process, written directly;
//  - a directory, a block device or a socket: refused.

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

#include "testbench/results/PartialFiles.h"

namespace wsesim::results {

struct OutputTarget {
  enum class Kind { File, Device, Fifo, Descriptor };
  std::string given;  // as named, for messages
  Kind kind = Kind::File;
  std::filesystem::path path;  // the file (a symlink's final target), the device or the FIFO
  int descriptor = -1;         // Kind::Descriptor

  bool isStandardOutput() const { return kind == Kind::Descriptor && descriptor == 1; }
  // What the target is now (device and inode), if it exists.
  std::optional<std::pair<dev_t, ino_t>> identity() const;
  // Two targets that are one file (or would be, once created).
  bool sameAs(const OutputTarget& other) const;
};

// Throws std::runtime_error saying why `given` cannot name an output (a
// symlink loop, a directory, a block device, a socket).
OutputTarget resolveOutput(const std::string& given);

// Throws std::runtime_error saying why unless `target` could be written: a
// file's directory exists and a file named as its temporary can be created
// there (tried, and removed at once); a device or FIFO can be opened for
// writing (a FIFO: has write permission); a descriptor is open for writing.
// For a check before a long run, not a promise: the disk may still fill.
// Also removes the temporaries a killed earlier run left for a file target
// (its `.tmp.PID` files whose process is gone, and an old `.partial.vcd`).
void checkWritable(const OutputTarget& target);
void checkWritable(const std::filesystem::path& target);

// An output being written, whose bytes may come in over time (a waveform):
// the first failure is kept and later bytes discarded; commit() reports it.
class OutputWriter {
 public:
  // Opens the temporary (a file target) or the target itself; throws
  // std::runtime_error naming the target. A FIFO waits for its reader here.
  explicit OutputWriter(const OutputTarget& target);
  ~OutputWriter();  // abandons unless committed
  OutputWriter(const OutputWriter&) = delete;
  OutputWriter& operator=(const OutputWriter&) = delete;

  void write(const char* data, std::size_t size) noexcept;
  // Flushes to the device and closes; a file's temporary is renamed over the
  // target. Throws std::runtime_error "cannot write GIVEN: REASON" on the
  // first failure of any write, the flush, the close or the rename, and
  // then leaves no temporary behind.
  void commit();
  // Closes and removes the temporary; the target is left as it was.
  void abandon() noexcept;

 private:
  [[noreturn]] void fail(int error);

  OutputTarget target_;
  std::filesystem::path temporary_;
  PartialFile partial_;
  int fd_ = -1;
  int error_ = 0;  // errno of the first failure
  bool done_ = false;
};

// Writes `contents` to `target` as OutputWriter does, at once.
void writeOutput(const OutputTarget& target, const std::string& contents);
// resolveOutput(target), then writeOutput.
void writeFileAtomically(const std::filesystem::path& target, const std::string& contents);

}  // namespace wsesim::results
