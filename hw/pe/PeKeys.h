#pragma once
// Every `arch.pe.*` key, declared once beside PeParams (common/KeyDecl.h).
// Adding a PE key: a field in PeParams, a row in PeKeys.cpp, and its use.

#include "hw/common/KeyDecl.h"
#include "hw/pe/PeParams.h"

namespace wsesim::pe {

// The families: the lanes and cycles_per_element tables, one key per
// precision and op (read by the config layer, bounded by each other).
const common::KeyTable<PeParams>& peKeys();

}  // namespace wsesim::pe
