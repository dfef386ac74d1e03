// The step suite across real ranks on the CPU backend (MPI): gradient sync leaves every rank
// with the same parameters, equal to one process stepping on all ranks' batches, and a sync
// that does not sync is caught by the same check.
#include "suites/StepSuite.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>

#include "CollectingSink.hpp"
#include "cluster/MpiAgreement.hpp"
#include "comm/MpiCommunicator.hpp"
#include "suites/TorchScope.hpp"
#include "suites/step/StepCheck.hpp"

namespace splitstep {
namespace {

StepPlan smallPlan() {
  StepPlan plan;
  plan.models = {StepModel::Mlp, StepModel::Transformer};
  plan.precisions = {StepPrecision::Fp32};
  plan.modes = {SyncMode::None, SyncMode::Sequential, SyncMode::Overlap, SyncMode::Single};
  plan.input = InputSource::Pageable;
  plan.mlp = {2, 64, 16};
  plan.transformer = {1, 32, 2, 8, 4};
  // Small buckets, so that each model's gradients fill several of them.
  plan.first_bucket_bytes = 1024;
  plan.bucket_bytes = 8192;
  return plan;
}

MeasureSettings quick() {
  MeasureSettings settings;
  settings.warmup = 1;
  settings.samples = 3;
  return settings;
}

struct Ranks {
  Ranks() : device(openDevice({false, 0}, watchdog)), agreement(MPI_COMM_WORLD, watchdog) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
  SuiteContext context(Communicator* comm) {
    return {*device, {comm}, agreement, watchdog, sink, quick(), rank, size, {}};
  }

  Watchdog watchdog{60};
  testing::CollectingSink sink;
  std::unique_ptr<Device> device;
  MpiAgreement agreement;
  int rank = 0;
  int size = 1;
};

const Check* findCheck(const Sample& s, const std::string& name) {
  const auto it = std::find_if(s.checks.begin(), s.checks.end(),
                               [&name](const Check& c) { return c.name == name; });
  return it == s.checks.end() ? nullptr : &*it;
}

TEST(StepSuite, SynchronisedStepsMatchTheOneProcessReferenceOnEveryRank) {
  Ranks ranks;
  MpiCommunicator mpi(MPI_COMM_WORLD, ranks.watchdog, false);
  StepSuite(smallPlan()).run(ranks.context(&mpi));
  // A workload's cases are published together, with the checks that followed their timing.
  EXPECT_EQ(ranks.sink.batches.size(), 2u);  // two models, one precision
  const std::vector<Sample> samples = ranks.sink.take();
  int synced_cases = 0;
  for (const Sample& s : samples) {
    if (s.series != "step") continue;
    SCOPED_TRACE(s.case_name);
    const std::string& mode = s.params.at("mode");
    if (mode != "sequential" && mode != "overlap") {
      EXPECT_TRUE(s.checks.empty());
      continue;
    }
    ++synced_cases;
    const Check* identical = findCheck(s, "ranks identical");
    ASSERT_NE(identical, nullptr);
    EXPECT_GT(identical->checked, 0u);
    EXPECT_EQ(identical->wrong, 0u);
    const Check* reference = findCheck(s, "one-process reference");
    if (ranks.rank == 0) {
      ASSERT_NE(reference, nullptr);
      EXPECT_GT(reference->checked, 0u);
      EXPECT_EQ(reference->wrong, 0u);
    } else {
      EXPECT_EQ(reference, nullptr);  // the reference runs on rank 0 only
    }
  }
  EXPECT_EQ(synced_cases, 4);  // two models x two sync modes
}

TEST(StepSuite, EveryPhaseHasOneValuePerStepAndFitsInsideIt) {
  Ranks ranks;
  MpiCommunicator mpi(MPI_COMM_WORLD, ranks.watchdog, false);
  StepPlan plan = smallPlan();
  plan.models = {StepModel::Mlp};
  plan.check = false;
  StepSuite(plan).run(ranks.context(&mpi));
  const std::vector<Sample> samples = ranks.sink.take();
  for (const std::string mode : {"none", "sequential", "overlap", "single"}) {
    SCOPED_TRACE(mode);
    const std::string case_name = "mlp fp32 " + mode;
    const auto whole = std::find_if(samples.begin(), samples.end(), [&](const Sample& s) {
      return s.case_name == case_name && s.series == "step";
    });
    ASSERT_NE(whole, samples.end());
    const std::size_t steps = whole->measurement.values.size();
    // The single-card step runs on rank 0 while the others wait.
    EXPECT_EQ(steps, mode == std::string("single") && ranks.rank != 0 ? 0u : 3u);
    std::vector<double> phase_sum(steps, 0.0);
    std::vector<std::string> series;
    for (const Sample& s : samples) {
      if (s.case_name != case_name || s.series == "step") continue;
      series.push_back(s.series);
      EXPECT_EQ(s.part_of, "step");
      ASSERT_EQ(s.measurement.values.size(), steps) << s.series;
      if (s.series == "comm") continue;  // on its own stream, beside the phases
      for (std::size_t i = 0; i < steps; ++i) phase_sum[i] += s.measurement.values[i];
    }
    const bool syncs = mode == std::string("sequential") || mode == std::string("overlap");
    std::vector<std::string> expected = {"data", "forward", "loss", "backward"};
    if (syncs) expected.push_back("sync");
    expected.push_back("optimizer");
    if (syncs) expected.push_back("comm");
    EXPECT_EQ(series, expected);
    for (std::size_t i = 0; i < steps; ++i) {
      EXPECT_GT(phase_sum[i], 0);
      EXPECT_LE(phase_sum[i], whole->measurement.values[i]);
    }
  }
}

// A communicator that returns without communicating: what a broken gradient sync looks like.
class SilentCommunicator final : public Communicator {
 public:
  explicit SilentCommunicator(Communicator& real) : real_(real) {}
  std::string backend() const override { return "silent"; }
  bool usesDeviceBuffers() const override { return false; }
  bool supports(const CollectiveDescriptor&, DataType, bool, std::string&) const override {
    return true;
  }
  void run(const CollectiveDescriptor& collective, const void* send, void* recv, std::size_t count,
           DataType type, cudaStream_t stream) override {
    // The check's own comparison still broadcasts for real; only gradients go missing.
    if (&collective == &broadcast()) real_.run(collective, send, recv, count, type, stream);
  }

 private:
  Communicator& real_;
};

TEST(StepCheck, AGradientSyncThatDoesNotSyncIsCaught) {
  Ranks ranks;
  MpiCommunicator mpi(MPI_COMM_WORLD, ranks.watchdog, false);
  SilentCommunicator silent(mpi);
  TorchScope scope(*ranks.device);
  const StepCheckResult result =
      checkSynchronisedStep(StepModel::Mlp, smallPlan(), StepRecipe{StepPrecision::Fp32}, true,
                            ranks.context(&silent), silent, scope.device());
  ASSERT_FALSE(result.checks.empty());
  // Every rank stepped on its own batch alone: rank 0 alone agrees with itself.
  if (ranks.rank == 0) {
    EXPECT_EQ(result.checks[0].wrong, 0u);
    ASSERT_EQ(result.checks.size(), 2u);
    EXPECT_GT(result.checks[1].wrong, 0u);  // and not with the whole batch
  } else {
    EXPECT_GT(result.checks[0].wrong, 0u);
  }
}

}  // namespace
}  // namespace splitstep
