#pragma once
// The one rule for whether a plan fits a PE's SRAM (arch.pe.sram_bytes) and
// its error. A plan lists what its fullest PE holds, part by part, as the
// allocator places it (each buffer aligned: SramAllocator::aligned); the
// budget says whether that fits and, when it does not, throws a PlanError
// naming the plan, the PE, every part with its bytes, the total and the limit.

#include <cstdint>
#include <string>
#include <vector>

#include "hw/config/ArchConfig.h"
#include "hw/pe/SramAllocator.h"

namespace wsesim::firmware {

// What one PE holds, each part described. A plan lists its parts once, as
// a template over the demand (SramDemand or SramBytes), and scans every PE
// with SramBytes: `what` is a callable that returns the part's description
// ("activations 125x125 f32"), called only when the demand is described.
class SramDemand {
 public:
  // `copies` buffers of `bytes` each.
  template <class What>
  SramDemand& add(What what, std::uint64_t bytes, unsigned copies = 1) {
    alignedBytes_ += copies * pe::SramAllocator::aligned(bytes);
    parts_.push_back({what(), bytes, copies});
    return *this;
  }
  // As placed: every buffer rounded up to the allocator's alignment.
  std::uint64_t bytes() const { return alignedBytes_; }
  // "a 100 f32 = 400 B; zeros 25 f32 = 3 x 100 B"
  std::string parts() const;

 private:
  struct Part {
    std::string what;
    std::uint64_t bytes;
    unsigned copies;
  };
  std::vector<Part> parts_;
  std::uint64_t alignedBytes_ = 0;
};

// The bytes of a demand alone: what a plan's scan over its PEs adds up.
class SramBytes {
 public:
  template <class What>
  SramBytes& add(What, std::uint64_t bytes, unsigned copies = 1) {
    bytes_ += copies * pe::SramAllocator::aligned(bytes);
    return *this;
  }
  std::uint64_t bytes() const { return bytes_; }

 private:
  std::uint64_t bytes_ = 0;
};

class SramBudget {
 public:
  explicit SramBudget(const config::ArchConfig& arch) : limit_(arch.pe.sramBytes) {}

  bool fits(std::uint64_t bytes) const { return bytes <= limit_; }
  bool fits(const SramDemand& d) const { return fits(d.bytes()); }
  // Throws PlanError unless `d`, the demand under `plan` (its description)
  // of the PE at mesh (x, y), fits; `hint` says what would make it smaller.
  // The PE is named in mesh coordinates, as the map and the NoC summary
  // name it, whatever grid the mapping lays on the mesh.
  void check(const std::string& plan, std::uint32_t x, std::uint32_t y, const SramDemand& d,
             const std::string& hint) const;

 private:
  std::uint64_t limit_;
};

}  // namespace wsesim::firmware
