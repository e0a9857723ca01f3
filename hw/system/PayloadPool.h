#pragma once
// A TLM-2.0 memory manager: generic payloads with their own data buffers,
// recycled when their reference count drops to zero (tlm_mm_interface), so
// a component that makes payloads (SwarmX's partial sums, MemoryX's weight
// transfers) allocates each buffer once, and a target may keep a payload
// past b_transport by acquire()-ing it.
//
// Timing-mode payloads carry no data: their data pointer is null and their
// data length is the size of the transfer; targets then count bytes only
// (docs/system-model.md, "Payloads").

#include <tlm>

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace wsesim::system {

class PayloadPool : public tlm::tlm_mm_interface {
 public:
  PayloadPool() = default;
  PayloadPool(const PayloadPool&) = delete;
  PayloadPool& operator=(const PayloadPool&) = delete;

  // A payload of `length` bytes with reference count 1, owned by the caller
  // until it calls release(). With `withData` its data pointer is a zeroed
  // buffer of `length` bytes, otherwise null.
  tlm::tlm_generic_payload& allocate(std::uint64_t length, bool withData);

  void free(tlm::tlm_generic_payload* payload) override;

  // Payloads ever created (the rest of the allocations reused one).
  std::size_t created() const { return slots_.size(); }
  std::size_t inUse() const { return slots_.size() - idle_.size(); }

 private:
  struct Slot {
    explicit Slot(tlm::tlm_mm_interface* mm) : payload(mm) {}
    tlm::tlm_generic_payload payload;
    std::vector<unsigned char> bytes;
  };
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<Slot*> idle_;
  std::unordered_map<const tlm::tlm_generic_payload*, Slot*> slotOf_;
};

}  // namespace wsesim::system
