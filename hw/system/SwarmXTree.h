#pragma once
// The shape of a SwarmX tree over N systems with fan-out f: levels 0..depth,
// level 0 the root node, level `depth` the systems themselves, every entry
// of level l > 0 the child of entry index / f of level l - 1. depth =
// ceil(log_f N) nodes on every path (0 for one system: MemoryX talks to it
// directly). Every entry has one link to its parent, the root's to MemoryX.

#include <vector>

namespace wsesim::system {

class SwarmXTree {
 public:
  // `systems` >= 1, `fanOut` >= 2.
  SwarmXTree(unsigned systems, unsigned fanOut);

  unsigned systems() const { return systems_; }
  unsigned fanOut() const { return fanOut_; }
  unsigned depth() const { return unsigned(widths_.size()) - 1; }
  // Entries at `level`: 1 at level 0, `systems` at level depth().
  unsigned width(unsigned level) const { return widths_.at(level); }
  unsigned parent(unsigned index) const { return index / fanOut_; }
  // Children of entry (level, index), level < depth().
  unsigned children(unsigned level, unsigned index) const;
  // Broadcast/reduce nodes: the entries of levels 0 .. depth() - 1.
  unsigned nodes() const;

 private:
  unsigned systems_, fanOut_;
  std::vector<unsigned> widths_;
};

}  // namespace wsesim::system
