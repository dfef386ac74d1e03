#include "options/Options.hpp"

#include <gtest/gtest.h>

#include "OptionErrors.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "TempPath.hpp"
#include "models/StepModel.hpp"
#include "report/OutputCatalogue.hpp"
#include "suites/SuiteCatalog.hpp"

namespace splitstep {
namespace {

RunPlan parse(const std::vector<std::string>& args) {
  const ParsedCommand parsed = parseCommandLine(args, suiteCatalog(), outputInfos());
  EXPECT_EQ(parsed.action, ParsedCommand::Action::Run);
  return parsed.plan;
}

using testing::errorOf;

class ConfigFile {
 public:
  explicit ConfigFile(const std::string& content) : path_(testing::tempPathForThisTest(".ini")) {
    std::ofstream(path_) << content;
  }
  ~ConfigFile() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

TEST(Options, DefaultsRunEverySuiteWithGpuSizedCases) {
  const RunPlan plan = parse({});
  EXPECT_EQ(plan.suites, (std::vector<std::string>{"matmul", "membw", "allreduce"}));
  EXPECT_EQ(plan.matmul.shapes, (std::vector<MatmulShape>{{4096, 4096, 4096}, {8192, 8192, 8192}}));
  EXPECT_EQ(plan.matmul.dtypes.size(), 4u);
  EXPECT_EQ(plan.collectives.bytes.front(), 8u);
  EXPECT_EQ(plan.collectives.bytes.back(), 1ull << 30);
  EXPECT_EQ(plan.collectives.dtypes, (std::vector<CollectiveDtype>{CollectiveDtype::Fp32}));
  EXPECT_EQ(plan.collectives.placements, (std::vector<Placement>{Placement::OutOfPlace}));
  EXPECT_TRUE(plan.collectives.backends.empty());  // auto
  EXPECT_TRUE(plan.collectives.check);
  EXPECT_DOUBLE_EQ(plan.launch.timeout, 300);
  EXPECT_EQ(plan.membw.bytes, (std::vector<std::uint64_t>{1ull << 30}));
  EXPECT_EQ(plan.measure.warmup, 3);
  EXPECT_EQ(plan.measure.loops, 0);    // autorange
  EXPECT_EQ(plan.measure.samples, 0);  // stopping rule
  EXPECT_DOUBLE_EQ(plan.measure.max_noise, 0.005);
  EXPECT_DOUBLE_EQ(plan.measure.ci_target, 0.005);
  EXPECT_DOUBLE_EQ(plan.measure.min_sample_time, 2e-3);
  EXPECT_DOUBLE_EQ(plan.measure.max_time, 15);
  EXPECT_FALSE(plan.measure.queued_start || plan.measure.l2_flush || plan.measure.cuda_graph);
  EXPECT_EQ(plan.launch.device, DeviceKind::Auto);
  EXPECT_TRUE(plan.output.path("json").empty());
}

TEST(Options, PositionalSuitesSelectAndOrder) {
  EXPECT_EQ(parse({"allreduce", "matmul"}).suites,
            (std::vector<std::string>{"allreduce", "matmul"}));
}

TEST(Options, ListsAndByteSuffixesAreParsed) {
  const RunPlan plan = parse({"--matmul-sizes", "128, 4096x8192x1024", "--matmul-dtypes",
                              "bf16,fp32", "--bytes", "8,64K,1M,2GiB", "--samples", "3"});
  EXPECT_EQ(plan.matmul.shapes, (std::vector<MatmulShape>{{128, 128, 128}, {4096, 8192, 1024}}));
  EXPECT_EQ(plan.matmul.dtypes, (std::vector<MatmulDtype>{MatmulDtype::Bf16, MatmulDtype::Fp32}));
  EXPECT_EQ(plan.collectives.bytes, (std::vector<std::uint64_t>{8, 65536, 1 << 20, 2ull << 30}));
  EXPECT_EQ(plan.measure.samples, 3);
}

TEST(Options, MeasurementOptionsTakeDurationsAndPercentages) {
  const RunPlan plan =
      parse({"--warmup", "0", "--warmup-time", "250ms", "--min-sample-time", "500us",
             "--min-samples", "4", "--min-time", "2", "--max-noise", "1.5%", "--max-time", "1min",
             "--ci-target", "2%", "--queued-start", "--l2-flush", "--cuda-graph"});
  const MeasureSettings& m = plan.measure;
  EXPECT_EQ(m.warmup, 0);
  EXPECT_DOUBLE_EQ(m.warmup_time, 0.25);
  // A fixed loop count goes without --min-sample-time and --l2-flush (OptionContradictionsTest).
  EXPECT_EQ(parse({"--loops", "7"}).measure.loops, 7);
  EXPECT_DOUBLE_EQ(m.min_sample_time, 500e-6);
  EXPECT_EQ(m.min_samples, 4);
  EXPECT_DOUBLE_EQ(m.min_time, 2);
  EXPECT_DOUBLE_EQ(m.max_noise, 0.015);
  EXPECT_DOUBLE_EQ(m.ci_target, 0.02);
  EXPECT_DOUBLE_EQ(m.max_time, 60);
  EXPECT_TRUE(m.queued_start && m.l2_flush && m.cuda_graph);
}

TEST(Options, CollectiveOptionsSweepLikeNcclTests) {
  const RunPlan plan =
      parse({"allgather", "broadcast", "--min-bytes", "8", "--max-bytes", "1K", "--step-factor",
             "4", "--collective-dtypes", "bf16,fp16", "--placement", "out,in", "--backend",
             "nccl,mpi", "--check", "off", "--timeout", "30s"});
  EXPECT_EQ(plan.suites, (std::vector<std::string>{"allgather", "broadcast"}));
  EXPECT_EQ(plan.collectives.bytes, (std::vector<std::uint64_t>{8, 32, 128, 512}));
  EXPECT_EQ(plan.collectives.dtypes,
            (std::vector<CollectiveDtype>{CollectiveDtype::Bf16, CollectiveDtype::Fp16}));
  EXPECT_EQ(plan.collectives.placements,
            (std::vector<Placement>{Placement::OutOfPlace, Placement::InPlace}));
  EXPECT_EQ(plan.collectives.backends, (std::vector<Backend>{Backend::Nccl, Backend::Mpi}));
  EXPECT_FALSE(plan.collectives.check);
  EXPECT_DOUBLE_EQ(plan.launch.timeout, 30);
  EXPECT_FALSE(plan.collectives.blocking);  // as nccl-tests' -z 0
}

TEST(Options, BlockingCollectivesAreAnOnOffOptionOfThePlan) {
  const RunPlan plan = parse({"allreduce", "--blocking", "on"});
  EXPECT_TRUE(plan.collectives.blocking);
  const auto entries = plan.entries();
  EXPECT_NE(std::find(entries.begin(), entries.end(),
                      std::pair<std::string, TypedValue>{"blocking", typedFlag(true)}),
            entries.end());
  EXPECT_THROW(parse({"allreduce", "--blocking", "sometimes"}), UsageError);
}

TEST(Options, GroupsOfRanksAreParsedIntoTheirCanonicalForm) {
  const RunPlan defaults = parse({});
  EXPECT_EQ(defaults.collectives.groups.kind, GroupKind::All);
  EXPECT_EQ(defaults.collectives.group_mode, GroupMode::Sequential);
  EXPECT_EQ(parse({"--groups", "pairs"}).collectives.groups.kind, GroupKind::Pairs);
  EXPECT_EQ(parse({"--groups", "nodes"}).collectives.groups.kind, GroupKind::Nodes);
  const RunPlan sized = parse({"--groups", "size:4", "--group-mode", "concurrent"});
  EXPECT_EQ(sized.collectives.groups.kind, GroupKind::Size);
  EXPECT_EQ(sized.collectives.groups.size, 4);
  EXPECT_EQ(sized.collectives.group_mode, GroupMode::Concurrent);
  // Each group's ranks ascending; the groups in the order given.
  const RunPlan listed = parse({"--groups", "2,3;1,0,4"});
  EXPECT_EQ(listed.collectives.groups.kind, GroupKind::List);
  EXPECT_EQ(listed.collectives.groups.list, (std::vector<std::vector<int>>{{2, 3}, {0, 1, 4}}));
}

TEST(Options, BadGroupsNameTheOptionAndTheReason) {
  EXPECT_EQ(errorOf({"--groups", "pears"}),
            "--groups: 'pears' is not all, pairs, nodes, size:N or groups such as 0,1;2,3");
  EXPECT_EQ(errorOf({"--groups", "0;1"}),
            "--groups: group '0' has one rank; a group needs two or more");
  EXPECT_EQ(errorOf({"--groups", "0,1;;2,3"}),
            "--groups: '0,1;;2,3' is not all, pairs, nodes, size:N or groups such as 0,1;2,3");
  EXPECT_EQ(errorOf({"--groups", "0,1,1"}), "--groups: '1' given twice");
  EXPECT_EQ(errorOf({"--groups", "0,1;1,0"}), "--groups: group '1,0' given twice");
  EXPECT_EQ(errorOf({"--groups", "size:1"}), "--groups: 1 is out of range [2, 1048576]");
  EXPECT_EQ(errorOf({"--group-mode", "parallel"}),
            "--group-mode: unknown value 'parallel' (sequential, concurrent)");
}

TEST(Options, ASlowRankForTestsNeedsADelayAndADelayARank) {
  const RunPlan plan = parse({"--test-slow-rank", "3", "--test-slow-ms", "0.5"});
  EXPECT_EQ(plan.collectives.slow_rank, 3);
  EXPECT_DOUBLE_EQ(plan.collectives.slow_seconds, 0.5e-3);
  EXPECT_EQ(errorOf({"--test-slow-rank", "3"}),
            "--test-slow-rank: goes with a --test-slow-ms above 0");
  EXPECT_EQ(errorOf({"--test-slow-ms", "2"}),
            "--test-slow-rank: goes with a --test-slow-ms above 0");
}

TEST(Options, QuietIsASwitch) {
  EXPECT_FALSE(parse({}).output.quiet);
  EXPECT_TRUE(parse({"--quiet"}).output.quiet);
}

TEST(Options, StepIsASuiteButNotADefaultOne) {
  EXPECT_EQ(parse({"step"}).suites, (std::vector<std::string>{"step"}));
  EXPECT_EQ(parse({"allreduce", "step"}).suites, (std::vector<std::string>{"allreduce", "step"}));
  EXPECT_EQ(errorOf({"step", "step"}), "suite 'step' given twice");
}

TEST(Options, AllNamesEverySuiteOfTheCatalogue) {
  std::vector<std::string> every;
  for (const SuiteInfo& suite : suiteCatalog()) every.emplace_back(suite.name);
  EXPECT_EQ(parse({"all"}).suites, every);
  EXPECT_NE(std::find(every.begin(), every.end(), "step"), every.end());  // not only the defaults
  EXPECT_EQ(errorOf({"all", "matmul"}), "suite 'all' stands alone: it names every suite");
}

TEST(Options, StepDefaultsAreTheGpuReferenceCase) {
  const StepPlan s = parse({}).step;
  EXPECT_EQ(s.models, (std::vector<const StepModelDescriptor*>{&stepModel("mlp")}));
  EXPECT_EQ(s.precisions, (std::vector<StepPrecision>{StepPrecision::Bf16}));
  EXPECT_EQ(s.modes, (std::vector<SyncMode>{SyncMode::None, SyncMode::Sequential, SyncMode::Overlap,
                                            SyncMode::Single}));
  EXPECT_EQ(s.optimizer, StepOptimizer::Sgd);
  EXPECT_DOUBLE_EQ(s.learning_rate, 0.01);
  EXPECT_EQ(s.momentum, 0);
  EXPECT_EQ(s.input, InputSource::Pinned);
  EXPECT_TRUE(s.non_blocking);
  EXPECT_EQ(s.host_work, 0);
  EXPECT_EQ(s.bucket_bytes, 25u << 20);
  EXPECT_EQ(s.first_bucket_bytes, 1u << 20);
  EXPECT_TRUE(s.check);
  EXPECT_EQ(s.shape.at("mlp-layers"), 8);
  EXPECT_EQ(s.shape.at("mlp-width"), 8192);
  EXPECT_EQ(s.shape.at("mlp-batch"), 8192);
  EXPECT_EQ(s.shape.at("vit-layers"), 12);
  EXPECT_EQ(s.shape.at("vit-width"), 768);
  EXPECT_EQ(s.shape.at("vit-heads"), 12);
  EXPECT_EQ(s.shape.at("vit-patch"), 16);
  EXPECT_EQ(s.shape.at("vit-image"), 224);
  EXPECT_EQ(s.shape.at("vit-batch"), 128);
  EXPECT_EQ(s.shape.at("resnet50-image"), 224);
  EXPECT_EQ(s.shape.at("resnet50-batch"), 256);
  EXPECT_EQ(s.shape.at("resnet50-width"), 64);
  EXPECT_EQ(s.shape.at("resnet50-channels-last"), 0);
}

TEST(Options, StepOptionsAreParsed) {
  const StepPlan s = parse({"step",
                            "--step-models",
                            "resnet50, mlp,vit-b16",
                            "--precision",
                            "fp16,fp32",
                            "--sync-modes",
                            "overlap,none",
                            "--optimizer",
                            "sgd",
                            "--lr",
                            "1e-3",
                            "--momentum",
                            "0.9",
                            "--input",
                            "pageable",
                            "--non-blocking",
                            "off",
                            "--host-work-ms",
                            "2.5",
                            "--bucket-mb",
                            "0.5",
                            "--first-bucket-mb",
                            "0.1",
                            "--check",
                            "off",
                            "--mlp-layers",
                            "2",
                            "--mlp-width",
                            "64",
                            "--mlp-batch",
                            "32",
                            "--vit-layers",
                            "3",
                            "--vit-width",
                            "96",
                            "--vit-heads",
                            "6",
                            "--vit-patch",
                            "8",
                            "--vit-image",
                            "32",
                            "--vit-batch",
                            "5",
                            "--resnet50-image",
                            "32",
                            "--resnet50-batch",
                            "7",
                            "--resnet50-width",
                            "16",
                            "--resnet50-channels-last",
                            "1"})
                         .step;
  EXPECT_EQ(s.models, (std::vector<const StepModelDescriptor*>{
                          &stepModel("resnet50"), &stepModel("mlp"), &stepModel("vit-b16")}));
  EXPECT_EQ(s.precisions, (std::vector<StepPrecision>{StepPrecision::Fp16, StepPrecision::Fp32}));
  EXPECT_EQ(s.modes, (std::vector<SyncMode>{SyncMode::Overlap, SyncMode::None}));
  EXPECT_EQ(s.optimizer, StepOptimizer::Sgd);
  EXPECT_DOUBLE_EQ(s.learning_rate, 1e-3);
  EXPECT_DOUBLE_EQ(s.momentum, 0.9);
  EXPECT_EQ(s.input, InputSource::Pageable);
  EXPECT_FALSE(s.non_blocking);
  EXPECT_DOUBLE_EQ(s.host_work, 2.5e-3);  // seconds
  EXPECT_EQ(s.bucket_bytes, 512u << 10);
  EXPECT_EQ(s.first_bucket_bytes, 104858u);  // 0.1 MiB rounded to whole bytes
  EXPECT_FALSE(s.check);
  EXPECT_EQ(s.shape.at("mlp-layers"), 2);
  EXPECT_EQ(s.shape.at("mlp-width"), 64);
  EXPECT_EQ(s.shape.at("mlp-batch"), 32);
  EXPECT_EQ(s.shape.at("vit-layers"), 3);
  EXPECT_EQ(s.shape.at("vit-width"), 96);
  EXPECT_EQ(s.shape.at("vit-heads"), 6);
  EXPECT_EQ(s.shape.at("vit-patch"), 8);
  EXPECT_EQ(s.shape.at("vit-image"), 32);
  EXPECT_EQ(s.shape.at("vit-batch"), 5);
  EXPECT_EQ(s.shape.at("resnet50-image"), 32);
  EXPECT_EQ(s.shape.at("resnet50-batch"), 7);
  EXPECT_EQ(s.shape.at("resnet50-width"), 16);
  EXPECT_EQ(s.shape.at("resnet50-channels-last"), 1);
}

TEST(Options, CheckSetsBothCollectivesAndStep) {
  const RunPlan off = parse({"--check", "off"});
  EXPECT_FALSE(off.collectives.check);
  EXPECT_FALSE(off.step.check);
  const RunPlan on = parse({"--check", "on"});
  EXPECT_TRUE(on.collectives.check);
  EXPECT_TRUE(on.step.check);
}

TEST(Options, GpuBusyIsOnUnlessTurnedOff) {
  EXPECT_TRUE(parse({}).step.gpu_busy);
  EXPECT_FALSE(parse({"--gpu-busy", "off"}).step.gpu_busy);
  EXPECT_TRUE(parse({"--gpu-busy", "on"}).step.gpu_busy);
}

TEST(Options, AdamwAndTheOtherInputsAreAccepted) {
  const StepPlan s =
      parse({"--optimizer", "adamw", "--input", "device", "--momentum", "0", "--host-work-ms",
             "60000", "--bucket-mb", "16384", "--first-bucket-mb", "0.5"})
          .step;
  EXPECT_EQ(s.optimizer, StepOptimizer::AdamW);
  EXPECT_EQ(s.input, InputSource::Device);
  EXPECT_DOUBLE_EQ(s.host_work, 60);
  EXPECT_EQ(s.bucket_bytes, 16ull << 30);
  EXPECT_EQ(parse({"--input", "pinned"}).step.input, InputSource::Pinned);
  // The smallest bucket: 4 bytes, one fp32 element.
  EXPECT_EQ(parse({"--bucket-mb", "0.000003814697265625"}).step.bucket_bytes, 4u);
}

TEST(Options, BadStepInputNamesTheOptionAndTheReason) {
  // Every model, as --help lists them: the list grows with the zoo.
  EXPECT_EQ(errorOf({"--step-models", "resnet"}),
            "--step-models: unknown value 'resnet' (did you mean 'resnet50'?) (" +
                stepModelNames() + ")");
  EXPECT_EQ(stepModelNames().rfind("mlp, resnet50, llama, vit-b16, gpt2", 0), 0u);
  EXPECT_EQ(errorOf({"--step-models", "mlp,mlp"}), "--step-models: 'mlp' given twice");
  EXPECT_EQ(errorOf({"--step-models", ""}), "--step-models: the list is empty");
  EXPECT_EQ(errorOf({"--precision", "tf32"}),
            "--precision: unknown value 'tf32' (fp32, bf16, fp16)");
  EXPECT_EQ(errorOf({"--sync-modes", "ddp"}),
            "--sync-modes: unknown value 'ddp' (none, sequential, overlap, single)");
  EXPECT_EQ(errorOf({"--sync-modes", "none,,single"}),
            "--sync-modes: empty entry in 'none,,single'");
  EXPECT_EQ(errorOf({"--optimizer", "adam"}),
            "--optimizer: unknown value 'adam' (did you mean 'adamw'?) (sgd, adamw)");
  EXPECT_EQ(errorOf({"--optimizer", "sgd,adamw"}),
            "--optimizer: unknown value 'sgd,adamw' (sgd, adamw)");
  EXPECT_EQ(errorOf({"--lr", "0"}), "--lr: '0' is not a positive number");
  EXPECT_EQ(errorOf({"--lr", "-0.1"}), "--lr: '-0.1' is not a positive number");
  EXPECT_EQ(errorOf({"--lr", "inf"}), "--lr: 'inf' is not a positive number");
  EXPECT_EQ(errorOf({"--lr", "fast"}), "--lr: 'fast' is not a positive number");
  EXPECT_EQ(errorOf({"--momentum", "1"}), "--momentum: '1' is not a number in [0, 1)");
  EXPECT_EQ(errorOf({"--momentum", "-0.5"}), "--momentum: '-0.5' is not a number in [0, 1)");
  EXPECT_EQ(errorOf({"--optimizer", "adamw", "--momentum", "0.9"}),
            "--momentum: applies to sgd only");
  EXPECT_EQ(errorOf({"--input", "gpu"}), "--input: unknown value 'gpu' (pinned, pageable, device)");
  EXPECT_EQ(errorOf({"--non-blocking", "yes"}), "--non-blocking: 'yes' is neither on nor off");
  EXPECT_EQ(errorOf({"--host-work-ms", "-1"}),
            "--host-work-ms: '-1' is not a number of milliseconds in [0, 60000]");
  EXPECT_EQ(errorOf({"--host-work-ms", "60001"}),
            "--host-work-ms: '60001' is not a number of milliseconds in [0, 60000]");
  EXPECT_EQ(errorOf({"--host-work-ms", "2ms"}),
            "--host-work-ms: '2ms' is not a number of milliseconds in [0, 60000]");
  EXPECT_EQ(errorOf({"--bucket-mb", "0"}),
            "--bucket-mb: '0' is not a positive number of MiB (e.g. 25, 0.5)");
  EXPECT_EQ(errorOf({"--bucket-mb", "25M"}),
            "--bucket-mb: '25M' is not a positive number of MiB (e.g. 25, 0.5)");
  EXPECT_EQ(errorOf({"--bucket-mb", "16385"}),
            "--bucket-mb: '16385' is out of range [4 B, 16 GiB]");
  EXPECT_EQ(errorOf({"--first-bucket-mb", "0.000001"}),
            "--first-bucket-mb: '0.000001' is out of range [4 B, 16 GiB]");
  EXPECT_EQ(errorOf({"--mlp-layers", "0"}), "--mlp-layers: 0 is out of range [1, 1024]");
  EXPECT_EQ(errorOf({"--mlp-width", "65537"}), "--mlp-width: 65537 is out of range [1, 65536]");
  EXPECT_EQ(errorOf({"--mlp-batch", "0"}), "--mlp-batch: 0 is out of range [1, 1048576]");
  EXPECT_EQ(errorOf({"--vit-layers", "1025"}), "--vit-layers: 1025 is out of range [1, 1024]");
  EXPECT_EQ(errorOf({"--vit-width", "0"}), "--vit-width: 0 is out of range [1, 65536]");
  EXPECT_EQ(errorOf({"--vit-heads", "0"}), "--vit-heads: 0 is out of range [1, 1024]");
  EXPECT_EQ(errorOf({"--gpt2-seq", "1048577"}), "--gpt2-seq: 1048577 is out of range [1, 1048576]");
  EXPECT_EQ(errorOf({"--vit-batch", "-4"}), "--vit-batch: -4 is out of range [1, 1048576]");
  EXPECT_EQ(errorOf({"--resnet50-width", "0"}), "--resnet50-width: 0 is out of range [1, 1024]");
  EXPECT_EQ(errorOf({"--resnet50-channels-last", "2"}),
            "--resnet50-channels-last: 2 is out of range [0, 1]");
  EXPECT_EQ(errorOf({"--resnet50-image", "7"}), "--resnet50-image: 7 is out of range [8, 8192]");
  EXPECT_EQ(errorOf({"--resnet50-image", "8193"}),
            "--resnet50-image: 8193 is out of range [8, 8192]");
  EXPECT_EQ(errorOf({"--resnet50-batch", "0"}), "--resnet50-batch: 0 is out of range [1, 1048576]");
  EXPECT_NE(errorOf({"--mlp-width", "wide"}).find("'--mlp-width' is invalid"), std::string::npos);
}

TEST(Options, VitWidthMustSplitEvenlyIntoHeads) {
  EXPECT_EQ(errorOf({"--vit-width", "100"}), "--vit-heads: 12 does not divide --vit-width 100");
  EXPECT_EQ(errorOf({"--vit-heads", "5"}), "--vit-heads: 5 does not divide --vit-width 768");
  const StepShape t = parse({"--vit-width", "100", "--vit-heads", "4"}).step.shape;
  EXPECT_EQ(t.at("vit-width"), 100);
  EXPECT_EQ(t.at("vit-heads"), 4);
}

TEST(Options, StepOptionsAreConfigKeys) {
  const ConfigFile config(
      "step-models = vit-b16,resnet50\nprecision = fp32\nsync-modes = single\n"
      "optimizer = adamw\nlr = 3e-4\ninput = device\nnon-blocking = off\nhost-work-ms = 1\n"
      "bucket-mb = 4\nfirst-bucket-mb = 0.25\ncheck = off\nmlp-layers = 3\nmlp-width = 128\n"
      "mlp-batch = 16\nvit-layers = 2\nvit-width = 64\nvit-heads = 4\nvit-patch = 4\n"
      "vit-image = 12\nvit-batch = 3\nresnet50-image = 40\nresnet50-batch = 6\n"
      "resnet50-width = 12\nresnet50-channels-last = 1\n");
  const StepPlan s = parse({"step", "--config", config.path(), "--mlp-batch", "24"}).step;
  EXPECT_EQ(s.models, (std::vector<const StepModelDescriptor*>{&stepModel("vit-b16"),
                                                               &stepModel("resnet50")}));
  EXPECT_EQ(s.precisions, (std::vector<StepPrecision>{StepPrecision::Fp32}));
  EXPECT_EQ(s.modes, (std::vector<SyncMode>{SyncMode::Single}));
  EXPECT_EQ(s.optimizer, StepOptimizer::AdamW);
  EXPECT_DOUBLE_EQ(s.learning_rate, 3e-4);
  EXPECT_EQ(s.input, InputSource::Device);
  EXPECT_FALSE(s.non_blocking);
  EXPECT_DOUBLE_EQ(s.host_work, 1e-3);
  EXPECT_EQ(s.bucket_bytes, 4u << 20);
  EXPECT_EQ(s.first_bucket_bytes, 256u << 10);
  EXPECT_FALSE(s.check);
  EXPECT_EQ(s.shape.at("mlp-layers"), 3);
  EXPECT_EQ(s.shape.at("mlp-width"), 128);
  EXPECT_EQ(s.shape.at("mlp-batch"), 24);  // the command line wins
  EXPECT_EQ(s.shape.at("vit-layers"), 2);
  EXPECT_EQ(s.shape.at("vit-width"), 64);
  EXPECT_EQ(s.shape.at("vit-heads"), 4);
  EXPECT_EQ(s.shape.at("vit-patch"), 4);
  EXPECT_EQ(s.shape.at("vit-image"), 12);
  EXPECT_EQ(s.shape.at("vit-batch"), 3);
  EXPECT_EQ(s.shape.at("resnet50-image"), 40);
  EXPECT_EQ(s.shape.at("resnet50-batch"), 6);
  EXPECT_EQ(s.shape.at("resnet50-width"), 12);
  EXPECT_EQ(s.shape.at("resnet50-channels-last"), 1);
}

TEST(Options, ProjectionDefaultsAreNodesOfEightGpusOnA50GBsNetwork) {
  const ProjectionPlan p = parse({}).projection;
  EXPECT_EQ(p.ranks, (std::vector<int>{4, 8, 16, 32, 64, 128, 256, 512, 1024}));
  EXPECT_EQ(p.gpus_per_node, 8);
  EXPECT_EQ(p.internode_bandwidth, 50e9);
  EXPECT_FALSE(p.internode_latency.has_value());
}

TEST(Options, ProjectionOptionsAreParsed) {
  const ProjectionPlan p =
      parse({"--project-ranks", "16,3", "--project-gpus-per-node", "4", "--project-internode-bw",
             "25.5", "--project-internode-latency", "5us"})
          .projection;
  EXPECT_EQ(p.ranks, (std::vector<int>{16, 3}));
  EXPECT_EQ(p.gpus_per_node, 4);
  EXPECT_EQ(p.internode_bandwidth, 25.5e9);
  ASSERT_TRUE(p.internode_latency.has_value());
  EXPECT_DOUBLE_EQ(*p.internode_latency, 5e-6);
  EXPECT_EQ(errorOf({"--project-ranks", "1"}), "--project-ranks: 1 is out of range [2, 1048576]");
  EXPECT_EQ(errorOf({"--project-ranks", "8,8"}), "--project-ranks: '8' given twice");
  EXPECT_EQ(errorOf({"--project-gpus-per-node", "0"}),
            "--project-gpus-per-node: 0 is out of range [1, 65536]");
  EXPECT_EQ(errorOf({"--project-internode-bw", "0"}),
            "--project-internode-bw: '0' is not a positive number of GB/s");
  EXPECT_EQ(errorOf({"--project-internode-latency", "soon"}),
            "--project-internode-latency: 'soon' is not a duration (e.g. 500us, 2ms, 0.5s, 15)");
}

TEST(Options, HelpAndVersionAreActionsNotRuns) {
  const ParsedCommand help = parseCommandLine({"--help"}, suiteCatalog(), outputInfos());
  EXPECT_EQ(help.action, ParsedCommand::Action::Help);
  EXPECT_NE(help.help.find("--matmul-sizes"), std::string::npos);
  EXPECT_NE(help.help.find("--step-models"), std::string::npos);
  EXPECT_NE(help.help.find("\n  scatter "), std::string::npos);
  EXPECT_EQ(parseCommandLine({"--version"}, suiteCatalog(), outputInfos()).action,
            ParsedCommand::Action::Version);
}

TEST(Options, BadInputNamesTheOptionAndTheReason) {
  EXPECT_EQ(errorOf({"--bogus"}), "unrecognised option '--bogus'");
  EXPECT_EQ(errorOf({"--min-samples", "0"}), "--min-samples: 0 is out of range [1, 1000000]");
  EXPECT_EQ(errorOf({"--warmup", "-1"}), "--warmup: -1 is out of range [0, 1000000]");
  EXPECT_NE(errorOf({"--samples", "ten"}).find("'--samples' is invalid"), std::string::npos);
  EXPECT_EQ(errorOf({"--max-time", "soon"}),
            "--max-time: 'soon' is not a duration (e.g. 500us, 2ms, 0.5s, 15)");
  EXPECT_EQ(errorOf({"--max-time", "0"}), "--max-time: '0' is out of range [0.001s, 86400s]");
  EXPECT_EQ(errorOf({"--max-noise", "0%"}), "--max-noise: '0%' is not a percentage in (0, 100]");
  EXPECT_EQ(errorOf({"--ci-target", "0"}), "--ci-target: '0' is not a percentage in (0, 100]");
  EXPECT_EQ(errorOf({"--matmul-sizes", "0"}),
            "--matmul-sizes: '0' is not N or MxNxK with each in [1, 65536]");
  EXPECT_EQ(errorOf({"--matmul-sizes", "8x8"}), "--matmul-sizes: '8x8' is not N or MxNxK");
  EXPECT_EQ(errorOf({"--matmul-sizes", "1,,2"}), "--matmul-sizes: empty entry in '1,,2'");
  EXPECT_EQ(errorOf({"--matmul-dtypes", "fp8"}),
            "--matmul-dtypes: unknown value 'fp8' (fp32, tf32, fp16, bf16)");
  EXPECT_EQ(errorOf({"--matmul-dtypes", "bf16,bf16"}), "--matmul-dtypes: 'bf16' given twice");
  EXPECT_EQ(errorOf({"--backend", "gloo"}), "--backend: unknown value 'gloo' (nccl, mpi)");
  EXPECT_EQ(errorOf({"--placement", "both"}), "--placement: unknown value 'both' (out, in)");
  EXPECT_EQ(errorOf({"--check", "maybe"}), "--check: 'maybe' is neither on nor off");
  EXPECT_EQ(errorOf({"--timeout", "0"}), "--timeout: '0' is out of range [0.1s, 604800s]");
  EXPECT_EQ(errorOf({"--min-bytes", "8"}), "--min-bytes and --max-bytes go together");
  EXPECT_EQ(errorOf({"--min-bytes", "8", "--max-bytes", "64", "--bytes", "8"}),
            "--bytes: give a list or --min-bytes/--max-bytes, not both");
  EXPECT_EQ(errorOf({"--min-bytes", "8", "--max-bytes", "64", "--step-factor", "1"}),
            "--step-factor: 1 is out of range [2, 1024]");
  EXPECT_EQ(errorOf({"--bytes", "6"}), "--bytes: '6' is not a multiple of 4 B in [4 B, 64 GiB]");
  EXPECT_EQ(errorOf({"--membw-bytes", "1000"}),
            "--membw-bytes: '1000' is not a multiple of 16 B in [16 B, 64 GiB]");
  EXPECT_EQ(errorOf({"--bytes", "1X"}), "--bytes: '1X' is not a byte count (e.g. 8, 64K, 1M, 4G)");
  EXPECT_EQ(errorOf({"--device", "tpu"}),
            "--device: unknown device 'tpu' (did you mean 'cpu'?) (auto, cuda, cpu)");
  EXPECT_EQ(errorOf({"matmull"}),
            "unknown suite 'matmull' (did you mean 'matmul'?) (matmul, membw, allreduce, "
            "reduce_scatter, allgather, "
            "broadcast, alltoall, sendrecv, reduce, gather, scatter, hypercube, step)");
  EXPECT_EQ(errorOf({"matmul", "matmul"}), "suite 'matmul' given twice");
  EXPECT_EQ(errorOf({"--config", "/nonexistent/x.ini"}),
            "--config: '/nonexistent/x.ini' cannot be read: No such file or directory");
}

// Values that were refused or misreported before; each pinned with the message it gets now.
TEST(Options, RefusalsNameTheBadValueAndTheRange) {
  EXPECT_EQ(errorOf({"--warmup", "1000000000000"}),
            "--warmup: 1000000000000 is out of range [0, 1000000]");
  EXPECT_EQ(errorOf({"--bytes", "8,8"}), "--bytes: '8' given twice");
  EXPECT_EQ(errorOf({"--bytes", "8,8B"}), "--bytes: '8B' is the same size as an earlier entry");
  EXPECT_EQ(errorOf({"--min-bytes=abc"}),
            "--min-bytes: 'abc' is not a byte count (e.g. 8, 64K, 1M, 4G)");
  EXPECT_EQ(errorOf({"--max-bytes=abc", "--min-bytes", "8"}),
            "--max-bytes: 'abc' is not a byte count (e.g. 8, 64K, 1M, 4G)");
}

TEST(Options, ASweepOnTheCommandLineOverridesAPresetsList) {
  const ConfigFile preset("bytes = 8,1K,64K\n");
  const RunPlan plan = parse({"--config", preset.path(), "--min-bytes", "8", "--max-bytes", "64"});
  EXPECT_EQ(plan.collectives.bytes, (std::vector<std::uint64_t>{8, 16, 32, 64}));
  // And a list on the command line overrides a preset's sweep.
  const ConfigFile sweep("min-bytes = 8\nmax-bytes = 64\n");
  EXPECT_EQ(parse({"--config", sweep.path(), "--bytes", "1K"}).collectives.bytes,
            (std::vector<std::uint64_t>{1024}));
}

TEST(Options, EchoedValuesAreShortenedAndEscaped) {
  // 50 MB, what the hostile user gave (a command line carries at most 128 KiB per
  // argument, a config file 1 MiB; an embedding program has no limit).
  const std::string huge(50'000'000, '7');
  const std::string error = errorOf({"--bytes", huge});
  EXPECT_EQ(error, "--bytes: '" + huge.substr(0, 80) +
                       "... (50000000 characters)' is not a byte count (e.g. 8, 64K, 1M, 4G)");
  const std::string long_text(1'000'000, 'x');
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--backend", long_text}, {"--" + long_text}, {long_text}, {"--json", "x", long_text}}) {
    const std::string message = errorOf(args);
    EXPECT_LT(message.size(), 400u) << message.substr(0, 400);
    EXPECT_NE(message.find(" characters)"), std::string::npos) << message.substr(0, 400);
  }
  const std::string escape = "\x1b[31mred\x1b[0m\n\x07";
  for (const auto& args : std::vector<std::vector<std::string>>{{"--backend", escape},
                                                                {"--matmul-sizes", escape},
                                                                {"--" + escape},
                                                                {escape},
                                                                {escape, escape},
                                                                {"matmul", "matmul\x1b"}}) {
    const std::string message = errorOf(args);
    EXPECT_EQ(std::count_if(message.begin(), message.end(),
                            [](char c) { return static_cast<unsigned char>(c) < 0x20; }),
              0)
        << message;
  }
  EXPECT_EQ(errorOf({"--backend", escape}),
            "--backend: unknown value '\\x1b[31mred\\x1b[0m\\x0a\\x07' (nccl, mpi)");
}

// A value of the file that the command line overrides is checked all the same: the file is bad
// whichever of its values a run uses.
TEST(Options, AConfigValueTheCommandLineOverridesIsCheckedToo) {
  const ConfigFile bad("max-time = nan\n");
  const std::string alone = errorOf({"--config", bad.path()});
  EXPECT_NE(alone, "<no error>");
  EXPECT_EQ(errorOf({"--config", bad.path(), "--max-time", "0.2s"}), alone);
  const ConfigFile good("max-time = 2s\nsamples = 3\n");
  EXPECT_EQ(errorOf({"--config", good.path(), "--max-time", "0.2s"}), "<no error>");
  EXPECT_DOUBLE_EQ(parse({"--config", good.path(), "--max-time", "0.2s"}).measure.max_time, 0.2);
}

TEST(Options, ConfigFilesAreRegularTextFilesOfBoundedSize) {
  EXPECT_EQ(errorOf({"--config", "/dev/zero"}), "--config: '/dev/zero' is not a regular file");
  const auto directory = testing::tempPathForThisTest(".d");
  std::filesystem::create_directory(directory);
  EXPECT_EQ(errorOf({"--config", directory.string()}),
            "--config: '" + directory.string() + "' is not a regular file");
  std::filesystem::remove(directory);
  // A pipe with no writer would block a reader forever.
  const auto fifo = testing::tempPathForThisTest(".fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(errorOf({"--config", fifo.string()}),
            "--config: '" + fifo.string() + "' is not a regular file");
  std::filesystem::remove(fifo);
  const ConfigFile large(std::string((1 << 20) + 1, '#'));
  EXPECT_EQ(errorOf({"--config", large.path()}),
            "--config: '" + large.path() + "' is larger than 1 MiB: not a config file");
  const ConfigFile exactly(std::string(1 << 20, '#'));
  EXPECT_EQ(errorOf({"--config", exactly.path()}), "<no error>");
  const ConfigFile binary(std::string("samples = 3\n\0\x01", 14));
  EXPECT_EQ(errorOf({"--config", binary.path()}),
            "--config: '" + binary.path() + "' is not a text file (byte 0x00 at offset 12)");
  const ConfigFile escapes("samples = 3\x1b[2J\n");
  EXPECT_EQ(errorOf({"--config", escapes.path()}),
            "--config: '" + escapes.path() + "' is not a text file (byte 0x1b at offset 11)");
  // Tabs, carriage returns and UTF-8 comments are text.
  const ConfigFile text("# r\xc3\xa9glages\r\nsamples =\t3\r\n");
  EXPECT_EQ(parse({"--config", text.path()}).measure.samples, 3);
}

TEST(Options, ErrorsAreOneLine) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--bogus"},
                                                                {"--samples", "ten"},
                                                                {"--samples"},
                                                                {"--bytes", "99999999999G"},
                                                                {"--mlp-width", "1e99"},
                                                                {"--bucket-mb", "1e308"},
                                                                {"--vit-width", "7"}}) {
    EXPECT_EQ(errorOf(args).find('\n'), std::string::npos) << errorOf(args);
  }
}

