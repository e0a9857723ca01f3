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

// For the watchdog interval, wavelets waited in the fabric while nothing
// moved and nothing was due (FabricKernel::notePendingUntil); what() carries
// the report of the blocked queues.
class DeadlockError : public FabricError {
 public:
  using FabricError::FabricError;
};

}  // namespace wsesim::fabric
