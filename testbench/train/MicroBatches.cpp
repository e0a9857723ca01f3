#include "testbench/train/MicroBatches.h"

#include "hw/common/ConfigError.h"

namespace wsesim::train {
namespace {

// The largest micro-batch in [1, batch] that fits (SRAM needs grow with the
// tokens, so fitting is monotone), or 0 when not even one sequence does.
std::uint32_t largestFitting(std::uint32_t batch, const MicroBatchMisfit& misfit) {
  if (!misfit(batch)) return batch;
  std::uint32_t fits = 0, fails = batch;  // invariant: fits fits (0: none yet), fails does not
  while (fails - fits > 1) {
    const std::uint32_t mid = fits + (fails - fits) / 2;
    (misfit(mid) ? fails : fits) = mid;
  }
  return fits;
}

}  // namespace

MicroBatches chooseMicroBatches(std::uint32_t batch, std::optional<std::uint32_t> requested,
                                const MicroBatchMisfit& misfit) {
  MicroBatches m;
  m.automatic = !requested;
  if (requested) {
    if (const std::optional<std::string> why = misfit(*requested)) {
      const std::uint32_t fits = largestFitting(*requested, misfit);
      throw config::ConfigError("workload.micro_batch: " + std::to_string(*requested) +
                                " sequences do not fit: " + *why +
                                (fits ? "; micro_batch: " + std::to_string(fits) + " would (the largest that fits)"
                                      : "; not even 1 sequence fits"));
    }
    m.size = *requested;
  } else {
    m.largestFitting = largestFitting(batch, misfit);
    if (m.largestFitting == 0)
      throw config::ConfigError("workload.batch: not even a micro-batch of 1 sequence fits: " + *misfit(1) +
                                " (a shorter workload.seq, or more arch.pe.sram_bytes)");
    // As few micro-batches as fit, as even as they can be.
    return evenMicroBatches(batch, (batch + m.largestFitting - 1) / m.largestFitting, m.largestFitting);
  }
  m.count = (batch + m.size - 1) / m.size;
  m.last = batch - (m.count - 1) * m.size;
  m.largestFitting = m.size;
  return m;
}

MicroBatches evenMicroBatches(std::uint32_t batch, std::uint32_t count, std::uint32_t largestFitting) {
  MicroBatches m;
  m.size = (batch + count - 1) / count;
  m.count = (batch + m.size - 1) / m.size;
  m.last = batch - (m.count - 1) * m.size;
  m.largestFitting = largestFitting;
  m.fewest = m.count == (batch + largestFitting - 1) / largestFitting;
  return m;
}

std::string describe(const MicroBatches& m) {
  std::string text = std::string(m.automatic ? "auto" : "workload.micro_batch") + ": " + std::to_string(m.count) +
                     (m.count == 1 ? " micro-batch of " : " micro-batches of ") + std::to_string(m.size) +
                     (m.size == 1 ? " sequence" : " sequences");
  if (m.last != m.size) text += " (the last of " + std::to_string(m.last) + ")";
  if (m.automatic)
    text += std::string(m.fewest ? ", as few as fit" : ", more than fit, for a better step") +
            " (the largest that fits: " + std::to_string(m.largestFitting) + ")";
  return text;
}

}  // namespace wsesim::train
