// --markdown: the cases as a Markdown table to paste into an issue, each row a case on its slowest
// rank, the table well formed whatever a name holds, and the file told from any other Markdown.
#include "report/MarkdownReporter.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "TempPath.hpp"
#include "cases/MatmulCase.hpp"
#include "report/OutputCatalogue.hpp"
#include "report/OutputFiles.hpp"

namespace splitstep {
namespace {

namespace fs = std::filesystem;

Sample matmul(const std::string& name, double seconds) {
  Sample s;
  s.suite = "matmul";
  s.case_name = name;
  s.series = "mm";
  s.fields = MatmulCase{MatmulDtype::Bf16, {4096, 4096, 4096}, {}}.encode();
  s.rates = {{"TFLOP/s", 2.0 * 4096 * 4096 * 4096, 1e12}};
  s.measurement.values = {seconds, seconds * 1.01, seconds * 0.99, seconds * 1.02, seconds};
  return s;
}

// The cells of a table row: split at each '|' that is not escaped.
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::string current;
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      current += '|';
      ++i;
    } else if (line[i] == '|') {
      out.push_back(current);
      current.clear();
    } else {
      current += line[i];
    }
  }
  return out;
}

std::vector<std::string> tableLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with('|')) lines.push_back(line);
  }
  return lines;
}

using MarkdownFile = testing::TempDirTest;

TEST_F(MarkdownFile, ACaseARowOnItsSlowestRankAndTheTableWellFormed) {
  const fs::path path = dir_ / "cases.md";
  MarkdownReporter reporter(path.string());
  RunContext context;
  context.ranks = {{0, "vm", 0, "cuda:0", "NVIDIA H200"}, {1, "vm", 1, "cuda:1", "NVIDIA H200"}};
  context.command_line = "splitstep --suite matmul";
  reporter.reportContext(context);
  EXPECT_EQ(reporter.written(), "");
  // Rank 1 is the slower; the second case's name holds a '|' that must not end its cell.
  for (const CaseResult& c :
       summarizeCases({{matmul("bf16 n=4096", 1e-3), matmul("a|b", 2e-3)},
                       {matmul("bf16 n=4096", 1.5e-3), matmul("a|b", 2.5e-3)}})) {
    reporter.reportCase(c);
  }
  const std::string during = contents(path);
  EXPECT_TRUE(during.starts_with(std::string(kMarkdownSchema) + "\n")) << during;
  EXPECT_NE(during.find("2 cases; running"), std::string::npos) << during;
  reporter.finalize();
  const std::string text = contents(path);
  EXPECT_NE(text.find("2 cases; completed"), std::string::npos) << text;
  EXPECT_EQ(reporter.written(), "table written to " + path.string() + "\n");

  const std::vector<std::string> lines = tableLines(text);
  ASSERT_EQ(lines.size(), 4u) << text;  // header, separator, two cases
  const std::size_t columns = cells(lines[0]).size();
  for (const std::string& line : lines) EXPECT_EQ(cells(line).size(), columns) << line;
  const std::vector<std::string> first = cells(lines[2]);
  EXPECT_EQ(first[1], " bf16 n=4096 ");
  EXPECT_EQ(first[3], " 2 (r1) ");  // rank 1 is the slowest
  EXPECT_EQ(first[4], " 1.500 ms ") << lines[2];
  EXPECT_EQ(cells(lines[3])[1], " a|b ");
  EXPECT_NE(lines[2].find("TFLOP/s: "), std::string::npos) << lines[2];
}

TEST_F(MarkdownFile, ARunEndedEarlySaysWhyUnderTheRowsItHas) {
  const fs::path path = dir_ / "cases.md";
  MarkdownReporter reporter(path.string());
  RunContext context;
  context.ranks = {{0, "vm", 0, "cuda:0", "NVIDIA H200"}};
  reporter.reportContext(context);
  for (const CaseResult& c : summarizeCases({{matmul("bf16 n=4096", 1e-3)}})) {
    reporter.reportCase(c);
  }
  reporter.endEarly("rank 1 on vm did not arrive at allreduce within 60 s");
  const std::string text = contents(path);
  EXPECT_NE(text.find("1 case; ended early: rank 1 on vm did not arrive"), std::string::npos)
      << text;
  EXPECT_EQ(tableLines(text).size(), 3u) << text;
}

TEST_F(MarkdownFile, OnlySplitstepsOwnTableIsReplaced) {
  const OutputSpec* markdown = findOutput("markdown");
  ASSERT_NE(markdown, nullptr);
  const fs::path own = dir_ / "own.md";
  {
    MarkdownReporter reporter(own.string());
    reporter.reportContext({});
    reporter.finalize();
  }
  EXPECT_TRUE(holdsOnlyOwnOutput(own.string(), markdown->kind));
  const fs::path notes = dir_ / "notes.md";
  std::ofstream(notes) << "# Notes\n\n| a | b |\n|---|---|\n";
  EXPECT_FALSE(holdsOnlyOwnOutput(notes.string(), markdown->kind));
  const auto refusal = outputRefusal({{"--markdown", notes.string(), markdown->kind}}, {}, false);
  ASSERT_TRUE(refusal);
  EXPECT_NE(refusal->find("--markdown"), std::string::npos) << *refusal;
}

}  // namespace
}  // namespace splitstep
