// The CPU preset built into the program is configs/cpu-quick.ini, taken under the options given
// only where every rank asks and none sees a GPU.
#include "options/CpuPreset.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "OptionErrors.hpp"

namespace splitstep {
namespace {

using testing::ConfigFile;

const std::string kCpuQuick = std::string(SPLITSTEP_CONFIGS_DIR) + "/cpu-quick.ini";

TypedFields entriesWithoutConfig(const RunPlan& plan) {
  auto entries = plan.entries();
  std::erase_if(entries, [](const auto& entry) { return entry.first == "config"; });
  return entries;
}

TEST(CpuPreset, IsConfigsCpuQuickAsBuilt) {
  std::ifstream file(kCpuQuick);
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_EQ(cpuPreset(), text.str());
}

TEST(CpuPreset, AsDefaultsItGivesTheSamePlanAsTheConfigFile) {
  const ParsedCommand preset = parseCommandLine({}, suiteCatalog(), outputInfos(), cpuPreset());
  const ParsedCommand file =
      parseCommandLine({"--config", kCpuQuick}, suiteCatalog(), outputInfos());
  EXPECT_EQ(preset.plan.launch.device, DeviceKind::Cpu);
  EXPECT_EQ(entriesWithoutConfig(preset.plan), entriesWithoutConfig(file.plan));
  EXPECT_EQ(preset.plan.config_file, "");
  EXPECT_NE(entriesWithoutConfig(preset.plan),
            entriesWithoutConfig(parseCommandLine({}, suiteCatalog(), outputInfos()).plan));
}

TEST(CpuPreset, TheCommandLineAndTheConfigFileWinOverIt) {
  const RunPlan given = parseCommandLine({"--membw-bytes", "64M", "--max-time", "3s"},
                                         suiteCatalog(), outputInfos(), cpuPreset())
                            .plan;
  EXPECT_EQ(given.membw.bytes, (std::vector<std::uint64_t>{64u << 20}));
  EXPECT_DOUBLE_EQ(given.measure.max_time, 3);
  EXPECT_DOUBLE_EQ(given.measure.min_time, 0.1);  // the preset's, not the default 0.5 s
  const ConfigFile config("max-noise = 2%\nmembw-bytes = 32M\n");
  const RunPlan file =
      parseCommandLine({"--config", config.path()}, suiteCatalog(), outputInfos(), cpuPreset())
          .plan;
  EXPECT_DOUBLE_EQ(file.measure.max_noise, 0.02);
  EXPECT_EQ(file.membw.bytes, (std::vector<std::uint64_t>{32u << 20}));
  EXPECT_EQ(file.matmul.shapes.front().n, 256);  // the preset's where the file says nothing
}

TEST(CpuPreset, AChosenDeviceIsKnownWhereverItWasGiven) {
  EXPECT_FALSE(parseCommandLine({}, suiteCatalog(), outputInfos()).device_chosen);
  EXPECT_TRUE(parseCommandLine({"--device", "auto"}, suiteCatalog(), outputInfos()).device_chosen);
  const ConfigFile config("device = cuda\n");
  EXPECT_TRUE(
      parseCommandLine({"--config", config.path()}, suiteCatalog(), outputInfos()).device_chosen);
  // The preset's own device = cpu is no choice of the user's.
  EXPECT_FALSE(parseCommandLine({}, suiteCatalog(), outputInfos(), cpuPreset()).device_chosen);
}

TEST(CpuPreset, IsTakenOnlyWhereEveryRankAsksAndNoneSeesAGpu) {
  using Answers = std::vector<std::uint64_t>;
  EXPECT_TRUE(takesCpuPreset(Answers{0}));
  EXPECT_TRUE(takesCpuPreset(Answers{0, 0, 0, 0}));
  EXPECT_FALSE(takesCpuPreset(Answers{}));
  EXPECT_FALSE(takesCpuPreset(Answers{8, 8}));  // a GPU node keeps its defaults
  EXPECT_FALSE(takesCpuPreset(Answers{0, 1}));  // a mixed launch: refused later, as before
  EXPECT_FALSE(takesCpuPreset(Answers{0, kDefaultsNotAsked}));  // one rank chose a device
}

}  // namespace
}  // namespace splitstep
