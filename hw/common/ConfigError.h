#pragma once

#include "hw/common/Error.h"

namespace wsesim::config {

// A configuration that cannot be run; the message names the key, the value,
// where the value came from, and what would be allowed.
class ConfigError : public Error {
 public:
  using Error::Error;
};

}  // namespace wsesim::config
