#include "common/EnumNames.hpp"

#include <gtest/gtest.h>

#include "common/StepKeys.hpp"
#include "options/RunPlan.hpp"

namespace splitstep {
namespace {

TEST(EnumNames, OneTablePrintsAndParses) {
  EXPECT_EQ(toString(StepPrecision::Bf16), "bf16");
  EXPECT_EQ(enumFromString<StepPrecision>("bf16"), StepPrecision::Bf16);
  EXPECT_EQ(enumFromString<StepPrecision>("fp8"), std::nullopt);
  EXPECT_EQ(toString(Phase::Optimizer), "optimizer");
  EXPECT_EQ(enumFromString<SyncMode>("overlap"), SyncMode::Overlap);
}

TEST(EnumNames, ChoicesListEveryNameInOrder) {
  EXPECT_EQ(enumChoices<SyncMode>(), "none, sequential, overlap, single");
  EXPECT_EQ(enumChoices<Placement>(), "out, in");
}

template <NamedEnum Enum>
void expectRoundTrip() {
  for (const auto& [value, name] : EnumNames<Enum>::values) {
    EXPECT_EQ(toString(value), name);
    EXPECT_EQ(enumFromString<Enum>(name), value) << name;
  }
}

TEST(EnumNames, EveryNameMapsBackToItsValue) {
  expectRoundTrip<DeviceKind>();
  expectRoundTrip<MatmulDtype>();
  expectRoundTrip<CollectiveDtype>();
  expectRoundTrip<Placement>();
  expectRoundTrip<Backend>();
  expectRoundTrip<StepPrecision>();
  expectRoundTrip<StepOptimizer>();
  expectRoundTrip<SyncMode>();
  expectRoundTrip<InputSource>();
  expectRoundTrip<Phase>();
}

}  // namespace
}  // namespace splitstep
