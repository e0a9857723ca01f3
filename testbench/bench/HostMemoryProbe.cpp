// What one core of this host can fetch from memory: the ceilings a
// memory-bound simulation kernel runs into, recorded beside the fabric
// benchmark's results so that numbers from different hosts (or from one
// shared VM on different days) can be put side by side.
//
//   host_memory_probe [BUFFER_MIB]   -> one JSON object on stdout
//
// Two rates over a buffer far larger than the last-level cache, each the
// best of three passes:
// - random cache lines per second: a word of each of a random sequence of
//   lines is read and rewritten, the line 16 steps ahead prefetched (as the
//   fabric kernel's stages do), so misses overlap as far as the core allows;
// - streaming read bytes per second: a word of every line, in order, where
//   the hardware prefetchers see the pattern.
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

constexpr std::size_t kLine = 64, kWordsPerLine = kLine / sizeof(std::uint64_t);
constexpr std::size_t kRandomLines = std::size_t(1) << 24;  // a power of two: indices wrap by mask
constexpr std::size_t kPrefetchAhead = 16;
constexpr int kPasses = 3;

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

int main(int argc, char** argv) {
  char* end = nullptr;
  const long mib = argc > 1 ? std::strtol(argv[1], &end, 10) : 512;
  // Line indices are 32-bit: at most 2^32 lines, 256 GiB.
  if (argc > 2 || (argc > 1 && *end != '\0') || mib < 64 || mib > 262144) {
    std::cerr << "usage: host_memory_probe [BUFFER_MIB], BUFFER_MIB in 64..262144"
              << " (default 512: well past any last-level cache)\n";
    return 2;
  }
  const std::size_t bytes = std::size_t(mib) << 20, lines = bytes / kLine;
  void* mapped = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) {
    std::cerr << "host_memory_probe: cannot map a " << mib << " MiB buffer\n";
    return 1;
  }
  // Huge pages, as the fabric kernel's arrays ask for: the probe measures
  // the memory, not the TLB.
  ::madvise(mapped, bytes, MADV_HUGEPAGE);
  auto* words = static_cast<std::uint64_t*>(mapped);
  for (std::size_t i = 0; i < bytes / sizeof(std::uint64_t); ++i) words[i] = i;

  // Line indices drawn beforehand (xorshift64), so the timed loop does
  // nothing but memory work.
  std::vector<std::uint32_t> order(kRandomLines);
  std::uint64_t x = 0x9e3779b97f4a7c15ull;
  for (std::uint32_t& line : order) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    line = std::uint32_t(x % lines);
  }

  double randomBest = 0, streamBest = 0;
  std::uint64_t sink = 0;
  for (int pass = 0; pass < kPasses; ++pass) {
    auto start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < kRandomLines; ++i) {
      __builtin_prefetch(&words[order[(i + kPrefetchAhead) & (kRandomLines - 1)] * kWordsPerLine]);
      std::uint64_t& word = words[order[i] * kWordsPerLine];
      sink += word;
      word = sink;
    }
    const double random = double(kRandomLines) / seconds(start);

    start = std::chrono::steady_clock::now();
    for (std::size_t line = 0; line < lines; ++line) sink += words[line * kWordsPerLine];
    const double stream = double(bytes) / seconds(start);

    randomBest = std::max(randomBest, random);
    streamBest = std::max(streamBest, stream);
  }
  asm volatile("" : : "r"(sink));  // the passes' loads are used: not optimised away
  ::munmap(mapped, bytes);

  const nlohmann::json out = {{"buffer_bytes", bytes},
                              {"random_lines_per_second", randomBest},
                              {"random_prefetch_distance", kPrefetchAhead},
                              {"stream_read_bytes_per_second", streamBest}};
  std::cout << out.dump() << "\n";
  return 0;
}
