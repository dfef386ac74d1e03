#include "common/Units.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

TEST(Units, BytesTakeTheLargestExactBinaryUnit) {
  EXPECT_EQ(formatBytes(8), "8 B");
  EXPECT_EQ(formatBytes(1024), "1 KiB");
  EXPECT_EQ(formatBytes(1536), "1536 B");
  EXPECT_EQ(formatBytes(64ull << 20), "64 MiB");
  EXPECT_EQ(formatBytes(4ull << 30), "4 GiB");
}

TEST(Units, SecondsKeepThreeToFourSignificantDigits) {
  EXPECT_EQ(formatSeconds(2.703e-3), "2.703 ms");
  EXPECT_EQ(formatSeconds(11.2e-6), "11.20 us");
  EXPECT_EQ(formatSeconds(898.33e-6), "898.3 us");
  EXPECT_EQ(formatSeconds(1.25), "1.250 s");
  EXPECT_EQ(formatSeconds(91e-9), "91.00 ns");
  EXPECT_EQ(formatSeconds(1e-6), "1.000 us");
  EXPECT_EQ(formatSeconds(1e-3), "1.000 ms");
}

TEST(Units, ApproximateBytesKeepThreeSignificantDigits) {
  EXPECT_EQ(formatBytesApprox(512), "512 B");
  EXPECT_EQ(formatBytesApprox(1536), "1.50 KiB");
  EXPECT_EQ(formatBytesApprox(512.0 * (1ull << 20)), "512 MiB");
  EXPECT_EQ(formatBytesApprox(48.0 * (1ull << 30)), "48.0 GiB");
  EXPECT_EQ(formatBytesApprox(140.0 * (1ull << 30)), "140 GiB");
  EXPECT_EQ(formatBytesApprox(2.35 * (1ull << 40)), "2.35 TiB");
}

}  // namespace
}  // namespace splitstep
