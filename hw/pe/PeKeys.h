#pragma once
// Every `arch.pe.*` key, declared once beside PeParams (common/KeyDecl.h).
// Adding a PE key: a field in PeParams, a row in PeKeys.cpp, and its use.

#include <vector>

#include "hw/common/KeyDecl.h"
#include "hw/pe/PeParams.h"

namespace wsesim::pe {

inline constexpr const char* kPeKeyPrefix = "arch.pe.";

// In reading order (a key bounded by another comes after it).
const std::vector<common::IntegerKey<PeParams>>& peKeys();
// The lanes and cycles_per_element tables, one key per precision and op.
const std::vector<common::KeyFamily>& peKeyFamilies();

}  // namespace wsesim::pe
