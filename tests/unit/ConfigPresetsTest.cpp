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
}

}  // namespace
}  // namespace splitstep
