#pragma once
// Errors raised by the fabric model: misprogrammed routes, wavelets arriving
// where no route accepts them, and deadlocks.

#include <string>

#include "hw/common/Error.h"

namespace wsesim::fabric {

class FabricError : public Error {
 public:
  using Error::Error;
};

// For the watchdog interval, wavelets waited in the fabric while nothing
// moved and nothing was due (FabricKernel::notePendingUntil); what() carries
// the report of the blocked queues.
class DeadlockError : public FabricError {
 public:
  using FabricError::FabricError;
};

}  // namespace wsesim::fabric
