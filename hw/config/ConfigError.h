#pragma once

#include <stdexcept>

namespace wsesim::config {

// A configuration that cannot be run; the message names the key, the value,
// where the value came from, and what would be allowed.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace wsesim::config
