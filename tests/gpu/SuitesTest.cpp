// The suites on a real device with a real communicator, one rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "GpuSkip.hpp"
#include "comm/MpiCommunicator.hpp"
#include "comm/NcclCommunicator.hpp"
#include "suites/AllreduceSuite.hpp"
#include "suites/MatmulSuite.hpp"
#include "suites/MembwSuite.hpp"

namespace splitstep {
namespace {

MeasureSettings quick() {
  MeasureSettings settings;
  settings.warmup = 1;
  settings.samples = 3;
  settings.loops = 2;
  return settings;
}

void expectMatmulSamples(Device& device, Communicator& comm) {
  LocalAgreement agreement;
  MatmulSuite suite(
      {{{64, 64, 64}, {128, 64, 32}}, {MatmulDtype::Fp32, MatmulDtype::Bf16, MatmulDtype::Tf32}});
  const auto samples = suite.run({device, comm, agreement, quick(), 0, 1});
  ASSERT_EQ(samples.size(), 6u);
  EXPECT_EQ(samples[0].case_name, "fp32 n=64");
  EXPECT_EQ(samples[5].case_name, "tf32 128x64x32");
  EXPECT_TRUE(samples[0].comparison.is_baseline);
  EXPECT_EQ(samples[3].comparison.group, "128x64x32");
  for (const Sample& s : samples) {
    SCOPED_TRACE(s.case_name);
    EXPECT_EQ(s.suite, "matmul");
    EXPECT_EQ(s.measurement.clock, device.clockName());
    if (s.params.at("dtype") == "tf32" && !device.isCuda()) {
      EXPECT_TRUE(s.measurement.values.empty());
      EXPECT_FALSE(s.notes.empty());
      continue;
    }
    const auto& values = s.measurement.values;
    ASSERT_EQ(values.size(), 3u);
    EXPECT_GT(*std::min_element(values.begin(), values.end()), 0);
    ASSERT_EQ(s.rates.size(), 1u);
    const double flop =
        2 * std::stod(s.params.at("m")) * std::stod(s.params.at("n")) * std::stod(s.params.at("k"));
    EXPECT_DOUBLE_EQ(s.rates[0].amount_per_loop, flop);
  }
}

void expectAllreduceSamples(Device& device, Communicator& comm) {
  LocalAgreement agreement;
  AllreduceSuite suite({{8, 4096, 1 << 20}});
  const auto samples = suite.run({device, comm, agreement, quick(), 0, 1});
  ASSERT_EQ(samples.size(), 3u);
  EXPECT_EQ(samples[2].case_name, "1 MiB");
  for (const Sample& s : samples) {
    SCOPED_TRACE(s.case_name);
    EXPECT_EQ(s.params.at("backend"), comm.backend());
    ASSERT_EQ(s.measurement.values.size(), 3u);
    ASSERT_EQ(s.checks.size(), 1u);
    EXPECT_EQ(s.checks[0].checked, std::stoull(s.params.at("bytes")) / 4);
    EXPECT_EQ(s.checks[0].wrong, 0u);
    // One rank: algbw only, and a note saying why busbw is missing.
    ASSERT_EQ(s.rates.size(), 1u);
    EXPECT_EQ(s.rates[0].name, "algbw GB/s");
    EXPECT_EQ(s.notes, (std::vector<std::string>{"busbw is not defined for a single rank"}));
  }
}

void expectMembwSamples(Device& device, Communicator& comm) {
  LocalAgreement agreement;
  MembwSuite suite({{1 << 20}});
  const auto samples = suite.run({device, comm, agreement, quick(), 0, 1});
  const std::vector<std::string> kinds = {"copy", "triad"};
  std::size_t timed = 0;
  for (const Sample& s : samples) {
    SCOPED_TRACE(s.case_name);
    EXPECT_EQ(s.params.at("bytes"), std::to_string(1 << 20));
    if (s.measurement.values.empty()) {
      EXPECT_FALSE(device.isCuda()) << "every membw case runs on a GPU";
      continue;
    }
    ++timed;
    ASSERT_EQ(s.rates.size(), 1u);
    // Bytes read + written: copy moves the array twice, triad three times, copies over the
    // host link once.
    const double per_array = 1 << 20;
    const std::string kind = s.params.at("kind");
    const double moved = kind == "triad"                            ? 3 * per_array
                         : (kind == "copy" || kind == "memcpy d2d") ? 2 * per_array
                                                                    : per_array;
    EXPECT_DOUBLE_EQ(s.rates[0].amount_per_loop, moved);
  }
  EXPECT_EQ(timed, device.isCuda() ? 7u : 2u);
}

TEST(SuitesOnCpu, MembwTimesCopyAndTriadAndSkipsHostDeviceCopies) {
  const auto device = openDevice({false, 0});
  MpiCommunicator comm(MPI_COMM_WORLD);
  expectMembwSamples(*device, comm);
}

TEST(SuitesOnGpu, MembwTimesEveryKind) {
  SPLITSTEP_REQUIRE_GPU();
  const auto device = openDevice({true, 0});
  NcclCommunicator comm(MPI_COMM_WORLD, device->stream());
  expectMembwSamples(*device, comm);
}

TEST(SuitesOnCpu, MatmulTimesEveryCaseAndSkipsTf32Visibly) {
  const auto device = openDevice({false, 0});
  MpiCommunicator comm(MPI_COMM_WORLD);
  expectMatmulSamples(*device, comm);
}

TEST(SuitesOnCpu, AllreduceOverMpiIsTimedAndChecked) {
  const auto device = openDevice({false, 0});
  MpiCommunicator comm(MPI_COMM_WORLD);
  expectAllreduceSamples(*device, comm);
}

TEST(SuitesOnGpu, MatmulTimesEveryDtype) {
  SPLITSTEP_REQUIRE_GPU();
  const auto device = openDevice({true, 0});
  NcclCommunicator comm(MPI_COMM_WORLD, device->stream());
  expectMatmulSamples(*device, comm);
}

TEST(SuitesOnGpu, AllreduceOverNcclIsTimedAndChecked) {
  SPLITSTEP_REQUIRE_GPU();
  const auto device = openDevice({true, 0});
  NcclCommunicator comm(MPI_COMM_WORLD, device->stream());
  expectAllreduceSamples(*device, comm);
}

}  // namespace
}  // namespace splitstep
