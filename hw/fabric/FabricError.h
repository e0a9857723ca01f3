#pragma once
// Errors raised by the fabric model: misprogrammed routes, wavelets arriving
// where no route accepts them, and deadlocks.

#include <stdexcept>
#include <string>

namespace wsesim::fabric {

class FabricError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// No wavelet delivered or injected for the watchdog interval while wavelets
// were still in the fabric; what() carries the report of the blocked queues.
class DeadlockError : public FabricError {
 public:
  using FabricError::FabricError;
};

}  // namespace wsesim::fabric
