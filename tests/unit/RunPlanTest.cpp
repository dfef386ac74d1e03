#include "options/RunPlan.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

RunPlan samplePlan() {
  RunPlan plan;
  plan.suites = {"matmul", "allreduce"};
  plan.matmul = {{{4096, 4096, 4096}, {8192, 4096, 1024}}, {MatmulDtype::Bf16}};
  plan.collectives.bytes = {8, 1024};
  plan.collectives.dtypes = {CollectiveDtype::Fp32, CollectiveDtype::Bf16};
  plan.collectives.placements = {Placement::InPlace};
  plan.collectives.backends = {Backend::Nccl, Backend::Mpi};
  plan.step.models = {&stepModel("mlp"), &stepModel("vit-b16"), &stepModel("resnet50")};
  plan.step.precisions = {StepPrecision::Fp32, StepPrecision::Bf16, StepPrecision::Fp16};
  plan.step.modes = {SyncMode::None, SyncMode::Sequential, SyncMode::Overlap, SyncMode::Single};
  return plan;
}

// The value of `key` in the plan's entries, or the name "<missing>".
TypedValue typedEntry(const RunPlan& plan, const std::string& key) {
  for (const auto& [k, v] : plan.entries()) {
    if (k == key) return v;
  }
  return typedName("<missing>");
}

// Its text, as the plan's hash mixes it.
std::string entry(const RunPlan& plan, const std::string& key) {
  return typedText(typedEntry(plan, key));
}

TEST(RunPlan, EntriesNameEveryOptionWithCanonicalValues) {
  const RunPlan plan = samplePlan();
  auto value = [&plan](const std::string& key) { return entry(plan, key); };
  EXPECT_EQ(value("suites"), "[\"matmul\",\"allreduce\"]");
  EXPECT_EQ(value("matmul-sizes"), "[4096,[8192,4096,1024]]");
  EXPECT_EQ(value("matmul-dtypes"), "[\"bf16\"]");
  EXPECT_EQ(value("bytes"), "[8,1024]");
  EXPECT_EQ(value("collective-dtypes"), "[\"fp32\",\"bf16\"]");
  EXPECT_EQ(value("placement"), "[\"in\"]");
  EXPECT_EQ(value("backend"), "[\"nccl\",\"mpi\"]");
  EXPECT_EQ(value("check"), "true");
  EXPECT_EQ(value("timeout"), "300");
  EXPECT_EQ(value("samples"), "0");
  EXPECT_EQ(value("max-noise"), "0.005");
  EXPECT_EQ(value("min-sample-time"), "0.002");
  EXPECT_EQ(value("device"), "auto");
}

// Numbers as numbers, counts as integers, switches as true/false, lists as lists: the results
// file writes each as its type, and no reader parses a number out of text.
TEST(RunPlan, EntriesAreTyped) {
  const RunPlan plan = samplePlan();
  EXPECT_EQ(typedEntry(plan, "samples"), typedInteger(0));
  EXPECT_EQ(typedEntry(plan, "timeout"), typedNumber(300));
  EXPECT_EQ(typedEntry(plan, "check"), typedFlag(true));
  EXPECT_EQ(typedEntry(plan, "bytes"), typedList({typedInteger(8), typedInteger(1024)}));
  EXPECT_EQ(typedEntry(plan, "placement"), typedList({typedName("in")}));
  EXPECT_EQ(typedEntry(plan, "vit-layers"), typedInteger(12));
  EXPECT_EQ(typedEntry(plan, "bucket-mb"), typedNumber(25));
  EXPECT_NE(typedEntry(plan, "timeout"), typedInteger(300));
}

TEST(RunPlan, GroupsAreNamedSizedOrListedRanks) {
  RunPlan plan = samplePlan();
  EXPECT_EQ(typedEntry(plan, "groups"), typedName("all"));
  plan.collectives.groups = {GroupKind::Size, 4, {}};
  EXPECT_EQ(typedEntry(plan, "groups"), typedInteger(4));
  plan.collectives.groups = {GroupKind::List, 0, {{2, 3}, {0, 1, 4}}};
  EXPECT_EQ(entry(plan, "groups"), "[[2,3],[0,1,4]]");
}

