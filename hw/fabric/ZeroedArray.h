#pragma once
// A fixed-size array of zero-initialised trivial objects whose memory the OS
// backs only when first touched (anonymous mmap). State for every router of
// a full wafer can be declared up front and cost only what traffic touches.
//
// Pages are 4 KiB unless the array asks for huge ones: the fabric's router
// state and queues are walked densely every cycle, and on a large mesh
// 4 KiB pages cost a TLB miss on most accesses; sparsely touched arrays
// (PE SRAM) keep small pages, since a 2 MiB page backs all of it at once.

#include <sys/mman.h>

#include <cstddef>
#include <new>
#include <type_traits>

namespace wsesim::fabric {

template <class T>
class ZeroedArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "all-zero bytes must be a valid T");
  static_assert(alignof(T) <= 4096, "mmap memory is page aligned");

 public:
  enum class Pages { Small, Huge };

  explicit ZeroedArray(std::size_t size, Pages pages = Pages::Small) : size_(size) {
    if (size == 0) return;
    void* p = ::mmap(nullptr, bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    // Only advice: where the kernel has no huge pages to give, 4 KiB pages serve.
    if (pages == Pages::Huge) ::madvise(p, bytes(), MADV_HUGEPAGE);
    data_ = static_cast<T*>(p);
  }
  ~ZeroedArray() {
    if (data_) ::munmap(data_, bytes());
  }
  ZeroedArray(const ZeroedArray&) = delete;
  ZeroedArray& operator=(const ZeroedArray&) = delete;

  T& operator[](std::size_t i) const { return data_[i]; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }

 private:
  T* data_ = nullptr;
  std::size_t size_;
};

}  // namespace wsesim::fabric
