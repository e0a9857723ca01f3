#pragma once
// The keys of the `arch` structs that live in ArchConfig (the mesh, the
// firmware kernels' loops), each declared once beside its struct
// (common/KeyDecl.h), as PeKeys, RouterKeys, IoKeys and SystemKeys declare
// the PE's, the router's, the I/O ring's and the system's. Adding one: a
// field in the struct, a row in ArchKeys.cpp, its value in the presets,
// and its use.

#include "hw/common/KeyDecl.h"
#include "hw/config/ArchConfig.h"

namespace wsesim::config {

const common::KeyTable<fabric::MeshGeometry>& meshKeys();
const common::KeyTable<ArchConfig::Firmware>& firmwareKeys();

}  // namespace wsesim::config
