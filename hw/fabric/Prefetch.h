#pragma once
// A hint that the line holding `p` will soon be read or written.
//
// Not __builtin_prefetch: GCC 12 at -O2/-O3 deletes it as dead code where
// its address comes from a conditional load (most of the kernel's hints:
// a queue's slot is known only from its header), so the hints that matter
// most were silently missing. An asm statement is never deleted.

namespace wsesim::fabric {

inline void prefetch(const void* p) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
#endif
}

}  // namespace wsesim::fabric
