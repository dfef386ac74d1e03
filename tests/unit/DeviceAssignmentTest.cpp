#include "device/DeviceAssignment.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

AssignedDevice assigned(const DeviceRequest& request) {
  const auto result = assignDevice(request);
  EXPECT_TRUE(std::holds_alternative<AssignedDevice>(result));
  return std::get<AssignedDevice>(result);
}

std::string error(const DeviceRequest& request) {
  const auto result = assignDevice(request);
  EXPECT_TRUE(std::holds_alternative<std::string>(result));
  return std::get<std::string>(result);
}

TEST(DeviceAssignment, EachLocalRankGetsTheGpuOfItsIndex) {
  for (int local = 0; local < 8; ++local) {
    EXPECT_EQ(assigned({DeviceKind::Auto, local, 8, 8, false}), (AssignedDevice{true, local}));
  }
}

TEST(DeviceAssignment, AutoFallsBackToCpuWithoutGpus) {
  EXPECT_EQ(assigned({DeviceKind::Auto, 1, 2, 0, false}), (AssignedDevice{false, 0}));
}

TEST(DeviceAssignment, CpuIsUsedWhenAskedEvenWithGpus) {
  EXPECT_EQ(assigned({DeviceKind::Cpu, 0, 2, 2, false}), (AssignedDevice{false, 0}));
}

TEST(DeviceAssignment, CudaWithoutGpusIsAnError) {
  EXPECT_NE(error({DeviceKind::Cuda, 0, 1, 0, false}).find("no CUDA device"), std::string::npos);
}

TEST(DeviceAssignment, MoreRanksThanGpusIsAnErrorNamingBoth) {
  const std::string message = error({DeviceKind::Auto, 0, 4, 2, false});
  EXPECT_NE(message.find("4 ranks on this node but 2 visible GPU(s)"), std::string::npos);
  EXPECT_NE(message.find("--allow-gpu-sharing"), std::string::npos);
}

TEST(DeviceAssignment, SharingWrapsRanksAroundTheGpus) {
  EXPECT_EQ(assigned({DeviceKind::Cuda, 3, 4, 2, true}), (AssignedDevice{true, 1}));
  EXPECT_EQ(assigned({DeviceKind::Cuda, 2, 4, 2, true}), (AssignedDevice{true, 0}));
}

}  // namespace
}  // namespace splitstep
