#pragma once
// Every `arch.fabric.*` key, declared once beside RouterParams
// (common/KeyDecl.h). Adding a router key: a field in RouterParams, a row
// in RouterKeys.cpp, and its use.

#include "hw/common/KeyDecl.h"
#include "hw/fabric/FabricParams.h"

namespace wsesim::fabric {

const common::KeyTable<RouterParams>& routerKeys();

}  // namespace wsesim::fabric
