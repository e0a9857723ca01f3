// A run's stages told as one progress (hw/sim/ProgressShare.h): each
// stage's fractions land in its share, in order, an unknown fraction
// stays unknown, and the run ends once, with its last stage.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "hw/sim/ProgressShare.h"

namespace wsesim::sim {
namespace {

struct Heard : ProgressObserver {
  std::vector<double> fractions;
  unsigned done = 0;
  void progress(std::uint64_t, double fraction, bool end) override {
    fractions.push_back(fraction);
    done += end;
  }
};

TEST(ProgressShare, StagesFillTheirSharesInOrderAndOnlyTheLastEndsTheRun) {
  Heard heard;
  ProgressShare first(&heard, 0.0, 0.5, false), second(&heard, 0.5, 1.0, true);
  first.progress(10, 0.0, false);
  first.progress(20, 0.5, false);
  first.progress(30, 1.0, true);  // the first stage's end is not the run's
  second.progress(5, 0.5, false);
  second.progress(7, -1.0, false);  // the stage cannot tell
  second.progress(9, 1.0, true);
  EXPECT_EQ(heard.fractions, (std::vector<double>{0.0, 0.25, 0.75, -1.0, 1.0}));
  EXPECT_EQ(heard.done, 1u);
}

TEST(ProgressShare, WithoutAnObserverItIsNone) {
  ProgressShare share(nullptr, 0.0, 1.0, true);
  EXPECT_EQ(share.observer(), nullptr);
  share.progress(1, 0.5, true);  // tells no one, and does not fail
  Heard heard;
  ProgressShare told(&heard, 0.0, 1.0, true);
  EXPECT_EQ(told.observer(), &told);
}

}  // namespace
}  // namespace wsesim::sim
