#include "hw/pe/Isa.h"

namespace wsesim::pe {

bool TensorOp::usesFabric() const {
  if (dst.isFabric()) return true;
  for (const Descriptor& s : src)
    if (s.isFabric()) return true;
  return false;
}

}  // namespace wsesim::pe
