#include "comm/GradientBuckets.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

using Buckets = std::vector<std::vector<std::size_t>>;

constexpr std::size_t kMiB = 1 << 20;

TEST(GradientBuckets, ReverseOrderWithASmallFirstBucket) {
  // Four 512 KiB gradients: the first bucket closes at 1 MiB (two of them), the rest share one.
  EXPECT_EQ(assignBuckets({kMiB / 2, kMiB / 2, kMiB / 2, kMiB / 2}, kMiB, 25 * kMiB),
            (Buckets{{3, 2}, {1, 0}}));
}

TEST(GradientBuckets, ReferenceMlpGetsOneBucketPerLayer) {
  // 8 x Linear(8192, 8192): weight 256 MiB, bias 32 KiB, registered weight then bias.
  std::vector<std::size_t> bytes;
  for (int layer = 0; layer < 8; ++layer) {
    bytes.push_back(8192ull * 8192 * 4);
    bytes.push_back(8192 * 4);
  }
  const Buckets buckets = assignBuckets(bytes, kMiB, 25 * kMiB);
  ASSERT_EQ(buckets.size(), 8u);
  EXPECT_EQ(buckets.front(), (std::vector<std::size_t>{15, 14}));  // last layer's bias, weight
  EXPECT_EQ(buckets.back(), (std::vector<std::size_t>{1, 0}));
}

TEST(GradientBuckets, ABucketClosesAtItsCapAndTheRestStayOpen) {
  EXPECT_EQ(assignBuckets({10, 10, 10, 10, 10}, 10, 20), (Buckets{{4}, {3, 2}, {1, 0}}));
  EXPECT_EQ(assignBuckets({5, 10, 10}, 10, 20), (Buckets{{2}, {1, 0}}));
  EXPECT_EQ(assignBuckets({1, 1}, 10, 20), (Buckets{{1, 0}}));
  EXPECT_TRUE(assignBuckets({}, 10, 20).empty());
}

}  // namespace
}  // namespace splitstep
