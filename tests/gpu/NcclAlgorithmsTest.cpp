// NCCL with splitstep's profiler plugin on one GPU (DeviceTestMain asks NCCL to load it before
// any communicator is made). NCCL loads it when it makes the communicator; on one rank it then
// copies each collective without choosing an algorithm (ncclLaunchOneRank, before any task or
// profiler event, in NCCL 2.28's enqueue.cc), so the plugin hears of no collective and no case
// carries a choice. More ranks are the CLI test's (tests/mpi/cli/nccl_algorithms.sh).
#include <gtest/gtest.h>
#include <mpi.h>

#include <memory>

#include "CollectingSink.hpp"
#include "GpuSkip.hpp"
#include "cases/CollectiveCase.hpp"
#include "comm/NcclCallReader.hpp"
#include "comm/NcclCommunicator.hpp"
#include "suites/CollectiveSuite.hpp"

namespace splitstep {
namespace {

TEST(NcclAlgorithmsOnGpu, OneRankLoadsThePluginAndChoosesNoAlgorithm) {
  SPLITSTEP_REQUIRE_GPU();
  Watchdog watchdog{60};
  std::unique_ptr<Device> device = openDevice({true, 0}, watchdog);
  NcclCommunicator nccl(MPI_COMM_WORLD, watchdog);
  std::shared_ptr<const NcclCallReader> calls = NcclCallReader::ofLoaded(SPLITSTEP_NCCL_PROFILER);
  ASSERT_NE(calls, nullptr) << "NCCL did not load " << SPLITSTEP_NCCL_PROFILER;
  nccl.readChoicesFrom(calls);
  const std::uint64_t before = calls->recorded();

  CollectivesPlan plan;
  plan.bytes = {8, 1 << 10, 1 << 20, 1 << 26};
  plan.dtypes = {CollectiveDtype::Fp32};
  plan.placements = {Placement::OutOfPlace};
  plan.backends = {Backend::Nccl};
  MeasureSettings quick;
  quick.warmup = 1;
  quick.samples = 3;
  quick.loops = 2;
  testing::CollectingSink sink;
  LocalAgreement agreement;
  CollectiveSuite(*findCollective("allreduce"), plan)
      .run({*device, {&nccl}, agreement, watchdog, sink, quick, 0, 1, {}});
  const std::vector<Sample> samples = sink.take();
  ASSERT_EQ(samples.size(), plan.bytes.size());
  for (const Sample& s : samples) {
    SCOPED_TRACE(s.case_name);
    EXPECT_EQ(s.measurement.values.size(), 3u);
    const auto fields = CollectiveCase::decode(s.fields);
    ASSERT_TRUE(fields);
    EXPECT_FALSE(fields->nccl);
  }
  EXPECT_EQ(calls->recorded(), before);
}

}  // namespace
}  // namespace splitstep
