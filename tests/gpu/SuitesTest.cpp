// The suites on a real device with a real communicator, one rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "GpuSkip.hpp"
#include "comm/MpiCommunicator.hpp"
#include "comm/NcclCommunicator.hpp"
#include "suites/AllreduceSuite.hpp"
#include "suites/MatmulSuite.hpp"

namespace splitstep {
namespace {

constexpr MeasureSettings kQuick{.warmup = 1, .samples = 3, .loops = 2};

void expectMatmulSamples(Device& device, Communicator& comm) {
  MatmulSuite suite({{64, 128}, {MatmulDtype::Fp32, MatmulDtype::Bf16, MatmulDtype::Tf32}});
  const auto samples = suite.run({device, comm, kQuick, 0, 1});
  ASSERT_EQ(samples.size(), 6u);
  EXPECT_EQ(samples[0].case_name, "fp32 n=64");
  EXPECT_EQ(samples[5].case_name, "tf32 n=128");
  for (const Sample& s : samples) {
    SCOPED_TRACE(s.case_name);
    EXPECT_EQ(s.suite, "matmul");
    EXPECT_EQ(s.clock, device.clockName());
    if (s.params.at("dtype") == "tf32" && !device.isCuda()) {
      EXPECT_TRUE(s.values.empty());
      EXPECT_FALSE(s.notes.empty());
      continue;
    }
    ASSERT_EQ(s.values.size(), 3u);
    EXPECT_GT(*std::min_element(s.values.begin(), s.values.end()), 0);
    ASSERT_EQ(s.rates.size(), 1u);
    const double n = std::stod(s.params.at("n"));
    EXPECT_DOUBLE_EQ(s.rates[0].amount_per_loop, 2 * n * n * n);
  }
}

void expectAllreduceSamples(Device& device, Communicator& comm) {
  AllreduceSuite suite({{8, 4096, 1 << 20}});
  const auto samples = suite.run({device, comm, kQuick, 0, 1});
  ASSERT_EQ(samples.size(), 3u);
  EXPECT_EQ(samples[2].case_name, "1 MiB");
  for (const Sample& s : samples) {
    SCOPED_TRACE(s.case_name);
    EXPECT_EQ(s.params.at("backend"), comm.backend());
    ASSERT_EQ(s.values.size(), 3u);
    ASSERT_EQ(s.checks.size(), 1u);
    EXPECT_EQ(s.checks[0].checked, std::stoull(s.params.at("bytes")) / 4);
    EXPECT_EQ(s.checks[0].wrong, 0u);
    // One rank: algbw only, and a note saying why busbw is missing.
    ASSERT_EQ(s.rates.size(), 1u);
    EXPECT_EQ(s.rates[0].name, "algbw GB/s");
    EXPECT_EQ(s.notes, (std::vector<std::string>{"busbw is not defined for a single rank"}));
  }
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
