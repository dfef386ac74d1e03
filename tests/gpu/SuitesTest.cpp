// The suites on a real device with real communicators, one rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "CollectingSink.hpp"
#include "GpuSkip.hpp"
#include "cases/CollectiveCase.hpp"
#include "cases/MatmulCase.hpp"
#include "cases/MembwCase.hpp"
#include "cases/StepCase.hpp"
#include "comm/MpiCommunicator.hpp"
#include "comm/NcclCommunicator.hpp"
#include "suites/CollectiveSuite.hpp"
#include "suites/MatmulSuite.hpp"
#include "suites/MembwSuite.hpp"
#include "suites/StepSuite.hpp"

namespace splitstep {
namespace {

MeasureSettings quick() {
  MeasureSettings settings;
  settings.warmup = 1;
  settings.samples = 3;
  settings.loops = 2;
  return settings;
}

// Everything a suite needs on one rank; NCCL joins where the device is a GPU.
struct OneRank {
  explicit OneRank(bool cuda)
      : device(openDevice({cuda, 0}, watchdog)), mpi(MPI_COMM_WORLD, watchdog) {
    if (cuda) nccl = std::make_unique<NcclCommunicator>(MPI_COMM_WORLD, watchdog);
  }
  SuiteContext context() {
    std::vector<Communicator*> comms = {&mpi};
    if (nccl) comms.insert(comms.begin(), nccl.get());
    return {*device, comms, agreement, watchdog, sink, quick(), 0, 1, {}};
  }

