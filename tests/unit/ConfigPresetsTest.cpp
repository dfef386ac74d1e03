// Every preset in configs/ parses into a valid plan, and the documented ones say what they hold.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "options/Options.hpp"

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
    EXPECT_NO_THROW(parseCommandLine({"--config", path.string()}));
    std::ifstream file(path);
    std::string first_line;
    std::getline(file, first_line);
    EXPECT_EQ(first_line.rfind("# ", 0), 0u) << "a preset starts with a comment saying its use";
  }
}

TEST(ConfigPresets, CpuQuickKeepsCasesSmallAndOffTheGpu) {
  const RunPlan plan =
      parseCommandLine({"--config", std::string(SPLITSTEP_CONFIGS_DIR) + "/cpu-quick.ini"}).plan;
  EXPECT_EQ(plan.launch.device, DeviceKind::Cpu);
  for (const MatmulShape& shape : plan.matmul.shapes)
    EXPECT_LE(shape.m * shape.n * shape.k, 512 * 512 * 512);
  for (std::uint64_t bytes : plan.membw.bytes) EXPECT_LE(bytes, 64u << 20);
  EXPECT_LE(plan.measure.max_time, 2.0);
  for (std::uint64_t bytes : plan.collectives.bytes) EXPECT_LE(bytes, 16u << 20);
  const StepPlan& s = plan.step;
  EXPECT_EQ(s.precisions, (std::vector<StepPrecision>{StepPrecision::Fp32}));
  EXPECT_LE(s.mlp.layers * s.mlp.width * s.mlp.width, 2 * 64 * 64);
  EXPECT_LE(s.mlp.batch, 32);
  EXPECT_LE(s.transformer.layers * s.transformer.width, 32);
  EXPECT_LE(s.transformer.seq * s.transformer.batch, 8 * 4);
  EXPECT_LE(s.cnn.blocks * s.cnn.channels, 8);
  EXPECT_LE(s.cnn.image * s.cnn.image * s.cnn.batch, 8 * 8 * 4);
}

TEST(ConfigPresets, H200StepIsTheReferenceCaseOfTheStepComparison) {
  const RunPlan plan =
      parseCommandLine({"--config", std::string(SPLITSTEP_CONFIGS_DIR) + "/h200-step.ini"}).plan;
  EXPECT_EQ(plan.launch.device, DeviceKind::Cuda);
  const StepPlan& s = plan.step;
  EXPECT_EQ(s.models, (std::vector<StepModel>{StepModel::Mlp, StepModel::Transformer}));
  EXPECT_EQ(s.precisions, (std::vector<StepPrecision>{StepPrecision::Bf16}));
  EXPECT_EQ(s.modes, (std::vector<SyncMode>{SyncMode::None, SyncMode::Sequential, SyncMode::Overlap,
                                            SyncMode::Single}));
  EXPECT_EQ(s.optimizer, StepOptimizer::Sgd);
  EXPECT_EQ(s.momentum, 0);
  EXPECT_EQ(s.input, InputSource::Device);
  EXPECT_EQ(s.bucket_bytes, 25u << 20);
  EXPECT_EQ(s.first_bucket_bytes, 1u << 20);
  EXPECT_EQ(s.mlp.layers, 8);
  EXPECT_EQ(s.mlp.width, 8192);
  EXPECT_EQ(s.mlp.batch, 8192);
  EXPECT_EQ(s.transformer.layers, 12);
  EXPECT_EQ(s.transformer.width, 768);
  EXPECT_EQ(s.transformer.heads, 12);
  EXPECT_EQ(s.transformer.seq, 197);
  EXPECT_EQ(s.transformer.batch, 128);
}

}  // namespace
}  // namespace splitstep
