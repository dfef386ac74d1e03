#include "report/JsonReporter.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "ReportFixtures.hpp"
#include "TempPath.hpp"

namespace splitstep {
namespace {

nlohmann::json writeAndRead() {
  const auto path = testing::tempPathForThisTest(".json");
  JsonReporter reporter(path.string());
  reporter.reportContext(testing::twoRankContext());
  for (const CaseResult& c : testing::matmulCases()) reporter.reportCase(c);
  reporter.finalize();
  std::ifstream file(path);
  nlohmann::json document = nlohmann::json::parse(file);
  std::filesystem::remove(path);
  return document;
}

TEST(JsonReporter, MetadataNamesEveryVersionTheCommandAndThePlan) {
  const nlohmann::json doc = writeAndRead();
  EXPECT_EQ(doc["schema"], kResultsSchema);
  const auto& meta = doc["metadata"];
  EXPECT_EQ(meta["splitstep_version"], "0.1.0");
  EXPECT_EQ(meta["git_revision"], "abc123");
  EXPECT_EQ(meta["libtorch_version"], "2.11.0");
  EXPECT_EQ(meta["cuda_runtime_version"], "13.0");
  EXPECT_EQ(meta["nccl_version"], "2.28.3");
  EXPECT_EQ(meta["mpi_library"], "Open MPI v4.1.6");
  EXPECT_EQ(meta["command_line"], "splitstep matmul --json out.json");
  EXPECT_EQ(meta["world_size"], 2);
  EXPECT_EQ(meta["measure"]["samples"], 2);
  EXPECT_EQ(meta["measure"]["max_noise"], 0.005);
  EXPECT_EQ(doc["plan"]["samples"], "2");
  EXPECT_EQ(doc["ranks"][1]["host"], "nodeA");
  EXPECT_EQ(doc["ranks"][1]["device_name"], "NVIDIA H200");
}

TEST(JsonReporter, CasesCarryEveryRanksSamplesAndTheAcrossRankSummary) {
  const nlohmann::json doc = writeAndRead();
  ASSERT_EQ(doc["cases"].size(), 3u);
  const auto& c = doc["cases"][1];
  EXPECT_EQ(c["suite"], "matmul");
  EXPECT_EQ(c["case"], "bf16 n=8192");
  EXPECT_EQ(c["skipped"], false);
  EXPECT_EQ(c["slowest_rank"], 1);
  EXPECT_DOUBLE_EQ(c["across_ranks"]["max"].get<double>(), 1.381e-3);
  EXPECT_EQ(c["ranks"][1]["values"], (std::vector<double>{1.380e-3, 1.382e-3}));
  EXPECT_DOUBLE_EQ(c["ranks"][0]["summary"]["median"].get<double>(), 1.369e-3);
  EXPECT_NEAR(c["rates"]["TFLOP/s"].get<double>(), 799.6, 0.1);
  EXPECT_EQ(c["ranks"][1]["loops"], 2);
  EXPECT_EQ(c["ranks"][1]["host_values"].size(), 2u);
  EXPECT_DOUBLE_EQ(c["ranks"][1]["cold"].get<double>(), 45e-3);
  EXPECT_EQ(c["ranks"][1]["clock_at_end"]["max_mhz"], 1980);
  EXPECT_EQ(c["ranks"][1]["warnings"].size(), 0u);
  EXPECT_EQ(c["speedup"]["baseline"], "fp32");
  EXPECT_NEAR(c["speedup"]["value"].get<double>(), 21.55 / 1.375, 1e-3);
  const auto& skipped = doc["cases"][2];
  EXPECT_EQ(skipped["skipped"], true);
  EXPECT_FALSE(skipped.contains("slowest_rank"));
  EXPECT_EQ(skipped["notes"][0], "skipped: for a test");
}

}  // namespace
}  // namespace splitstep
