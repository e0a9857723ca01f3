#pragma once
// The keys of IoParams (`arch.io.*`), declared once beside it (common/KeyDecl.h).

#include "hw/common/KeyDecl.h"
#include "hw/wafer/IoParams.h"

namespace wsesim::wafer {

const common::KeyTable<IoParams>& ioKeys();

}  // namespace wsesim::wafer
