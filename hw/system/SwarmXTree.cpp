#include "hw/system/SwarmXTree.h"

#include <algorithm>
#include <stdexcept>

namespace wsesim::system {

SwarmXTree::SwarmXTree(unsigned systems, unsigned fanOut) : systems_(systems), fanOut_(fanOut) {
  if (systems < 1 || fanOut < 2) throw std::invalid_argument("SwarmXTree: needs >= 1 system and fan-out >= 2");
  // From the systems up: each level has ceil(width / f) parents, until one is left.
  widths_.push_back(systems);
  while (widths_.back() > 1) widths_.push_back((widths_.back() + fanOut - 1) / fanOut);
  std::reverse(widths_.begin(), widths_.end());
}

unsigned SwarmXTree::children(unsigned level, unsigned index) const {
  const unsigned below = width(level + 1);
  const unsigned first = index * fanOut_;
  return first >= below ? 0 : std::min(fanOut_, below - first);
}

unsigned SwarmXTree::nodes() const {
  unsigned n = 0;
  for (unsigned level = 0; level < depth(); ++level) n += width(level);
  return n;
}

}  // namespace wsesim::system
