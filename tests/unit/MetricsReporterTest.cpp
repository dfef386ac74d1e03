// --metrics: the verdict in the Prometheus text exposition format, as node-exporter's textfile
// collector reads it, checked line by line against the format's grammar.
#include "report/MetricsReporter.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "TempPath.hpp"
#include "cases/MatmulCase.hpp"
#include "report/OutputCatalogue.hpp"
#include "report/OutputFiles.hpp"

namespace splitstep {
namespace {

namespace fs = std::filesystem;

NodeVerdict h200(const std::string& host, double gemm_tflops) {
  NodeVerdict node;
  node.host = host;
  node.gpu = "NVIDIA H200";
  node.has_reference = true;
  ItemVerdict gemm;
  gemm.item = VerdictItem::GemmBf16;
  gemm.unit = "TFLOP/s";
  gemm.measured = gemm_tflops;
  gemm.expected = 800;
  ItemVerdict hbm;
  hbm.item = VerdictItem::HbmTriad;
  hbm.unit = "GB/s";
  hbm.not_judged = "no membw triad case";
  node.items = {gemm, hbm};
  return node;
}

// What the exposition format allows: comments (# HELP name text, # TYPE name type, or any other
// comment) and samples `name{label="value",...} number`, label values escaped.
struct Parsed {
  std::map<std::string, std::string> types;                 // metric -> type
  std::map<std::string, std::vector<std::string>> samples;  // metric -> "{labels} value"
  std::vector<std::string> errors;
};

Parsed parse(const std::string& text) {
  static const std::regex help(R"(# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) \S.*)");
  static const std::regex type(R"(# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (gauge|counter|untyped))");
  static const std::regex sample(
      R"(([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\[\\"n])*")(,[a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\[\\"n])*")*\})? (-?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?))");
  Parsed parsed;
  std::set<std::string> helped;
  std::istringstream lines(text);
  std::smatch m;
  for (std::string line; std::getline(lines, line);) {
    if (std::regex_match(line, m, help)) {
      helped.insert(m[1]);
    } else if (std::regex_match(line, m, type)) {
      if (!helped.contains(m[1])) parsed.errors.push_back("TYPE before HELP: " + line);
      if (parsed.samples.contains(m[1])) parsed.errors.push_back("TYPE after samples: " + line);
      parsed.types[m[1]] = m[2];
    } else if (line.starts_with("# HELP") || line.starts_with("# TYPE")) {
      parsed.errors.push_back("malformed: " + line);
    } else if (line.starts_with("#")) {
      continue;
    } else if (std::regex_match(line, m, sample)) {
      if (!parsed.types.contains(m[1])) parsed.errors.push_back("sample without TYPE: " + line);
      parsed.samples[m[1]].push_back(line.substr(m[1].length()));
    } else {
      parsed.errors.push_back("not a sample: " + line);
    }
  }
  if (!text.ends_with('\n')) parsed.errors.push_back("the last line has no line feed");
  return parsed;
}

TEST(MetricsReporter, TheVerdictInTheExpositionFormat) {
  const std::string text = metricsText({h200("vm", 760), h200("slow", 400)}, true);
  EXPECT_TRUE(text.starts_with(std::string(kMetricsSchema) + ": "));
  const Parsed parsed = parse(text);
  EXPECT_TRUE(parsed.errors.empty()) << ::testing::PrintToString(parsed.errors) << "\n" << text;
  for (const auto& [name, type] : parsed.types) EXPECT_EQ(type, "gauge") << name;
  using Lines = std::vector<std::string>;
  EXPECT_EQ(parsed.samples.at("splitstep_verdict_healthy"),
            (Lines{R"({node="vm",gpu="NVIDIA H200"} 1)", R"({node="slow",gpu="NVIDIA H200"} 0)"}));
  EXPECT_EQ(parsed.samples.at("splitstep_verdict_judged"),
            (Lines{R"({node="vm",gpu="NVIDIA H200",item="gemm-bf16"} 1)",
                   R"({node="vm",gpu="NVIDIA H200",item="hbm-triad"} 0)",
                   R"({node="slow",gpu="NVIDIA H200",item="gemm-bf16"} 1)",
                   R"({node="slow",gpu="NVIDIA H200",item="hbm-triad"} 0)"}));
  EXPECT_EQ(parsed.samples.at("splitstep_verdict_ratio"),
            (Lines{R"({node="vm",gpu="NVIDIA H200",item="gemm-bf16"} 0.95)",
                   R"({node="slow",gpu="NVIDIA H200",item="gemm-bf16"} 0.5)"}));
  EXPECT_EQ(parsed.samples.at("splitstep_verdict_below_expected"),
            (Lines{R"({node="vm",gpu="NVIDIA H200",item="gemm-bf16"} 0)",
                   R"({node="slow",gpu="NVIDIA H200",item="gemm-bf16"} 1)"}));
  // In base units: FLOP/s, not TFLOP/s.
  EXPECT_EQ(parsed.samples.at("splitstep_verdict_measured_flop_per_second").front(),
            R"({node="vm",gpu="NVIDIA H200",item="gemm-bf16"} 760000000000000)");
  EXPECT_EQ(parsed.samples.at("splitstep_verdict_expected_flop_per_second").front(),
            R"({node="vm",gpu="NVIDIA H200",item="gemm-bf16"} 800000000000000)");
  // Each family's help says which of the two it is.
  EXPECT_NE(text.find("# HELP splitstep_verdict_measured_flop_per_second the node's measured"),
            std::string::npos);
  EXPECT_NE(text.find("# HELP splitstep_verdict_expected_flop_per_second the figure a healthy"),
            std::string::npos);
  EXPECT_EQ(parsed.samples.at("splitstep_run_complete"), (Lines{" 1"}));
  EXPECT_EQ(parse(metricsText({}, false)).samples.at("splitstep_run_complete"), (Lines{" 0"}));
}

