#pragma once
// What an optimizer costs MemoryX, per parameter: the bytes it keeps, the
// bytes one update reads and writes, and the FLOPs of one update. Every
// optimizer's update is linear in the parameters, so these three numbers
// are the whole model. Adding an optimizer is one row in OptimizerModel.cpp.

#include <string>
#include <vector>

namespace wsesim::system {

struct OptimizerModel {
  std::string name;
  unsigned storedBytesPerParameter;   // fp32 master weight + optimizer state
  unsigned touchedBytesPerParameter;  // one update: reads + writes
  unsigned flopsPerParameter;         // one update
};

// The optimizer called `name` ("sgd", "adam"); an unknown name throws
// std::invalid_argument listing the known ones.
const OptimizerModel& optimizerModel(const std::string& name);
std::vector<std::string> optimizerNames();

}  // namespace wsesim::system
