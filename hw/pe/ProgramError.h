#pragma once

#include "hw/common/Error.h"

namespace wsesim::pe {

// A PE program that cannot run as written, or a PE that cannot hold it.
class ProgramError : public Error {
 public:
  using Error::Error;
};

}  // namespace wsesim::pe
