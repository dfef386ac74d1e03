#include "report/CsvReporter.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "ReportFixtures.hpp"
#include "TempPath.hpp"
#include "cases/CollectiveCase.hpp"

namespace splitstep {
namespace {

using Table = std::vector<std::map<std::string, std::string>>;

// The cells of one line, quotes undone (RFC 4180, no line breaks inside a cell here).
std::vector<std::string> cellsOf(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      cells.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
}

// The header, and every row by column.
std::pair<std::vector<std::string>, Table> writeAndRead(const std::vector<CaseResult>& cases) {
  const auto path = testing::tempPathForThisTest(".csv");
  CsvReporter reporter(path.string());
  reporter.reportContext(testing::twoRankContext());
  for (const CaseResult& c : cases) reporter.reportCase(c);
  reporter.reportDerived(testing::stepDerived());
  reporter.finalize();
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  const std::vector<std::string> header = cellsOf(line);
  Table rows;
  while (std::getline(file, line)) {
    const std::vector<std::string> cells = cellsOf(line);
    EXPECT_EQ(cells.size(), header.size()) << line;
    auto& row = rows.emplace_back();
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
  }
  std::filesystem::remove(path);
  return {header, rows};
}

TEST(CsvReporter, OneRowPerCaseAndRankWithFlatColumns) {
  const auto [header, rows] = writeAndRead(testing::matmulCases());
  // fp32 and bf16 on two ranks each, and the skipped tf32 case once.
  ASSERT_EQ(rows.size(), 5u);
  const auto& bf16_r1 = rows[3];
  EXPECT_EQ(bf16_r1.at("suite"), "matmul");
  EXPECT_EQ(bf16_r1.at("case"), "bf16 n=8192");
  EXPECT_EQ(bf16_r1.at("series"), "mm");
  // One column per case field, the family beside the suite.
  EXPECT_EQ(bf16_r1.at("family"), "matmul");
  EXPECT_EQ(bf16_r1.at("dtype"), "bf16");
  EXPECT_EQ(bf16_r1.at("m"), "8192");
  EXPECT_EQ(bf16_r1.at("k"), "8192");
  EXPECT_EQ(bf16_r1.at("rank"), "1");
  EXPECT_EQ(bf16_r1.at("host"), "nodeA");
  EXPECT_EQ(bf16_r1.at("device"), "cuda:1");
  EXPECT_EQ(bf16_r1.at("device_name"), "NVIDIA H200");
  EXPECT_EQ(bf16_r1.at("skipped"), "false");
  EXPECT_DOUBLE_EQ(std::stod(bf16_r1.at("median")), 1.381e-3);
  EXPECT_DOUBLE_EQ(std::stod(bf16_r1.at("min")), 1.380e-3);
  EXPECT_DOUBLE_EQ(std::stod(bf16_r1.at("max")), 1.382e-3);
  EXPECT_EQ(bf16_r1.at("samples"), "2");
  EXPECT_EQ(bf16_r1.at("loops"), "2");
  EXPECT_EQ(bf16_r1.at("stop_reason"), testing::matmulSample("bf16", {}).measurement.stop_reason);
  EXPECT_EQ(bf16_r1.at("detail"), "false");
  EXPECT_LE(std::stod(bf16_r1.at("median_low")), 1.381e-3);
  EXPECT_GE(std::stod(bf16_r1.at("median_high")), 1.381e-3);
  EXPECT_EQ(bf16_r1.at("checked"), "0");
  // A rank's rate at its own median: 2 * 8192^3 FLOP / 1.381 ms.
  EXPECT_NEAR(std::stod(bf16_r1.at("TFLOP/s")), 2.0 * 8192 * 8192 * 8192 / 1.381e-3 / 1e12, 1e-6);
  EXPECT_EQ(bf16_r1.at("telemetry_readings"), "");  // no sampler in the fixture
  const auto& skipped = rows[4];
  EXPECT_EQ(skipped.at("case"), "tf32 n=8192");
  EXPECT_EQ(skipped.at("skipped"), "true");
  EXPECT_EQ(skipped.at("rank"), "");
  EXPECT_EQ(skipped.at("median"), "");
}

TEST(CsvReporter, FieldsAndRatesFollowTheLeadingColumnsAndTelemetryComesLast) {
  const auto [header, rows] = writeAndRead(testing::stepCases());
  const std::vector<std::string>& leading = CsvReporter::leadingColumns();
  ASSERT_GT(header.size(), leading.size() + 2);
  EXPECT_TRUE(std::equal(leading.begin(), leading.end(), header.begin()));
  // The step's fields in the order its schema declares them, then the rates.
  const std::vector<std::string> fields = {
      "model", "precision",     "mode",       "optimizer",  "optimizer_impl", "input",
      "batch", "flop_per_step", "world_size", "parameters", "device_kind"};
  ASSERT_GT(header.size(), leading.size() + fields.size() + 2);
  EXPECT_TRUE(std::equal(fields.begin(), fields.end(), header.begin() + leading.size()));
  EXPECT_EQ(header[leading.size() + fields.size()], "samples/s");
  EXPECT_EQ(header[leading.size() + fields.size() + 1], "TFLOP/s");
  EXPECT_EQ(rows[0].at("batch"), "64");
  const std::vector<std::string> trailing = CsvReporter::trailingColumns();
  EXPECT_TRUE(std::equal(trailing.begin(), trailing.end(), header.end() - trailing.size()));
  EXPECT_EQ(std::count(header.begin(), header.end(), "sm_clock_mhz_mean"), 1);
  // Parts name their whole; their rows have no rates.
  EXPECT_EQ(rows[0].at("series"), "forward");
  EXPECT_EQ(rows[0].at("part_of"), "step");
  EXPECT_EQ(rows[0].at("samples/s"), "");
}

// NCCL's choice in three columns of its own, empty for a case NCCL told nothing of.
TEST(CsvReporter, NcclsChoiceHasColumnsEmptyWhereNcclToldNothing) {
  std::vector<Sample> rank;
  for (const bool told : {true, false}) {
    Sample s;
    s.suite = "allreduce";
    s.series = "allreduce";
    CollectiveCase fields;
    fields.backend = told ? "nccl" : "mpi";
    fields.collective = "allreduce";
    fields.size = fields.bytes = 1 << 20;
    fields.count = 1 << 18;
    if (told) fields.nccl = AlgorithmChoice{"RING", "SIMPLE", 24};
    s.case_name = fields.backend + " fp32 1048576";
    s.fields = fields.encode();
    s.measurement.clock = "device (CUDA events)";
    s.measurement.loops = 1;
    s.measurement.values = {1e-4, 1e-4};
    rank.push_back(s);
  }
  const auto [header, rows] = writeAndRead(summarizeCases({rank, rank}));
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& row : rows) {
    SCOPED_TRACE(row.at("case"));
    const bool told = row.at("backend") == "nccl";
    EXPECT_EQ(row.at("nccl_algorithm"), told ? "RING" : "");
    EXPECT_EQ(row.at("nccl_protocol"), told ? "SIMPLE" : "");
    EXPECT_EQ(row.at("nccl_channels"), told ? "24" : "");
  }
}

TEST(CsvReporter, TelemetryFillsItsColumns) {
  Sample s = testing::matmulSample("bf16", {1.368e-3, 1.370e-3});
  TelemetrySummary t;
  t.readings = 40;
  t.limit_readings = 40;
  t.ranges["sm_clock_mhz"] = {40, 1455, 1590.5, 1980};
  t.ranges["power_w"] = {40, 650, 688, 701};
  t.clock_limits = {{"power cap", 0.85}, {"idle", 0.05}};
  s.telemetry = t;
  const auto [header, rows] = writeAndRead(summarizeCases({{s}, {s}}));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("telemetry_readings"), "40");
  EXPECT_EQ(rows[0].at("sm_clock_mhz_min"), "1455");
  EXPECT_EQ(rows[0].at("sm_clock_mhz_mean"), "1590.5");
  EXPECT_EQ(rows[0].at("power_w_max"), "701");
  EXPECT_EQ(rows[0].at("temperature_c_mean"), "");
  EXPECT_EQ(rows[0].at("clock_limits"), "idle=0.05;power cap=0.85");
}

TEST(CsvReporter, FieldsWithCommasOrQuotesAreQuoted) {
  EXPECT_EQ(csvField("plain"), "plain");
  EXPECT_EQ(csvField("a,b"), "\"a,b\"");
  EXPECT_EQ(csvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csvField("two\nlines"), "\"two\nlines\"");
}

}  // namespace
}  // namespace splitstep
