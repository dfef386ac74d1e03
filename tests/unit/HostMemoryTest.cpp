#include "device/HostMemory.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "common/MemoryBudget.hpp"

namespace splitstep {
namespace {

constexpr std::uint64_t kMiB = 1ull << 20;
constexpr std::uint64_t kGiB = 1ull << 30;

// `ranks` ranks on a node, each holding `held_each`, with `available` left.
NodeMemory node(int ranks, std::uint64_t held_each, std::uint64_t available) {
  const auto n = static_cast<std::uint64_t>(ranks);
  return {ranks, available, n * held_each, n * std::max(held_each, kRankBaseBytes)};
}

TEST(HostMemory, RanksThatCannotAllFitAreRefusedWithHowManyFit) {
  // 128 CPU ranks on a 24 GiB machine: at start they hold 180 MiB each and 1 GiB is left.
  EXPECT_EQ(ranksRefusal(node(128, 180 * kMiB, 1 * kGiB), "node7"),
            "host memory: 128 ranks on node7 take 24.0 GiB before any case (192 MiB each, "
            "LibTorch and MPI), more than the 21.2 GiB of 23.5 GiB that may be used there "
            "(MemAvailable 1.00 GiB and the 22.5 GiB the ranks hold); 112 ranks fit");
  EXPECT_EQ(ranksRefusal(node(2, 180 * kMiB, 20 * kMiB), "node7"),
            "host memory: 2 ranks on node7 take 384 MiB before any case (192 MiB each, LibTorch "
            "and MPI), more than the 342 MiB of 380 MiB that may be used there (MemAvailable "
            "20.0 MiB and the 360 MiB the ranks hold); 1 rank fits");
  EXPECT_EQ(ranksRefusal(node(1, 100 * kMiB, 50 * kMiB), "node7"),
            "host memory: 1 rank on node7 takes 192 MiB before any case (192 MiB each, LibTorch "
            "and MPI), more than the 135 MiB of 150 MiB that may be used there (MemAvailable "
            "50.0 MiB and the 100 MiB the ranks hold); no rank fits");
}

TEST(HostMemory, RanksThatFitShareWhatIsLeftAndKeepATenthFree) {
  // 96 CPU ranks on a 24 GiB machine: 6 GiB left beside what they hold. They fit, and every
  // rank's cases together leave a tenth of the node's memory free.
  const NodeMemory many = node(96, 180 * kMiB, 6 * kGiB);
  EXPECT_EQ(ranksRefusal(many, "node7"), std::nullopt);
  const std::uint64_t share = caseShare(many);
  EXPECT_GT(share, 25 * kMiB);
  EXPECT_LT(share, 40 * kMiB);
  const double used = 96 * MemoryBudget::usable(share) + static_cast<double>(many.base);
  EXPECT_NEAR(used, MemoryBudget::kUsable * static_cast<double>(many.total()), 96.0);
  // A GPU rank's CUDA context, held when it is read, is counted in place of the CPU base.
  const NodeMemory gpu = node(2, 1 * kGiB, 8 * kGiB);
  EXPECT_EQ(gpu.base, 2 * kGiB);
  EXPECT_EQ(caseShare(gpu), static_cast<std::uint64_t>((10.0 - 2 / 0.9) * kGiB / 2));
  // Nothing left: no share.
  EXPECT_EQ(caseShare(node(128, 180 * kMiB, 1 * kGiB)), 0u);
}

TEST(HostMemory, RssAnonIsReadFromTheStatusLine) {
  EXPECT_EQ(parseRssAnon("VmRSS:\t  466000 kB\nRssAnon:\t  184320 kB\nRssFile:\t 290000 kB\n"),
            184320ull * 1024);
  EXPECT_EQ(parseRssAnon("VmRSS:\t  466000 kB\n"), std::nullopt);
  // Only a whole key at the start of a line counts.
  EXPECT_EQ(parseRssAnon("XRssAnon:\t 5 kB\nRssAnonymous:\t 6 kB\n"), std::nullopt);
  // This process holds something, where the kernel says.
  if (const auto held = heldHostMemory()) {
    EXPECT_GT(*held, 0u);
  }
}

}  // namespace
}  // namespace splitstep
