// Every preset in configs/ parses into a valid plan, and the documented ones say what they hold.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "derived/ReferenceFigures.hpp"
#include "options/Options.hpp"
#include "report/OutputCatalogue.hpp"
#include "suites/SuiteCatalog.hpp"

namespace splitstep {
namespace {

std::vector<std::filesystem::path> presets() {
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::directory_iterator(SPLITSTEP_CONFIGS_DIR)) {
    if (entry.path().extension() == ".ini") paths.push_back(entry.path());
  }
  return paths;
}

TEST(ConfigPresets, ThereArePresets) { EXPECT_FALSE(presets().empty()); }

TEST(ConfigPresets, EachPresetParsesAndStartsWithAComment) {
  for (const auto& path : presets()) {
    SCOPED_TRACE(path.string());
    EXPECT_NO_THROW(parseCommandLine({"--config", path.string()}, suiteCatalog(), outputInfos()));
    std::ifstream file(path);
    std::string first_line;
    std::getline(file, first_line);
    EXPECT_EQ(first_line.rfind("# ", 0), 0u) << "a preset starts with a comment saying its use";
  }
}

TEST(ConfigPresets, CpuQuickKeepsCasesSmallAndOffTheGpu) {
  const RunPlan plan =
      parseCommandLine({"--config", std::string(SPLITSTEP_CONFIGS_DIR) + "/cpu-quick.ini"},
                       suiteCatalog(), outputInfos())
          .plan;
  EXPECT_EQ(plan.launch.device, DeviceKind::Cpu);
  for (const MatmulShape& shape : plan.matmul.shapes)
    EXPECT_LE(shape.m * shape.n * shape.k, 512 * 512 * 512);
  for (std::uint64_t bytes : plan.membw.bytes) EXPECT_LE(bytes, 64u << 20);
  EXPECT_LE(plan.measure.max_time, 2.0);
  for (std::uint64_t bytes : plan.collectives.bytes) EXPECT_LE(bytes, 16u << 20);
  const StepPlan& s = plan.step;
  EXPECT_EQ(s.precisions, (std::vector<StepPrecision>{StepPrecision::Fp32}));
  EXPECT_LE(s.shape.at("mlp-layers") * s.shape.at("mlp-width") * s.shape.at("mlp-width"),
            2 * 64 * 64);
  EXPECT_LE(s.shape.at("mlp-batch"), 32);
  // The zoo models at tiny shapes: width x depth, tokens (or pixels) x batch, vocabulary.
  const auto tokens = [&s](std::string_view seq, std::string_view batch) {
    return s.shape.at(seq) * s.shape.at(batch);
  };
  EXPECT_LE(s.shape.at("vit-layers") * s.shape.at("vit-width"), 32);
  const std::int64_t grid = s.shape.at("vit-image") / s.shape.at("vit-patch");
  EXPECT_LE((grid * grid + 1) * s.shape.at("vit-batch"), 5 * 4);
  EXPECT_LE(s.shape.at("resnet50-width"), 2);
  EXPECT_LE(
      s.shape.at("resnet50-image") * s.shape.at("resnet50-image") * s.shape.at("resnet50-batch"),
      32 * 32 * 2);
  EXPECT_LE(s.shape.at("gpt2-layers") * s.shape.at("gpt2-width"), 32);
  EXPECT_LE(tokens("gpt2-seq", "gpt2-batch"), 8 * 4);
  EXPECT_LE(s.shape.at("gpt2-vocab"), 64);
  EXPECT_LE(s.shape.at("llama-layers") * s.shape.at("llama-hidden"), 32);
  EXPECT_LE(s.shape.at("llama-intermediate"), 64);
  EXPECT_LE(tokens("llama-seq", "llama-batch"), 8 * 4);
  EXPECT_LE(s.shape.at("llama-vocab"), 64);
}

TEST(ConfigPresets, QuickLooksAtEverySuiteWithinItsBudget) {
  const RunPlan plan =
      parseCommandLine({"all", "--config", std::string(SPLITSTEP_CONFIGS_DIR) + "/quick.ini"},
                       suiteCatalog(), outputInfos())
          .plan;
  EXPECT_EQ(plan.launch.device, DeviceKind::Cuda);
  EXPECT_TRUE(plan.collectives.check && plan.step.check);  // a sanity check checks
  const MeasureSettings& m = plan.measure;
  EXPECT_LE(m.max_time, 0.5);
  EXPECT_LE(m.min_time, 0.1);
  // Cases per suite, each sampled for at most max_time: the sampling stays within 30 s on
  // 2 GPUs, with room for start-up, cold starts and checks.
  std::size_t cases = 0;
  for (const std::string& suite : plan.suites) {
    if (suite == "matmul") {
      cases += plan.matmul.shapes.size() * plan.matmul.dtypes.size();
    } else if (suite == "membw") {
      cases += plan.membw.bytes.size() * 7;  // copy, triad, memcpy d2d, 4 host<->device copies
    } else if (suite == "step") {
      cases += plan.step.models.size() * plan.step.precisions.size() * plan.step.modes.size();
    } else {  // a collective: sizes x dtypes x placements x backends (auto: one)
      cases += plan.collectives.bytes.size() * plan.collectives.dtypes.size() *
               plan.collectives.placements.size() *
               std::max<std::size_t>(1, plan.collectives.backends.size());
    }
  }
  EXPECT_LE(static_cast<double>(cases) * m.max_time, 25.0) << cases << " cases";
  for (const MatmulShape& shape : plan.matmul.shapes) {
    EXPECT_LE(shape.m * shape.n * shape.k, std::int64_t{4096} * 4096 * 4096);
  }
  for (std::uint64_t bytes : plan.membw.bytes) EXPECT_LE(bytes, 256u << 20);
  // The largest collective at busbw's plateau, so that the verdict judges the link on two GPUs
  // or more; none larger.
  ASSERT_FALSE(plan.collectives.bytes.empty());
  EXPECT_EQ(static_cast<double>(
                *std::max_element(plan.collectives.bytes.begin(), plan.collectives.bytes.end())),
            kAllreducePlateauBytes);
}

TEST(ConfigPresets, SweepIsNcclTestsSizesWithinABudget) {
  const RunPlan plan =
      parseCommandLine({"allreduce", "--config", std::string(SPLITSTEP_CONFIGS_DIR) + "/sweep.ini"},
                       suiteCatalog(), outputInfos())
          .plan;
  // all_reduce_perf -b 8 -e 4G -f 2: 30 sizes.
  ASSERT_EQ(plan.collectives.bytes.size(), 30u);
  EXPECT_EQ(plan.collectives.bytes.front(), 8u);
  EXPECT_EQ(plan.collectives.bytes.back(), 4ull << 30);
  EXPECT_GT(plan.collectives.sweep_time, 0);
  EXPECT_LE(plan.collectives.sweep_time, 4);
}

TEST(ConfigPresets, H200StepIsTheReferenceCaseOfTheStepComparison) {
  const RunPlan plan =
      parseCommandLine({"--config", std::string(SPLITSTEP_CONFIGS_DIR) + "/h200-step.ini"},
                       suiteCatalog(), outputInfos())
          .plan;
  EXPECT_EQ(plan.launch.device, DeviceKind::Cuda);
  const StepPlan& s = plan.step;
  EXPECT_EQ(s.models,
            (std::vector<const StepModelDescriptor*>{&stepModel("mlp"), &stepModel("vit-b16")}));
  EXPECT_EQ(s.precisions, (std::vector<StepPrecision>{StepPrecision::Bf16}));
  EXPECT_EQ(s.modes, (std::vector<SyncMode>{SyncMode::None, SyncMode::Sequential, SyncMode::Overlap,
                                            SyncMode::Single}));
  EXPECT_EQ(s.optimizer, StepOptimizer::Sgd);
  EXPECT_EQ(s.momentum, 0);
  EXPECT_EQ(s.input, InputSource::Device);
  EXPECT_EQ(s.bucket_bytes, 25u << 20);
  EXPECT_EQ(s.first_bucket_bytes, 1u << 20);
  EXPECT_EQ(s.shape.at("mlp-layers"), 8);
  EXPECT_EQ(s.shape.at("mlp-width"), 8192);
  EXPECT_EQ(s.shape.at("mlp-batch"), 8192);
  EXPECT_EQ(s.shape.at("vit-layers"), 12);
  EXPECT_EQ(s.shape.at("vit-width"), 768);
  EXPECT_EQ(s.shape.at("vit-heads"), 12);
  EXPECT_EQ(s.shape.at("vit-patch"), 16);
  EXPECT_EQ(s.shape.at("vit-image"), 224);
  EXPECT_EQ(s.shape.at("vit-batch"), 128);
}

}  // namespace
}  // namespace splitstep
