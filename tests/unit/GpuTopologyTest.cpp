#include "device/GpuTopology.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

TEST(GpuTopology, LinksAreNamedAsNvidiaSmiTopoNamesThem) {
  EXPECT_EQ(gpuLinkName(true, 50), "NVLink");  // NVLink wins over any PCIe path
  EXPECT_EQ(gpuLinkName(false, 0), "board");
  EXPECT_EQ(gpuLinkName(false, 10), "PIX");
  EXPECT_EQ(gpuLinkName(false, 20), "PXB");
  EXPECT_EQ(gpuLinkName(false, 30), "PHB");
  EXPECT_EQ(gpuLinkName(false, 40), "NODE");
  EXPECT_EQ(gpuLinkName(false, 50), "SYS");
  EXPECT_EQ(gpuLinkName(false, -1), "?");
}

TEST(GpuTopology, AGpuNvmlDoesNotKnowHasNoLinks) {
  // Without a driver NVML does not load; with one, no GPU sits at this bus id.
  EXPECT_TRUE(gpuLinksFrom("ffff:ff:1f.7").empty());
}

}  // namespace
}  // namespace splitstep
