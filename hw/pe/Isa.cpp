#include "hw/pe/Isa.h"

namespace wsesim::pe {

bool TensorOp::usesFabric() const {
  if (dst.isFabric()) return true;
  for (const Descriptor& s : src)
    if (s.isFabric()) return true;
  return false;
}

int TensorOp::indexRegister() const {
  if (dst.index >= 0) return dst.index;
  for (const Descriptor& s : src)
    if (s.index >= 0) return s.index;
  return -1;
}

}  // namespace wsesim::pe