TEST(Options, ConfigFileSetsOptionsAndTheCommandLineWins) {
  const ConfigFile config("matmul-sizes = 512\nsamples = 7\nallow-gpu-sharing = true\n");
  const RunPlan plan = parse({"--config", config.path(), "--samples", "9"});
  EXPECT_EQ(plan.matmul.shapes, (std::vector<MatmulShape>{{512, 512, 512}}));
  EXPECT_EQ(plan.measure.samples, 9);
  EXPECT_TRUE(plan.launch.allow_gpu_sharing);
  EXPECT_EQ(plan.config_file, config.path());
}

TEST(Options, UnknownOrMalformedConfigKeysAreRefusedWithTheFileName) {
  const ConfigFile unknown("matmul-size = 512\n");
  EXPECT_EQ(errorOf({"--config", unknown.path()}),
            unknown.path() + ": unrecognised option 'matmul-size' (did you mean 'matmul-sizes'?)");
}

TEST(Options, DurationParsing) {
  EXPECT_DOUBLE_EQ(parseDuration("x", "15"), 15);
  EXPECT_DOUBLE_EQ(parseDuration("x", "0.5s"), 0.5);
  EXPECT_DOUBLE_EQ(parseDuration("x", "2ms"), 2e-3);
  EXPECT_DOUBLE_EQ(parseDuration("x", "500us"), 500e-6);
  EXPECT_DOUBLE_EQ(parseDuration("x", "100ns"), 100e-9);
  EXPECT_DOUBLE_EQ(parseDuration("x", "2min"), 120);
  EXPECT_THROW(parseDuration("x", "ms"), UsageError);
  EXPECT_THROW(parseDuration("x", "-1s"), UsageError);
  EXPECT_THROW(parseDuration("x", "nan"), UsageError);
}

