#pragma once
// What `wsesim run` can tell of a configuration key that no reader read:
// the key of another workload type it belongs to, or the known key it is
// most likely a misspelling of.

#include <string>
#include <vector>

#include "testbench/keys/KeyCatalogue.h"

namespace wsesim::keys {

// For `key`, unknown to a run of workload type `type`: "a key of
// workload.type noc, not gemm", "did you mean workload.utilisation?", or
// empty when nothing in `catalogue` is close.
std::string unknownKeyHint(const std::vector<KeySection>& catalogue, const std::string& type, const std::string& key);

}  // namespace wsesim::keys
