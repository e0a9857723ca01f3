#pragma once
// The waveform (--vcd) on its way to its output. SystemC writes a VCD
// through a FILE of its own and never reports a failed write or close, so a
// full disk used to leave a truncated waveform that the run reported as
// written. Here SystemC writes into a pipe instead: the name it is given
// (systemcBaseName() + ".vcd") is a symlink, in a private temporary
// folder, to the pipe's write end, and a thread copies every byte to an
// OutputWriter, which keeps the first failure; commit() reports it.

#include <string>
#include <thread>
#include <vector>

#include "testbench/results/AtomicFile.h"
#include "testbench/results/PartialFiles.h"

namespace wsesim::results {

class WaveformPipe {
 public:
  // Opens the output (a FIFO waits for its reader) and starts the copier;
  // throws std::runtime_error naming the target.
  explicit WaveformPipe(const OutputTarget& target);
  ~WaveformPipe();  // abandons unless committed
  WaveformPipe(const WaveformPipe&) = delete;
  WaveformPipe& operator=(const WaveformPipe&) = delete;

  // What to give sc_create_vcd_trace_file, which appends ".vcd".
  const std::string& systemcBaseName() const { return base_; }
  // Once SystemC has closed its trace file: waits for the copier to reach
  // the end and commits the output (OutputWriter::commit, which throws).
  void commit();
  // On a failed run: stops the copier, removes the temporary.
  void abandon() noexcept;

 private:
  void copy() noexcept;
  void removeLink() noexcept;  // closes the pipe, removes the link and its folder

  OutputWriter writer_;
  int read_ = -1, write_ = -1, stop_ = -1;
  std::string folder_, link_, base_;
  PartialFile folderEntry_, linkEntry_;
  std::vector<char> buffer_ = std::vector<char>(1 << 16);
  int pipeError_ = 0;  // errno of a failed poll or read (the copier's only)
  std::thread copier_;
  bool done_ = false;
};

}  // namespace wsesim::results