TEST(MetricsReporter, LabelValuesAreEscaped) {
  const std::string text = metricsText({h200("a\"b\\c\nd", 760)}, true);
  const Parsed parsed = parse(text);
  EXPECT_TRUE(parsed.errors.empty()) << ::testing::PrintToString(parsed.errors);
  EXPECT_NE(text.find(R"(node="a\"b\\c\nd")"), std::string::npos) << text;
}

using MetricsFile = testing::TempDirTest;

TEST_F(MetricsFile, WrittenWithEveryBatchsVerdictAndCompleteAtTheEnd) {
  const fs::path path = dir_ / "splitstep.prom";
  MetricsReporter reporter(path.string());
  RunContext context;
  context.ranks = {{0, "vm", 0, "cuda:0", "NVIDIA H200"}};
  reporter.reportContext(context);
  Sample s;
  s.suite = "matmul";
  s.case_name = "bf16 n=8192";
  s.series = "mm";
  s.fields = MatmulCase{MatmulDtype::Bf16, {8192, 8192, 8192}, {}}.encode();
  s.rates = {{"TFLOP/s", 2.0 * 8192 * 8192 * 8192, 1e12}};
  s.measurement.values = {2.0 * 8192 * 8192 * 8192 / 760e12};
  reporter.reportVerdict(judgeNodes(summarizeCases({{s}}), context.ranks));
  const std::string during = contents(path);
  EXPECT_NE(during.find("\nsplitstep_run_complete 0\n"), std::string::npos) << during;
  EXPECT_NE(during.find(R"(splitstep_verdict_healthy{node="vm",gpu="NVIDIA H200"} 1)"),
            std::string::npos)
      << during;
  reporter.finalize();
  const std::string after = contents(path);
  EXPECT_NE(after.find("\nsplitstep_run_complete 1\n"), std::string::npos) << after;
  EXPECT_TRUE(parse(after).errors.empty());
  // Only the file itself is left: the temporary it was written through is renamed over it.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(MetricsFile, OnlySplitstepsOwnMetricsFileIsReplacedAndItNeedsAFileOfItsOwn) {
  const fs::path own = dir_ / "own.prom";
  std::ofstream(own) << metricsText({}, true);
  EXPECT_TRUE(holdsOnlyOwnOutput(own.string(), findOutput("metrics")->kind));
  const fs::path other = dir_ / "other.prom";
  std::ofstream(other) << "# HELP node_load1 1m load average.\nnode_load1 0.5\n";
  EXPECT_FALSE(holdsOnlyOwnOutput(other.string(), findOutput("metrics")->kind));
  const auto refusal =
      outputRefusal({{"--metrics", other.string(), findOutput("metrics")->kind}}, {}, false);
  ASSERT_TRUE(refusal);
  EXPECT_NE(refusal->find("--metrics"), std::string::npos) << *refusal;
  EXPECT_FALSE(
      outputRefusal({{"--metrics", other.string(), findOutput("metrics")->kind}}, {}, true));
  const auto same = outputRefusal({{"--json", own.string(), findOutput("json")->kind},
                                   {"--metrics", own.string(), findOutput("metrics")->kind}},
                                  {}, true);
  ASSERT_TRUE(same);
  EXPECT_NE(same->find("is also the --json file"), std::string::npos) << *same;
  EXPECT_EQ(*outputRefusal({{"--metrics", "", findOutput("metrics")->kind}}, {}, false),
            "--metrics: '' is empty");
}

}  // namespace
}  // namespace splitstep
