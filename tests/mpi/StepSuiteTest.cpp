// The step suite across real ranks on the CPU backend (MPI): gradient sync leaves every rank
// with the same parameters, equal to one process stepping on all ranks' batches, and a sync
// that does not sync is caught by the same check.
#include "suites/StepSuite.hpp"

#include <ATen/core/grad_mode.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "CollectingSink.hpp"
#include "cases/StepCase.hpp"
#include "cluster/MpiAgreement.hpp"
#include "collect/Collector.hpp"
#include "collect/SampleCodec.hpp"
#include "comm/MpiCommunicator.hpp"
#include "derived/CaseResult.hpp"
#include "derived/StepAnalysis.hpp"
#include "suites/TorchScope.hpp"
#include "suites/step/StepCheck.hpp"

namespace splitstep {
namespace {

StepPlan smallPlan() {
  StepPlan plan;
  plan.models = {&stepModel("mlp"), &stepModel("vit-b16")};
  plan.precisions = {StepPrecision::Fp32};
  plan.modes = {SyncMode::None, SyncMode::Sequential, SyncMode::Overlap, SyncMode::Single};
  plan.input = InputSource::Pageable;
  plan.shape.set("mlp-layers", 2);
  plan.shape.set("mlp-width", 64);
  plan.shape.set("mlp-batch", 16);
  // vit-b16 on 8 x 8 images in 4 x 4 patches: 5 tokens with the class token.
  plan.shape.set("vit-layers", 1);
  plan.shape.set("vit-width", 32);
  plan.shape.set("vit-heads", 2);
  plan.shape.set("vit-patch", 4);
  plan.shape.set("vit-image", 8);
  plan.shape.set("vit-batch", 4);
  // gpt2 with GPT2Config's dropout (10%): the check must draw the same masks as the step.
  plan.shape.set("gpt2-layers", 1);
  plan.shape.set("gpt2-width", 16);
  plan.shape.set("gpt2-heads", 2);
  plan.shape.set("gpt2-positions", 8);
  plan.shape.set("gpt2-vocab", 64);
  plan.shape.set("gpt2-seq", 8);
  plan.shape.set("gpt2-batch", 2);
  for (const auto& [name, value] : {std::pair{"llama-layers", 2},
                                    {"llama-hidden", 32},
                                    {"llama-intermediate", 48},
                                    {"llama-heads", 4},
                                    {"llama-kv-heads", 2},
                                    {"llama-vocab", 64},
                                    {"llama-seq", 8},
                                    {"llama-batch", 2}}) {
    plan.shape.set(name, value);
  }
  // resnet50's depth is fixed; a width_per_group of 2 and 32 x 32 images keep it small (layer4
  // at 1 x 1, two samples for its batch norm).
  plan.shape.set("resnet50-width", 2);
  plan.shape.set("resnet50-image", 32);
  plan.shape.set("resnet50-batch", 2);
  // recsys: three tables of 50 rows, bags of 4 lookups.
  for (const auto& [name, value] : {std::pair{"recsys-tables", 3},
                                    {"recsys-rows", 50},
                                    {"recsys-dim", 8},
                                    {"recsys-bag", 4},
                                    {"recsys-hidden", 16},
                                    {"recsys-batch", 4}}) {
    plan.shape.set(name, value);
  }
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
    const auto fields = StepCase::decode(s.fields);
    ASSERT_TRUE(fields);
    if (fields->mode != SyncMode::Sequential && fields->mode != SyncMode::Overlap) {
      EXPECT_TRUE(s.checks.empty());
      continue;
    }
    ++synced_cases;
    const Check* identical = findCheck(s, "ranks identical");
    ASSERT_NE(identical, nullptr);
    EXPECT_GT(identical->checked, 0u);
    EXPECT_EQ(identical->wrong, 0u);
    const Check* reference = findCheck(s, "gradients vs one process");
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
  plan.models = {&stepModel("mlp")};
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
      // Detail series (the packing, each bucket's timeline) are checked on their own below.
      if (s.case_name != case_name || s.series == "step" || s.detail) continue;
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
  int rank() const override { return real_.rank(); }
  int size() const override { return real_.size(); }
  std::unique_ptr<Communicator> split(std::optional<int>) override {
    throw std::logic_error("the step check does not split communicators");
  }
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

// The check of one synchronised step of a freshly built `model`, each rank on its own batch.
StepCheckResult checkFresh(const StepModelDescriptor& model, const StepPlan& plan,
                           const StepRecipe& recipe, bool overlap, const SuiteContext& context,
                           Communicator& comm, c10::Device device) {
  const auto workload = makeWorkload(model, plan.shape, device, kModelSeed);
  SyncCheck check(plan, recipe, context, comm, *workload,
                  workload->hostBatch(workload->batchSize(), batchSeed(context.rank)));
  return check.run(overlap);
}

TEST(StepCheck, AGradientSyncThatDoesNotSyncIsCaught) {
  Ranks ranks;
  MpiCommunicator mpi(MPI_COMM_WORLD, ranks.watchdog, false);
  SilentCommunicator silent(mpi);
  TorchScope scope(*ranks.device);
  const StepCheckResult result =
      checkFresh(stepModel("mlp"), smallPlan(), StepRecipe{StepPrecision::Fp32}, true,
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

// Every model has a module, and its descriptor counts the module's parameters exactly (the
// memory check and the reports read the count before any module exists).
TEST(StepModels, EveryDescriptorCountsItsModulesParameters) {
  EXPECT_EQ(modelsWithoutWorkload(), std::vector<std::string>{});
  const StepPlan plan = smallPlan();
  for (const StepModelDescriptor* model : stepModels()) {
    const auto workload = makeWorkload(*model, plan.shape, c10::Device(c10::kCPU), kModelSeed);
    double count = 0;
    for (const at::Tensor& p : workload->parameters()) count += static_cast<double>(p.numel());
    EXPECT_EQ(count, model->parameters(plan.shape)) << model->name;
    EXPECT_EQ(workload->batchSize(), model->batch(plan.shape)) << model->name;
  }
}

// An MLP whose buckets are one layer each, all of one size, so that a rank reducing them in
// another order still makes matching calls (and silently wrong sums).
StepPlan equalBuckets() {
  StepPlan plan;
  plan.models = {&stepModel("mlp")};
  plan.precisions = {StepPrecision::Fp32};
  plan.modes = {SyncMode::Overlap};
  plan.input = InputSource::Pageable;
  plan.shape.set("mlp-layers", 3);
  plan.shape.set("mlp-width", 16);
  plan.shape.set("mlp-batch", 8);
  plan.first_bucket_bytes = plan.bucket_bytes = (16 * 16 + 16) * 4;  // one layer's weight and bias
  return plan;
}

// Whether any rank's check found something wrong (every rank learns it).
bool failedAnywhere(const StepCheckResult& result) {
  int failed = 0;
  for (const Check& c : result.checks) failed = failed || c.wrong > 0;
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any != 0;
}

TEST(StepCheck, EveryInjectedSyncFaultFailsTheCheck) {
  Ranks ranks;
  MpiCommunicator mpi(MPI_COMM_WORLD, ranks.watchdog, false);
  TorchScope scope(*ranks.device);
  for (SyncFault fault :
       {SyncFault::None, SyncFault::DroppedBucket, SyncFault::SumNotMean, SyncFault::StaleGradient,
        SyncFault::ReorderedBuckets, SyncFault::SkippedStep}) {
    StepPlan plan = equalBuckets();
    plan.fault = fault;
    plan.fault_rank = 1;
    // As the timed modes leave it: each rank with parameters of its own.
    const auto workload = makeWorkload(stepModel("mlp"), plan.shape, scope.device(), kModelSeed);
    {
      at::NoGradGuard no_grad;
      for (const at::Tensor& p : workload->parameters()) p.add_(0.01 * ranks.rank);
    }
    // One check for both modes, as the suite runs them: the second reuses the reference.
    const SuiteContext context = ranks.context(&mpi);  // the check holds on to it
    SyncCheck check(plan, StepRecipe{StepPrecision::Fp32}, context, mpi, *workload,
                    workload->hostBatch(workload->batchSize(), batchSeed(ranks.rank)));
    for (bool overlap : {false, true}) {
      SCOPED_TRACE(std::string(toString(fault)) + (overlap ? " overlap" : " sequential"));
      EXPECT_EQ(failedAnywhere(check.run(overlap)), fault != SyncFault::None);
    }
  }
}

// The gradients of a correct sync agree with the reference whatever turns them into updates:
// AdamW on a gradient that is zero in exact arithmetic must not raise an alarm.
TEST(StepCheck, CorrectSyncPassesWithEveryModelOptimizerAndPrecision) {
  Ranks ranks;
  MpiCommunicator mpi(MPI_COMM_WORLD, ranks.watchdog, false);
  TorchScope scope(*ranks.device);
  const StepPlan plan = smallPlan();
  for (const StepModelDescriptor* model : stepModels()) {
    for (StepPrecision precision : {StepPrecision::Fp32, StepPrecision::Bf16}) {
      for (StepOptimizer optimizer : {StepOptimizer::Sgd, StepOptimizer::AdamW}) {
        for (OptimizerImpl impl :
             {OptimizerImpl::Loop, OptimizerImpl::Foreach, OptimizerImpl::Fused}) {
          SCOPED_TRACE(fmt::format("{} {} {} {}", model->name, toString(precision),
                                   toString(optimizer), toString(impl)));
          StepRecipe recipe{precision, optimizer, impl, 0.01};
          const StepCheckResult result =
              checkFresh(*model, plan, recipe, true, ranks.context(&mpi), mpi, scope.device());
          EXPECT_FALSE(failedAnywhere(result))
              << (result.notes.empty() ? std::string() : result.notes.front());
        }
      }
    }
  }
}

// Runs `plan`, and every rank's samples, summarised and analysed on rank 0 as the application
// does.
std::vector<DerivedResult> runAndAnalyse(Ranks& ranks, const StepPlan& plan,
                                         const SuiteContext& context) {
  StepSuite(plan).run(context);
  std::vector<std::vector<Sample>> by_rank;
  for (const std::string& payload :
       gatherToRoot(encodeSamples(ranks.sink.take()), MPI_COMM_WORLD, ranks.watchdog)) {
    by_rank.push_back(decodeSamples(payload));
  }
  if (by_rank.empty()) return {};
  return deriveStepFigures(summarizeCases(by_rank));
}

const DerivedFigure* figureTagged(const DerivedResult& d, const std::string& tag) {
  for (const DerivedFigure& f : d.figures) {
    if (f.tag == tag) return &f;
  }
  return nullptr;
}

TEST(StepSuite, ADelayedRankIsNamedAndEveryStepWaitsForIt) {
  Ranks ranks;
  MpiCommunicator mpi(MPI_COMM_WORLD, ranks.watchdog, false);
  StepPlan plan = smallPlan();
  plan.models = {&stepModel("mlp")};
  plan.modes = {SyncMode::None, SyncMode::Overlap};
  plan.check = false;
  SuiteContext context = ranks.context(&mpi);
  context.measure.samples = 5;
  const std::vector<DerivedResult> on_time = runAndAnalyse(ranks, plan, context);
  plan.delay_rank = 1;
  plan.delay = 0.1;
  const std::vector<DerivedResult> derived = runAndAnalyse(ranks, plan, context);
  if (ranks.rank != 0) return;
  ASSERT_EQ(derived.size(), 1u);
  ASSERT_EQ(on_time.size(), 1u);
  const DerivedResult& d = derived.front();
  const DerivedFigure* wait = figureTagged(d, "step/wait/overlap");
  ASSERT_NE(wait, nullptr);
  // The others wait for rank 1 about as long as it was late, within 10%.
  EXPECT_NEAR(wait->value, plan.delay, 0.1 * plan.delay);
  EXPECT_NE(wait->note.find("rank 1 reaches the collectives last"), std::string::npos)
      << wait->note;
  for (const auto& [rank, value] : wait->per_rank) {
    if (rank == 1) {
      EXPECT_LT(value, 0.1 * plan.delay);
    }
  }
  EXPECT_TRUE(std::any_of(d.findings.begin(), d.findings.end(), [](const std::string& f) {
    return f.rfind("late rank: rank 1 ", 0) == 0;
  }));
  // The synchronised step grows by about the delay over the same step without it.
  const DerivedFigure* late = figureTagged(d, "step/time/overlap");
  const DerivedFigure* prompt = figureTagged(on_time.front(), "step/time/overlap");
  ASSERT_NE(late, nullptr);
  ASSERT_NE(prompt, nullptr);
  EXPECT_NEAR(late->value - prompt->value, plan.delay, 0.1 * plan.delay);
}

TEST(StepSuite, TheBreakdownsPartsAddUpToTheStepsGrowthOnEveryRank) {
  Ranks ranks;
  MpiCommunicator mpi(MPI_COMM_WORLD, ranks.watchdog, false);
  StepPlan plan = smallPlan();
  plan.models = {&stepModel("mlp")};
  plan.modes = {SyncMode::None, SyncMode::Sequential, SyncMode::Overlap};
  plan.check = false;
  const std::vector<DerivedResult> derived = runAndAnalyse(ranks, plan, ranks.context(&mpi));
  if (ranks.rank != 0) return;
  ASSERT_EQ(derived.size(), 1u);
  for (const std::string mode : {"sequential", "overlap"}) {
    SCOPED_TRACE(mode);
    const std::string prefix = "step/breakdown/" + mode + "/";
    const DerivedFigure* delta = figureTagged(derived[0], prefix + "delta");
    ASSERT_NE(delta, nullptr);
    ASSERT_EQ(delta->per_rank.size(), static_cast<std::size_t>(ranks.size));
    for (std::size_t r = 0; r < delta->per_rank.size(); ++r) {
      double sum = 0;
      for (const char* part : {"backward_slowdown", "packing", "tail_comm", "wait", "residual"}) {
        const DerivedFigure* f = figureTagged(derived[0], prefix + part);
        ASSERT_NE(f, nullptr) << part;
        sum += f->per_rank[r].second;
      }
      EXPECT_NEAR(sum, delta->per_rank[r].second, 1e-6) << "rank " << r;  // within 1 us
    }
    // The ledger names a last bucket and keeps every bucket's timeline.
    EXPECT_NE(figureTagged(derived[0], "step/ledger/" + mode + "/last"), nullptr);
    EXPECT_NE(figureTagged(derived[0], "step/ledger/" + mode + "/bucket0"), nullptr);
  }
}

}  // namespace
}  // namespace splitstep