TEST(RunPlan, StepEntriesUseTheOptionNamesAndTheirUnits) {
  RunPlan plan = samplePlan();
  auto value = [&plan](const std::string& key) { return entry(plan, key); };
  EXPECT_EQ(value("step-models"), "[\"mlp\",\"vit-b16\",\"resnet50\"]");
  EXPECT_EQ(value("precision"), "[\"fp32\",\"bf16\",\"fp16\"]");
  EXPECT_EQ(value("sync-modes"), "[\"none\",\"sequential\",\"overlap\",\"single\"]");
  EXPECT_EQ(value("optimizer"), "sgd");
  EXPECT_EQ(value("lr"), "0.01");
  EXPECT_EQ(value("momentum"), "0");
  EXPECT_EQ(value("input"), "pinned");
  EXPECT_EQ(value("non-blocking"), "true");
  EXPECT_EQ(value("host-work-ms"), "0");
  EXPECT_EQ(value("bucket-mb"), "25");
  EXPECT_EQ(value("first-bucket-mb"), "1");
  EXPECT_EQ(value("mlp-layers"), "8");
  EXPECT_EQ(value("mlp-width"), "8192");
  EXPECT_EQ(value("mlp-batch"), "8192");
  EXPECT_EQ(value("vit-layers"), "12");
  EXPECT_EQ(value("vit-width"), "768");
  EXPECT_EQ(value("vit-heads"), "12");
  EXPECT_EQ(value("vit-patch"), "16");
  EXPECT_EQ(value("vit-image"), "224");
  EXPECT_EQ(value("vit-batch"), "128");
  EXPECT_EQ(value("resnet50-image"), "224");
  EXPECT_EQ(value("resnet50-batch"), "256");
  EXPECT_EQ(value("resnet50-width"), "64");
  EXPECT_EQ(value("resnet50-channels-last"), "0");

  plan.step.optimizer = StepOptimizer::AdamW;
  plan.step.learning_rate = 3e-4;
  plan.step.momentum = 0.9;
  plan.step.input = InputSource::Device;
  plan.step.non_blocking = false;
  plan.step.host_work = 2.5e-3;
  plan.step.bucket_bytes = 512 << 10;
  plan.step.first_bucket_bytes = 104858;  // --first-bucket-mb 0.1, rounded to whole bytes
  EXPECT_EQ(value("optimizer"), "adamw");
  EXPECT_EQ(value("lr"), "0.0003");
  EXPECT_EQ(value("momentum"), "0.9");
  EXPECT_EQ(value("input"), "device");
  EXPECT_EQ(value("non-blocking"), "false");
  EXPECT_EQ(value("host-work-ms"), "2.5");
  EXPECT_EQ(value("bucket-mb"), "0.5");
  EXPECT_EQ(value("first-bucket-mb"), "0.10000038146972656");
}

TEST(RunPlan, OneCheckEntryCoversCollectivesAndStep) {
  RunPlan plan = samplePlan();
  plan.collectives.check = false;
  plan.step.check = false;
  EXPECT_EQ(typedEntry(plan, "check"), typedFlag(false));
  plan.step.check = true;
  EXPECT_EQ(entry(plan, "check"), "collectives off, step on");
}

TEST(RunPlan, StepEnumsPrintTheirOptionValues) {
  EXPECT_EQ(toString(StepPrecision::Bf16), "bf16");
  EXPECT_EQ(toString(StepOptimizer::AdamW), "adamw");
  EXPECT_EQ(toString(SyncMode::Overlap), "overlap");
  EXPECT_EQ(toString(InputSource::Pageable), "pageable");
}

TEST(RunPlan, HashIsStableForEqualPlansAndBuilds) {
  EXPECT_EQ(planHash(samplePlan(), "0.1.0+abc"), planHash(samplePlan(), "0.1.0+abc"));
}

TEST(RunPlan, HashChangesWithAnySettingOrTheBuild) {
  const std::uint64_t base = planHash(samplePlan(), "0.1.0+abc");
  RunPlan iters = samplePlan();
  iters.measure.max_noise = 0.0051;
  RunPlan sizes = samplePlan();
  sizes.collectives.bytes = {8, 2048};
  EXPECT_NE(planHash(iters, "0.1.0+abc"), base);
  EXPECT_NE(planHash(sizes, "0.1.0+abc"), base);
  RunPlan buckets = samplePlan();
  buckets.step.first_bucket_bytes += 4;
  RunPlan shape = samplePlan();
  shape.step.shape.set("resnet50-image", 32);
  RunPlan modes = samplePlan();
  modes.step.modes = {SyncMode::Overlap};
  RunPlan check = samplePlan();
  check.step.check = false;
  EXPECT_NE(planHash(buckets, "0.1.0+abc"), base);
  EXPECT_NE(planHash(shape, "0.1.0+abc"), base);
  EXPECT_NE(planHash(modes, "0.1.0+abc"), base);
  EXPECT_NE(planHash(check, "0.1.0+abc"), base);
  EXPECT_NE(planHash(samplePlan(), "0.1.0+abd"), base);
}

// A rank the plan names must be one of the launch's: a delay or fault on rank 5 of 2 would never
// happen, and nothing would say so.
TEST(RunPlan, RanksItNamesMustBeInTheWorld) {
  RunPlan plan;
  EXPECT_EQ(rankOutsideWorld(plan, 1), std::nullopt);  // the defaults name no rank
  plan.step.delay_rank = 1;
  EXPECT_EQ(rankOutsideWorld(plan, 2), std::nullopt);
  EXPECT_EQ(rankOutsideWorld(plan, 1),
            "--delay-rank: rank 1 is not in this run of 1 rank (0 to 0)");
  plan.step.delay_rank = -1;
  plan.collectives.slow_rank = 4;
  EXPECT_EQ(rankOutsideWorld(plan, 4),
            "--test-slow-rank: rank 4 is not in this run of 4 ranks (0 to 3)");
  plan.collectives.slow_rank = -1;
  plan.launch.stall_rank = 9;
  EXPECT_NE(rankOutsideWorld(plan, 2), std::nullopt);
  plan.launch.stall_rank = -1;
  plan.step.fault_rank = 3;  // read only with a fault
  EXPECT_EQ(rankOutsideWorld(plan, 2), std::nullopt);
  plan.step.fault = SyncFault::StaleGradient;
  EXPECT_EQ(rankOutsideWorld(plan, 2),
            "--test-fault-rank: rank 3 is not in this run of 2 ranks (0 to 1)");
}

}  // namespace
}  // namespace splitstep
