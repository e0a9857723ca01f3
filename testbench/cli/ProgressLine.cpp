#include "testbench/cli/ProgressLine.h"

#include <cstdio>

namespace wsesim::cli {

void ProgressLine::progress(std::uint64_t cycle, double fraction, bool done) {
  if (done) {
    if (shown_) out_ << "\r\033[K" << std::flush;  // leave the terminal as it was
    return;
  }
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  char line[160];
  if (fraction > 0 && fraction < 1) {
    const double left = elapsed * (1 - fraction) / fraction;
    std::snprintf(line, sizeof line, "\r\033[K  cycle %llu, %.1f%% done, about %.0f s left (%.0f s so far)",
                  (unsigned long long)cycle, 100 * fraction, left, elapsed);
  } else {
    std::snprintf(line, sizeof line, "\r\033[K  cycle %llu (%.0f s so far)", (unsigned long long)cycle, elapsed);
  }
  out_ << line << std::flush;
  shown_ = true;
}

}  // namespace wsesim::cli
