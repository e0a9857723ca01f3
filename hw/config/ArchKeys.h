#pragma once
// The keys of the `arch` structs that live in ArchConfig (the mesh, the I/O
// ring, MemoryX, SwarmX, the cluster, the firmware kernels' loops), each
// declared once beside its struct (common/KeyDecl.h), as PeKeys and
// RouterKeys declare the PE's and the router's. Adding one: a field in the
// struct, a row in ArchKeys.cpp, its value in the presets, and its use.

#include "hw/common/KeyDecl.h"
#include "hw/config/ArchConfig.h"

namespace wsesim::config {

const common::KeyTable<fabric::MeshGeometry>& meshKeys();
const common::KeyTable<ArchConfig::Io>& ioKeys();
const common::KeyTable<ArchConfig::MemoryX>& memoryxKeys();
const common::KeyTable<ArchConfig::SwarmX>& swarmxKeys();
const common::KeyTable<ArchConfig::Cluster>& clusterKeys();
const common::KeyTable<ArchConfig::Firmware>& firmwareKeys();

}  // namespace wsesim::config