  Watchdog watchdog{60};
  testing::CollectingSink sink;
  LocalAgreement agreement;
  std::unique_ptr<Device> device;
  MpiCommunicator mpi;
  std::unique_ptr<NcclCommunicator> nccl;
};

// The cases a run reached, as the progress line hears of them.
struct RecordedProgress final : Progress {
  void start(std::size_t) override {}
  void caseStarted(const std::string& suite, const std::string& name) override {
    cases.push_back(suite + " " + name);
  }
  void clear() override {}
  void finish() override {}
  std::vector<std::string> cases;
};

// caseCount() announces as many cases as run() reports, and the progress hears of each once,
// in the order they appear.
void expectCasesAnnounced(const Suite& suite, const SuiteContext& context,
                          const std::vector<Sample>& samples, const RecordedProgress& progress) {
  std::vector<std::string> names;
  for (const Sample& s : samples) {
    const std::string name = s.suite + " " + s.case_name;
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  EXPECT_EQ(suite.caseCount(context), names.size()) << suite.name();
  EXPECT_EQ(progress.cases, names) << suite.name();
}

void expectMatmulSamples(OneRank& rank) {
  MatmulSuite suite(
      {{{64, 64, 64}, {128, 64, 32}}, {MatmulDtype::Fp32, MatmulDtype::Bf16, MatmulDtype::Tf32}});
  RecordedProgress progress;
  SuiteContext context = rank.context();
  context.progress = &progress;
  suite.run(context);
  // Each case is published on its own, as soon as the next one starts or the suite ends.
  ASSERT_EQ(rank.sink.batches.size(), 6u);
  const auto samples = rank.sink.take();
  expectCasesAnnounced(suite, context, samples, progress);
  ASSERT_EQ(samples.size(), 6u);
  EXPECT_EQ(samples[0].case_name, "fp32 n=64");
  EXPECT_EQ(samples[5].case_name, "tf32 128x64x32");
  EXPECT_TRUE(samples[0].comparison.is_baseline);
  EXPECT_EQ(samples[3].comparison.group, "128x64x32");
  for (const Sample& s : samples) {
    SCOPED_TRACE(s.case_name);
    EXPECT_EQ(s.suite, "matmul");
    EXPECT_EQ(s.measurement.clock, rank.device->clockName());
    const auto fields = MatmulCase::decode(s.fields);
    ASSERT_TRUE(fields);
    if (fields->dtype == MatmulDtype::Tf32 && !rank.device->isCuda()) {
      EXPECT_TRUE(s.measurement.values.empty());
      EXPECT_FALSE(s.notes.empty());
      continue;
    }
    const auto& values = s.measurement.values;
    ASSERT_EQ(values.size(), 3u);
    EXPECT_GT(*std::min_element(values.begin(), values.end()), 0);
    ASSERT_EQ(s.rates.size(), 1u);
    const double flop = 2.0 * static_cast<double>(fields->shape.m) *
                        static_cast<double>(fields->shape.n) * static_cast<double>(fields->shape.k);
    EXPECT_DOUBLE_EQ(s.rates[0].amount_per_loop, flop);
  }
}

void expectMembwSamples(OneRank& rank) {
  MembwSuite suite({{1 << 20}});
  RecordedProgress progress;
  SuiteContext context = rank.context();
  context.progress = &progress;
  suite.run(context);
  const auto samples = rank.sink.take();
  expectCasesAnnounced(suite, context, samples, progress);
  std::size_t timed = 0;
  for (const Sample& s : samples) {
    SCOPED_TRACE(s.case_name);
    const auto fields = MembwCase::decode(s.fields);
    ASSERT_TRUE(fields);
    EXPECT_EQ(fields->bytes, 1u << 20);
    if (s.measurement.values.empty()) {
      EXPECT_FALSE(rank.device->isCuda()) << "every membw case runs on a GPU";
      continue;
    }
    ++timed;
    ASSERT_EQ(s.rates.size(), 1u);
    // Bytes read + written: copy moves the array twice, triad three times, copies over the
    // host link once.
    const double per_array = 1 << 20;
    const std::string& kind = fields->kind;
    const double moved = kind == "triad"                            ? 3 * per_array
                         : (kind == "copy" || kind == "memcpy d2d") ? 2 * per_array
                                                                    : per_array;
    EXPECT_DOUBLE_EQ(s.rates[0].amount_per_loop, moved);
  }
  EXPECT_EQ(timed, rank.device->isCuda() ? 7u : 2u);
}

// Every collective, dtype and placement: timed and checked wherever the backend supports it,
// skipped with a reason where it does not.
void expectCollectiveSamples(OneRank& rank) {
  CollectivesPlan plan;
  plan.bytes = {8, 4096, 1 << 20};
  plan.dtypes = {CollectiveDtype::Fp32, CollectiveDtype::Bf16, CollectiveDtype::Fp16};
  plan.placements = {Placement::OutOfPlace, Placement::InPlace};
  for (const CollectiveDescriptor* c : collectives()) {
    CollectiveSuite suite(*c, plan);
    RecordedProgress progress;
    SuiteContext context = rank.context();
    context.progress = &progress;
    suite.run(context);
    const auto samples = rank.sink.take();
    expectCasesAnnounced(suite, context, samples, progress);
    const std::size_t backends = rank.nccl ? 2 : 1;
    ASSERT_EQ(samples.size(), 3 * 2 * 3 * backends);
    for (const Sample& s : samples) {
      SCOPED_TRACE(suite.name() + " " + s.case_name);
      const auto fields = CollectiveCase::decode(s.fields);
      ASSERT_TRUE(fields);
      if (s.measurement.values.empty()) {
        ASSERT_EQ(s.notes.size(), 1u);
        if (!c->in_place_refusal.empty() && fields->inPlace()) {
          // No backend runs it in place (all-to-all, send/receive).
          EXPECT_EQ(s.notes[0], "skipped: " + std::string(c->in_place_refusal));
          continue;
        }
        EXPECT_EQ(fields->backend, "mpi") << "NCCL runs every other case";
        EXPECT_EQ(s.notes[0].rfind("skipped: MPI", 0), 0u) << s.notes[0];
        continue;
      }
      EXPECT_EQ(s.measurement.values.size(), 3u);
      EXPECT_EQ(s.measurement.arrival_waits.size(), 3u);
      ASSERT_EQ(s.checks.size(), 1u);
      EXPECT_GT(s.checks[0].checked, 0u);
      EXPECT_EQ(s.checks[0].wrong, 0u);
      ASSERT_EQ(s.rates.size(), 1u);  // algbw; one rank: no busbw
      EXPECT_EQ(s.notes, (std::vector<std::string>{"busbw is not defined for a single rank"}));
    }
  }
}

// Every model, precision and sync mode on one rank: phases timed, gradient sync checked against
// the one-process step (with one rank, the same batch).
// `suite`'s samples on `rank`, once caseCount() and the progress line were held to them.
std::vector<Sample> runAnnounced(OneRank& rank, StepSuite suite) {
  RecordedProgress progress;
  SuiteContext context = rank.context();
  context.progress = &progress;
  suite.run(context);
  std::vector<Sample> samples = rank.sink.take();
  expectCasesAnnounced(suite, context, samples, progress);
  return samples;
}

// Every step model at a shape of seconds.
StepPlan smallStepPlan() {
  StepPlan plan;
  plan.models = {&stepModel("mlp"), &stepModel("vit-b16"), &stepModel("resnet50"),
                 &stepModel("gpt2"), &stepModel("llama")};
  plan.optimizer = StepOptimizer::AdamW;
  plan.shape.set("mlp-layers", 2);
  plan.shape.set("mlp-width", 256);
  plan.shape.set("mlp-batch", 64);
  for (const auto& [name, value] :
       {std::pair{"vit-layers", 1}, {"vit-width", 64},      {"vit-heads", 4},
        {"vit-patch", 4},           {"vit-image", 16},      {"vit-batch", 8},
        {"resnet50-width", 2},      {"resnet50-image", 32}, {"resnet50-batch", 4},
        {"gpt2-layers", 1},         {"gpt2-width", 64},     {"gpt2-heads", 4},
        {"gpt2-positions", 16},     {"gpt2-vocab", 128},    {"gpt2-seq", 16},
        {"gpt2-batch", 8},          {"llama-layers", 1},    {"llama-hidden", 64},
        {"llama-intermediate", 96}, {"llama-heads", 4},     {"llama-kv-heads", 2},
        {"llama-vocab", 128},       {"llama-seq", 16},      {"llama-batch", 8}}) {
    plan.shape.set(name, value);
  }
  return plan;
}

void expectStepSamples(OneRank& rank, std::vector<StepPrecision> precisions) {
  StepPlan plan = smallStepPlan();
  plan.precisions = std::move(precisions);
  plan.modes = {SyncMode::None, SyncMode::Sequential, SyncMode::Overlap, SyncMode::Single};
  const auto samples = runAnnounced(rank, StepSuite(plan));
  std::size_t wholes = 0;
  std::size_t busy_steps = 0;
  for (const Sample& s : samples) {
    SCOPED_TRACE(s.case_name + " " + s.series);
    EXPECT_EQ(s.measurement.clock, rank.device->clockName());
    // The GPU's busy time comes from profiled steps of its own, after the timed ones.
    const bool busy = s.series.starts_with(step_keys::kBusyPrefix);
    ASSERT_EQ(s.measurement.values.size(), busy ? kBusySteps : 3u);
    if (s.series == step_keys::busySeries(step_keys::kWhole)) {
      ++busy_steps;
      // Every step runs kernels, and the busy time of the step is never shorter than a phase's.
      const Sample* forward = nullptr;
      for (const Sample& other : samples) {
        if (other.case_name == s.case_name &&
            other.series == step_keys::busySeries(toString(Phase::Forward))) {
          forward = &other;
        }
      }
      ASSERT_NE(forward, nullptr);
      for (std::size_t i = 0; i < kBusySteps; ++i) {
        EXPECT_GT(s.measurement.values[i], 0);
        EXPECT_GT(forward->measurement.values[i], 0);
        EXPECT_LE(forward->measurement.values[i], s.measurement.values[i]);
      }
    }
    // A bucket may end before backward does: only that timeline's end may be negative.
    const auto fields = StepCase::decode(s.fields);
    ASSERT_TRUE(fields);
    if (!fields->bucket || fields->bucket->quantity != "finish after backward") {
      for (double v : s.measurement.values) EXPECT_GE(v, 0);
    }
    if (s.series != "step") continue;
    ++wholes;
    ASSERT_EQ(s.rates.size(), 2u);
    if (fields->mode != SyncMode::Sequential && fields->mode != SyncMode::Overlap) continue;
    EXPECT_EQ(s.checks.size(), 2u);
    for (const Check& check : s.checks) {
      EXPECT_GT(check.checked, 0u) << check.name;
      EXPECT_EQ(check.wrong, 0u) << check.name;
    }
  }
  EXPECT_EQ(wholes, plan.models.size() * plan.precisions.size() * 4);
  // Only a GPU rank profiles its steps for the GPU's busy time.
  EXPECT_EQ(busy_steps, rank.device->isCuda() ? wholes : 0u);
}

// With --step-graphs, each mode's graphed case follows its eager one: timed by replays, its
// busy time profiled, checked against eager steps, compared with the eager case; or skipped
// with its reason where a graph cannot hold the step.
void expectGraphedStepSamples(OneRank& rank) {
  StepPlan plan = smallStepPlan();
  plan.precisions = {StepPrecision::Bf16, StepPrecision::Fp16};
  plan.modes = {SyncMode::None, SyncMode::Sequential, SyncMode::Overlap, SyncMode::Single};
  plan.step_graphs = true;
  for (OptimizerImpl impl : {OptimizerImpl::Foreach, OptimizerImpl::Fused}) {
    SCOPED_TRACE(std::string(toString(impl)));
    plan.optimizer_impl = impl;
    const auto samples = runAnnounced(rank, StepSuite(plan));
    std::size_t graphed = 0;
    for (const Sample& s : samples) {
      const auto fields = StepCase::decode(s.fields);
      ASSERT_TRUE(fields);
      if (fields->launch != StepLaunch::Graph || s.series != "step") continue;
      SCOPED_TRACE(s.case_name);
      EXPECT_TRUE(s.case_name.ends_with(" graphed"));
      EXPECT_EQ(s.comparison.group + " graphed", s.case_name);
      if (fields->precision == StepPrecision::Fp16) {
        EXPECT_TRUE(s.measurement.values.empty());
        ASSERT_EQ(s.notes.size(), 1u);
        EXPECT_TRUE(s.notes[0].starts_with("skipped: fp16's loss scaler")) << s.notes[0];
        continue;
      }
      ++graphed;
      ASSERT_EQ(s.measurement.values.size(), 3u);
      for (double v : s.measurement.values) EXPECT_GT(v, 0);
      ASSERT_EQ(s.checks.size(), 2u);
      for (const Check& check : s.checks) {
        EXPECT_GT(check.checked, 0u) << check.name;
        EXPECT_EQ(check.wrong, 0u) << check.name << ": " << s.notes.back();
      }
      const auto busy = std::find_if(samples.begin(), samples.end(), [&s](const Sample& b) {
        return b.case_name == s.case_name && b.series == step_keys::busySeries(step_keys::kWhole);
      });
      ASSERT_NE(busy, samples.end());
      ASSERT_EQ(busy->measurement.values.size(), kBusySteps);
      // A replay's kernels are attributed to it, and they fit in the replay's time.
      for (double v : busy->measurement.values) EXPECT_GT(v, 0);
    }
    // bf16, every mode of every model: Llama with the mask transformers makes under capture,
    // the sync modes with their buckets' collectives in the graph.
    EXPECT_EQ(graphed, plan.models.size() * plan.modes.size());
  }
}

TEST(SuitesOnCpu, StepGraphsAreRefusedOnCpuRanks) {
  OneRank rank(false);
  StepPlan plan = smallStepPlan();
  plan.step_graphs = true;
  const std::optional<std::string> refusal = StepSuite(plan).refusal(rank.context());
  ASSERT_TRUE(refusal);
  EXPECT_TRUE(refusal->starts_with("--step-graphs needs a GPU on every rank")) << *refusal;
  plan.step_graphs = false;
  EXPECT_FALSE(StepSuite(plan).refusal(rank.context()));
}

TEST(SuitesOnGpu, StepGraphsTimeReplaysCheckThemAndSkipWhatAGraphCannotHold) {
  SPLITSTEP_REQUIRE_GPU();
  OneRank rank(true);
  expectGraphedStepSamples(rank);
}

TEST(SuiteRegistry, EverySuiteOfTheCatalogueIsRegistered) {
  EXPECT_EQ(unregisteredSuites(), std::vector<std::string>{});
}

TEST(SuiteRegistry, OnlyCollectiveAndStepSuitesNeedCommunicators) {
  EXPECT_TRUE(usesCommunicators("step"));
  EXPECT_EQ(makeSuite("step", RunPlan{})->name(), "step");
  for (const CollectiveDescriptor* c : collectives()) {
    const std::string name(c->name);
    EXPECT_TRUE(usesCommunicators(name)) << name;
    EXPECT_EQ(makeSuite(name, RunPlan{})->name(), name);
  }
  for (const char* name : {"matmul", "membw"}) {
    EXPECT_FALSE(usesCommunicators(name)) << name;
    EXPECT_EQ(makeSuite(name, RunPlan{})->name(), name);
  }
  EXPECT_THROW(makeSuite("nonsense", RunPlan{}), std::invalid_argument);
}

TEST(SuitesOnCpu, MatmulTimesEveryCaseAndSkipsTf32Visibly) {
  OneRank rank(false);
  expectMatmulSamples(rank);
}

TEST(SuitesOnCpu, MembwTimesCopyAndTriadAndSkipsHostDeviceCopies) {
  OneRank rank(false);
  expectMembwSamples(rank);
}

TEST(SuitesOnCpu, CollectivesOverMpiAreTimedAndChecked) {
  OneRank rank(false);
  expectCollectiveSamples(rank);
}

TEST(SuitesOnCpu, StepTimesEveryModelAndModeAndChecksTheSync) {
  OneRank rank(false);
  expectStepSamples(rank, {StepPrecision::Fp32});
}

TEST(SuitesOnGpu, MatmulTimesEveryDtype) {
  SPLITSTEP_REQUIRE_GPU();
  OneRank rank(true);
  expectMatmulSamples(rank);
}

TEST(SuitesOnGpu, MembwTimesEveryKind) {
  SPLITSTEP_REQUIRE_GPU();
  OneRank rank(true);
  expectMembwSamples(rank);
}

TEST(SuitesOnGpu, CollectivesOverNcclAndMpiAreTimedAndChecked) {
  SPLITSTEP_REQUIRE_GPU();
  OneRank rank(true);
  expectCollectiveSamples(rank);
}

TEST(SuitesOnGpu, StepTimesEveryModelPrecisionAndModeAndChecksTheSync) {
  SPLITSTEP_REQUIRE_GPU();
  OneRank rank(true);
  expectStepSamples(rank, {StepPrecision::Fp32, StepPrecision::Bf16, StepPrecision::Fp16});
}

}  // namespace
}  // namespace splitstep
