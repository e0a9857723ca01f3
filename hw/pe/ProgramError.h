#pragma once
// A PE program that cannot run as written, or a PE that cannot hold it.

#include <stdexcept>
#include <string>

namespace wsesim::pe {

class ProgramError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace wsesim::pe
