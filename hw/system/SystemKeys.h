#pragma once
// The keys of SystemParams.h's structs, each declared once beside its
// struct (common/KeyDecl.h).

#include "hw/common/KeyDecl.h"
#include "hw/system/SystemParams.h"

namespace wsesim::system {

const common::KeyTable<MemoryXParams>& memoryxKeys();
const common::KeyTable<SwarmXParams>& swarmxKeys();
const common::KeyTable<ClusterParams>& clusterKeys();

}  // namespace wsesim::system
