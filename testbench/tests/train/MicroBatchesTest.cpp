// How a batch is split into micro-batches (MicroBatches.h), against a
// stand-in for the SRAM check that fits up to a given size: `auto` takes
// as few micro-batches as fit, as even as they can be; a given size that
// does not fit is refused naming the key, what does not fit and the size
// that would.
#include <gtest/gtest.h>

#include "hw/common/ConfigError.h"
#include "testbench/train/MicroBatches.h"

namespace wsesim::train {
namespace {

MicroBatchMisfit fitsUpTo(std::uint32_t largest) {
  return [largest](std::uint32_t sequences) -> std::optional<std::string> {
    if (sequences <= largest) return std::nullopt;
    return "activations need more than 48 KiB";
  };
}

TEST(MicroBatches, AutoTakesAsFewAsFitAsEvenAsTheyCanBe) {
  // 112 sequences, 39 fit: 3 micro-batches (2 would need 56), of ceil(112 / 3) = 38, the last 36.
  const MicroBatches m = chooseMicroBatches(112, std::nullopt, fitsUpTo(39));
  EXPECT_EQ(m.count, 3u);
  EXPECT_EQ(m.size, 38u);
  EXPECT_EQ(m.last, 36u);
  EXPECT_EQ(m.largestFitting, 39u);
  EXPECT_TRUE(m.automatic);
  EXPECT_EQ(describe(m), "auto: 3 micro-batches of 38 sequences (the last of 36), as few as fit (the largest that fits: 39)");
  // 112 with 87 fitting: 2 even micro-batches of 56.
  const MicroBatches even = chooseMicroBatches(112, std::nullopt, fitsUpTo(87));
  EXPECT_EQ(even.count, 2u);
  EXPECT_EQ(even.size, 56u);
  EXPECT_EQ(even.last, 56u);
  // The whole batch fits: one micro-batch, the step as before.
  const MicroBatches whole = chooseMicroBatches(8, std::nullopt, fitsUpTo(100));
  EXPECT_EQ(whole.count, 1u);
  EXPECT_EQ(whole.size, 8u);
}

// More micro-batches than fit, for a step that recomputes less
// (TrainWorkload's `auto`): as even as they can be, and fewer when fewer of
// that size cover the batch.
TEST(MicroBatches, MoreThanTheFewestAreAsEvenAsTheyCanBe) {
  const MicroBatches three = evenMicroBatches(60, 3, 41);  // 2 would fit
  EXPECT_EQ(three.count, 3u);
  EXPECT_EQ(three.size, 20u);
  EXPECT_EQ(three.last, 20u);
  EXPECT_FALSE(three.fewest);
  EXPECT_EQ(describe(three), "auto: 3 micro-batches of 20 sequences, more than fit, for a better step (the largest "
                             "that fits: 41)");
  const MicroBatches seven = evenMicroBatches(60, 7, 41);  // ceil(60 / 7) = 9, the last of 6
  EXPECT_EQ(seven.count, 7u);
  EXPECT_EQ(seven.size, 9u);
  EXPECT_EQ(seven.last, 6u);
  EXPECT_EQ(evenMicroBatches(60, 11, 41).count, 10u);  // 6 sequences each: 10 cover the batch
  EXPECT_TRUE(evenMicroBatches(60, 2, 41).fewest);
}

TEST(MicroBatches, AGivenSizeIsKeptWithItsRemainder) {
  const MicroBatches m = chooseMicroBatches(10, 4u, fitsUpTo(6));
  EXPECT_FALSE(m.automatic);
  EXPECT_EQ(m.count, 3u);
  EXPECT_EQ(m.size, 4u);
  EXPECT_EQ(m.last, 2u);
}

TEST(MicroBatches, TooLargeIsRefusedWithTheSizeThatFits) {
  try {
    chooseMicroBatches(60, 60u, fitsUpTo(8));
    ADD_FAILURE() << "expected a ConfigError";
  } catch (const config::ConfigError& e) {
    EXPECT_STREQ(e.what(), "workload.micro_batch: 60 sequences do not fit: activations need more than 48 KiB; "
                           "micro_batch: 8 would (the largest that fits)");
  }
  try {
    chooseMicroBatches(4, std::nullopt, fitsUpTo(0));
    ADD_FAILURE() << "expected a ConfigError";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("workload.batch: not even a micro-batch of 1 sequence fits"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace wsesim::train