TEST(Options, ByteSizeParsing) {
  EXPECT_EQ(parseByteSize("x", "8"), 8u);
  EXPECT_EQ(parseByteSize("x", "1K"), 1024u);
  EXPECT_EQ(parseByteSize("x", "3MiB"), 3u << 20);
  EXPECT_EQ(parseByteSize("x", "4G"), 4ull << 30);
  EXPECT_EQ(parseByteSize("x", "16B"), 16u);
  EXPECT_THROW(parseByteSize("x", "K"), UsageError);
  EXPECT_THROW(parseByteSize("x", "-4"), UsageError);
  EXPECT_THROW(parseByteSize("x", "99999999999999G"), UsageError);
}

TEST(Options, TelemetryTraceAndCsv) {
  const RunPlan defaults = parse({});
  EXPECT_TRUE(defaults.telemetry.enabled);
  EXPECT_DOUBLE_EQ(defaults.telemetry.interval, 0.02);
  EXPECT_TRUE(defaults.output.path("trace").empty());
  EXPECT_TRUE(defaults.output.path("csv").empty());
  EXPECT_FALSE(defaults.output.timelines);
  EXPECT_FALSE(parse({"--telemetry", "off"}).telemetry.enabled);
  EXPECT_DOUBLE_EQ(parse({"--telemetry", "on"}).telemetry.interval, 0.02);
  const RunPlan every_50ms = parse({"--telemetry", "50ms", "--trace", "t.json", "--csv", "r.csv"});
  EXPECT_TRUE(every_50ms.telemetry.enabled);
  EXPECT_DOUBLE_EQ(every_50ms.telemetry.interval, 0.05);
  EXPECT_EQ(every_50ms.output.path("trace"), "t.json");
  EXPECT_EQ(every_50ms.output.path("csv"), "r.csv");
  // The trace draws every rank's timeline; a CSV alone draws none.
  EXPECT_TRUE(every_50ms.output.timelines);
  EXPECT_FALSE(parse({"--csv", "r.csv"}).output.timelines);
  EXPECT_EQ(errorOf({"--telemetry", "1ms"}),
            "--telemetry: '1ms' is not off, on or an interval from 5ms to 10s");
  EXPECT_EQ(errorOf({"--telemetry", "often"}),
            "--telemetry: 'often' is not off, on or an interval from 5ms to 10s");
}

}  // namespace
}  // namespace splitstep
