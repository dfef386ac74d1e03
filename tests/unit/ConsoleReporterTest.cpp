#include "report/ConsoleReporter.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include "ReportFixtures.hpp"
#include "cases/CollectiveCase.hpp"
#include "comm/Collective.hpp"
#include "report/ConsoleNcclTests.hpp"
#include "report/ConsoleText.hpp"

namespace splitstep {
namespace {

// Today's full report: the tests below pin what --verbose brings back.
constexpr ConsoleStyle kVerbose{.verbose = true};

std::string render(const std::vector<CaseResult>& cases,
                   const std::vector<DerivedResult>& derived = {},
                   const RunContext& context = testing::twoRankContext()) {
  std::ostringstream out;
  ConsoleReporter reporter(out, kVerbose);
  reporter.reportContext(context);
  for (const CaseResult& c : cases) reporter.reportCase(c);
  for (const DerivedResult& d : derived) reporter.reportDerived(d);
  reporter.finalize();
  return out.str();
}

std::string renderStyled(const ConsoleStyle& style, const std::vector<CaseResult>& cases,
                         const std::vector<DerivedResult>& derived = {},
                         const RunContext& context = testing::twoRankContext());

bool hasLine(const std::string& text, const std::string& pattern) {
  return std::regex_search(text, std::regex(pattern, std::regex::multiline));
}

TEST(ConsoleReporter, HeaderNamesVersionsRanksAndTheTimingPlan) {
  const std::string text = render(testing::matmulCases());
  EXPECT_TRUE(hasLine(text, "^splitstep 0\\.1\\.0 \\(abc123\\) \\| 2 rank\\(s\\) on 1 node\\(s\\)"))
      << text;
  EXPECT_TRUE(
      hasLine(text, "LibTorch 2\\.11\\.0 \\| CUDA 13\\.0 \\(driver 13\\.0\\) \\| NCCL 2\\.28\\.3"))
      << text;
  EXPECT_TRUE(hasLine(text,
                      "^  rank 1: nodeA cuda:1 NVIDIA H200 \\(PCI 0000:19:00\\.0, "
                      "GPU-11111111-1111-1111-1111-111111111111\\)$"))
      << text;
  // Known only once the run is over, so printed after the last table rather than in the header.
  EXPECT_TRUE(hasLine(text, "^wall time: start-up 2\\.500 s, matmul 12\\.25 s, gather 125\\.0 ms$"))
      << text;
  EXPECT_GT(text.find("wall time:"), text.find("per-rank median")) << text;
  EXPECT_TRUE(hasLine(text, "a timed cold start, 1 warm-up\\(s\\), then 2 samples of 1 loops\\."))
      << text;
  EXPECT_TRUE(hasLine(text, "^host: how long the host took to queue one loop")) << text;
  EXPECT_TRUE(hasLine(text,
                      "^noise: std/mean of a rank's samples, the workload's spread; ±ci: how far "
                      "the 95% confidence interval of a rank's median reaches from it"))
      << text;
}

TEST(ConsoleReporter, HeaderStatesTheStoppingRule) {
  RunContext context = testing::twoRankContext();
  context.measure = MeasureSettings{};
  context.measure.ci_target = 0.01;
  std::ostringstream out;
  ConsoleReporter reporter(out, kVerbose);
  reporter.reportContext(context);
  EXPECT_TRUE(hasLine(out.str(),
                      "then samples of >= 2\\.000 ms until the median's 95% interval is within "
                      "±1%, std/mean <= 0\\.5% or the noise is stable; >= 20 samples \\(500\\.0 ms "
                      "for interval or noise\\), <= 15\\.00 s\\.$"))
      << out.str();
  // Without a floor of timed work, the samples alone.
  context.measure.min_time = 0;
  out.str("");
  reporter.reportContext(context);
  EXPECT_TRUE(hasLine(out.str(), "stable; >= 20 samples, <= 15\\.00 s\\.$")) << out.str();
  // Compact: two lines.
  out.str("");
  ConsoleReporter compact(out, {});
  context.measure = MeasureSettings{};
  compact.reportContext(context);
  const auto first = out.str().find("Each case:");
  ASSERT_NE(first, std::string::npos);
  const std::string rest = out.str().substr(first);
  EXPECT_EQ(std::count(rest.begin(), rest.end(), '\n'), 2) << out.str();
}

TEST(ConsoleReporter, HeaderNamesTheJobTheGpuLinksAndTheLaunchEnvironment) {
  RunContext context = testing::twoRankContext();
  const std::string plain = render(testing::matmulCases(), {}, context);
  EXPECT_FALSE(hasLine(plain, "^  job: ")) << plain;
  EXPECT_TRUE(hasLine(plain, "^  GPU links on nodeA: NVLink between ranks 0 and 1$")) << plain;
  EXPECT_TRUE(hasLine(plain,
                      "^  environment \\(rank 0\\): CUDA_VISIBLE_DEVICES=1,0 NCCL_DEBUG=WARN and 1 "
                      "OMPI_\\* \\(in the JSON\\)$"))
      << plain;
  EXPECT_FALSE(hasLine(plain, "differ from rank 0's")) << plain;
  // Compact: the variables that tune NCCL, the rest counted (a container's NCCL_VERSION too).
  context.environment.emplace_back("NCCL_VERSION", "2.28.3-1");
  const std::string compact = renderStyled({}, testing::matmulCases(), {}, context);
  EXPECT_TRUE(hasLine(compact,
                      "^  environment \\(rank 0\\): NCCL_DEBUG=WARN and 3 more NCCL_\\*, UCX_\\*, "
                      "OMPI_\\*, CUDA_\\* \\(in the JSON\\)$"))
      << compact;
  context.environment = {{"NCCL_VERSION", "2.28.3-1"}};
  EXPECT_FALSE(hasLine(renderStyled({}, testing::matmulCases(), {}, context), "environment"));
  context.environment = testing::twoRankContext().environment;

  context.job = {"slurm", "4242", "node[1-2]"};
  context.environment_differs = {1};
  context.environment.clear();
  const std::string text = render(testing::matmulCases(), {}, context);
  EXPECT_TRUE(hasLine(text, "^  job: slurm 4242 on node\\[1-2\\]$")) << text;
  EXPECT_TRUE(hasLine(text,
                      "^  environment \\(rank 0\\): no NCCL_\\*, UCX_\\*, OMPI_\\* or CUDA_\\* "
                      "variables$"))
      << text;
  EXPECT_TRUE(
      hasLine(text,
              "^  note: the NCCL_\\*, UCX_\\*, OMPI_\\* or CUDA_\\* variables of rank\\(s\\) 1 "
              "differ from rank 0's$"))
      << text;
}

TEST(ConsoleReporter, RanksOnSeveralNodesAreSummarisedByNode) {
  const std::string one_node = render(testing::matmulCases());
  EXPECT_FALSE(hasLine(one_node, "by node")) << one_node;

  const std::string text = render(testing::matmulCases(), {}, testing::twoNodeContext());
  EXPECT_TRUE(hasLine(text, "^splitstep .* \\| 2 rank\\(s\\) on 2 node\\(s\\)")) << text;
  EXPECT_FALSE(hasLine(text, "^  GPU links")) << text;  // no two ranks share a node
  EXPECT_TRUE(hasLine(text, "^  by node: min / median / max of the medians of each node's ranks$"))
      << text;
  // bf16: rank 0 (nodeA) 1.369 ms, rank 1 (nodeB) 1.381 ms; the skipped tf32 case has no rows.
  EXPECT_TRUE(hasLine(text, "^  bf16 n=8192 +nodeA +0 +1\\.369 ms +1\\.369 ms +1\\.369 ms$"))
      << text;
  EXPECT_TRUE(hasLine(text, "^ +nodeB +1 +1\\.381 ms +1\\.381 ms +1\\.381 ms +slowest node$"))
      << text;
  EXPECT_FALSE(hasLine(text, "^  tf32 n=8192 +node")) << text;
}

TEST(ConsoleReporter, CaseRowShowsSpreadSlowestRankRateSpeedupNoiseAndPerRankMedians) {
  const std::string text = render(testing::matmulCases());
  EXPECT_TRUE(hasLine(text, "^matmul \\[device \\(CUDA events\\)\\]$")) << text;
  EXPECT_TRUE(hasLine(
      text,
      "^  case +min +median +max +slowest +TFLOP/s +vs fp32 +noise +±ci +stop +per-rank median$"))
      << text;
  // bf16 medians 1.369 ms (rank 0) and 1.381 ms (rank 1): across-rank median 1.375 ms;
  // fp32's is 21.55 ms, so bf16 is 21.55 / 1.375 = 15.67x faster.
  EXPECT_TRUE(
      hasLine(text,
              "^  bf16 n=8192 +1\\.369 ms +1\\.375 ms +1\\.381 ms +r1 nodeA cuda:1 +799\\.6 "
              "+15\\.67x +0\\.10% +- +noise-target +r0 1\\.369 ms  r1 1\\.381 ms$"))
      << text;
  EXPECT_TRUE(hasLine(text, "^  fp32 n=8192 .* 1\\.00x ")) << text;
}

TEST(ConsoleReporter, TimeitLinesDescribeTheSlowestRanksSamples) {
  const std::string text = render(testing::matmulCases());
  EXPECT_TRUE(hasLine(text, "^  per loop, on the slowest rank \\(back-to-back\\):$")) << text;
  // Rank 1's bf16 samples: 1.380 and 1.382 ms, mean 1.381 ms, std 1.414 us.
  EXPECT_TRUE(
      hasLine(text,
              "^  bf16 n=8192  1\\.381 ms ± 1\\.414 us per loop \\(mean ± std\\. dev\\. of 2 "
              "runs, 2 loops each\\)$"))
      << text;
  EXPECT_TRUE(
      hasLine(text,
              "^ +median 1\\.381 ms \\(50% CI 1\\.380 ms to 1\\.382 ms\\), IQR 1\\.000 us, min "
              "1\\.380 ms; cold start 45\\.00 ms; host 12\\.00 us per loop$"))
      << text;
  EXPECT_TRUE(
      hasLine(text,
              "^ +stopped: noise target met \\(std/mean 0\\.10%\\); wall 560\\.0 ms: cold "
              "start 45\\.00 ms, warm-up 5\\.000 ms, prepare 10\\.00 ms, samples 500\\.0 ms$"))
      << text;
}

TEST(ConsoleReporter, SkippedCasesAppearAsNotes) {
  const std::string text = render(testing::matmulCases());
  EXPECT_TRUE(hasLine(text, "^  note \\(tf32 n=8192\\): skipped: for a test$")) << text;
  EXPECT_FALSE(hasLine(text, "^  tf32 n=8192 ")) << text;
}

TEST(ConsoleReporter, UncertaintyAndStopRulesStandBesideTheNoise) {
  // Rank 0's 95% interval of its median 1.00 ms: the 2nd and 9th of 10 values, 0.98-1.02 ms,
  // 2% from it; rank 1's reaches 0.5%. The column shows the larger.
  Sample r0 = testing::matmulSample(
      "bf16", {0.97e-3, 0.98e-3, 0.99e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1.01e-3, 1.02e-3, 1.03e-3});
  r0.measurement.noise = 0.018;
  r0.measurement.stop_rule = StopRule::NoiseStable;
  Sample r1 = testing::matmulSample(
      "bf16", {0.99e-3, 0.995e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1.005e-3, 1.01e-3});
  r1.measurement.noise = 0.005;
  r1.measurement.stop_rule = StopRule::Converged;
  const std::string text = render(summarizeCases({{r0}, {r1}}));
  EXPECT_TRUE(hasLine(text, "^  bf16 n=8192 .* 1\\.80% +2\\.00% +noise-stable/converged +r0 "))
      << text;
}

TEST(ConsoleReporter, TimeLimitsAndWarningsAreShown) {
  Sample slow = testing::matmulSample("bf16", {1e-3, 5e-3});
  slow.measurement.noise = 0.2;
  slow.measurement.noise_target_met = false;
  slow.measurement.stop_rule = StopRule::TimeLimit;
  slow.measurement.stop_reason = "max-time reached";
  slow.measurement.clock_at_end = SmClock{1200, 1980, "power cap"};
  const std::string text = render(summarizeCases({{slow}, {slow}}));
  EXPECT_TRUE(hasLine(text, "^  bf16 n=8192 .* 20\\.00% +- +max-time +r0 ")) << text;
  EXPECT_TRUE(hasLine(text, "^ +stopped: max-time reached; wall ")) << text;
  EXPECT_TRUE(hasLine(text,
                      "^  warning: bf16 n=8192: SM clock 1200 MHz on rank\\(s\\) 0, 1, below 85% "
                      "of the 1980 MHz maximum \\(held down by power cap\\)$"))
      << text;
  EXPECT_TRUE(hasLine(text,
                      "^  warning: bf16 n=8192: the slowest sample took up to 5\\.0x the fastest "
                      "on rank\\(s\\) 0, 1"))
      << text;
}

TEST(ConsoleReporter, PartsAreIndentedUnderTheirWholeWithTheirShare) {
  const std::string text = render(testing::stepCases());
  EXPECT_TRUE(hasLine(text,
                      "^  case +min +median +max +share +slowest +samples/s +TFLOP/s +noise "
                      "+±ci +stop +per-rank median$"))
      << text;
  // The whole: medians 12.00 and 12.20 ms; 64 samples and 3.03e12 FLOP per 12.1 ms.
  EXPECT_TRUE(hasLine(text,
                      "^  mlp bf16 overlap +12\\.00 ms +12\\.10 ms +12\\.20 ms +- +r1 nodeA "
                      "cuda:1 +5289\\.3 +250\\.4 +1\\.00% +- +noise-target +r0 12\\.00 ms  r1 "
                      "12\\.20 ms$"))
      << text;
  // Parts, under the whole although reported before it: 3 / 12.1, 5.4 / 12.1, 5 / 12.1.
  EXPECT_TRUE(hasLine(text,
                      "^    forward +3\\.000 ms +3\\.000 ms +3\\.000 ms +24\\.8% +r0 nodeA cuda:0 "
                      "+- +- +1\\.00% +- +noise-target +r0 3\\.000 ms  r1 3\\.000 ms$"))
      << text;
  EXPECT_TRUE(hasLine(text, "^    backward +5\\.400 ms .* 44\\.6% ")) << text;
  EXPECT_TRUE(hasLine(text, "^    comm +5\\.000 ms .* 41\\.3% ")) << text;
  const auto whole = text.find("  mlp bf16 overlap ");
  EXPECT_LT(whole, text.find("    forward "));
  EXPECT_LT(text.find("    forward "), text.find("    backward "));
  EXPECT_LT(text.find("    backward "), text.find("    comm "));
}

TEST(ConsoleReporter, TimeitLinesOnlyForWholes) {
  const std::string text = render(testing::stepCases());
  EXPECT_TRUE(hasLine(text,
                      "^  mlp bf16 overlap  12\\.20 ms ± .* per loop \\(mean ± std\\. dev\\. "
                      "of 2 runs, 1 loop each\\)$"))
      << text;
  EXPECT_FALSE(hasLine(text, "forward.* per loop")) << text;
  EXPECT_FALSE(hasLine(text, "comm.* per loop")) << text;
}

TEST(ConsoleReporter, TablesWithoutPartsHaveNoShareColumn) {
  EXPECT_FALSE(hasLine(render(testing::matmulCases()), " share "));
}

TEST(ConsoleReporter, ANoteOfACaseAndItsPartsNamesTheCaseOnce) {
  Sample whole = testing::stepSample("mlp", "fp16", "none", "step", {});
  whole.notes = {"skipped: fp16 needs a GPU"};
  Sample part = testing::stepSample("mlp", "fp16", "none", "forward", {});
  part.notes = whole.notes;
  auto cases = testing::stepCases();
  for (const CaseResult& c : summarizeCases({{whole, part}, {whole, part}})) cases.push_back(c);
  const std::string text = render(cases);
  EXPECT_TRUE(hasLine(text, "^  note \\(mlp fp16 none\\): skipped: fp16 needs a GPU$")) << text;
}

TEST(ConsoleReporter, DerivedFiguresFollowTheSuiteTablesWithUnitsPerRankValuesAndDiagnosis) {
  auto cases = testing::matmulCases();
  for (const CaseResult& c : testing::stepCases()) cases.push_back(c);
  const std::string text = render(cases, {testing::stepDerived()});
  EXPECT_TRUE(hasLine(text, "^step mlp bf16: where the step time goes$")) << text;
  EXPECT_TRUE(hasLine(text,
                      "^  T_c, no gradient sync \\(none\\) +10\\.10 ms  r0 10\\.00 ms  r1 "
                      "10\\.20 ms$"))
      << text;
  EXPECT_TRUE(hasLine(text, "^  overlap, 1 - exposed / T_comm \\(overlap\\) +60\\.0%$")) << text;
  EXPECT_TRUE(hasLine(text, "^  samples/s per GPU \\(overlap\\) +5289\\.3 samples/s$")) << text;
  EXPECT_TRUE(hasLine(text,
                      "^  model TFLOP/s at T_c \\(none\\) +300\\.0 TFLOP/s  run matmul with "
                      "--matmul-dtypes bf16 in the same job for the compute ceiling$"))
      << text;
  EXPECT_TRUE(hasLine(text,
                      "^  slowest rank \\(overlap step\\) +r1  median 1\\.7% above the "
                      "fastest rank's$"))
      << text;
  EXPECT_TRUE(hasLine(text, "^  diagnosis:$")) << text;
  EXPECT_TRUE(hasLine(text,
                      "^    no bottleneck rule fired: the largest phase is backward at "
                      "44\\.6% of the step \\(overlap\\)$"))
      << text;
  // After the matmul table and after the whole step table, its timeit lines included.
  const auto derived = text.find("step mlp bf16: where");
  EXPECT_LT(text.find("\nmatmul ["), text.find("\nstep ["));
  EXPECT_LT(text.find("\nstep ["), derived);
  EXPECT_LT(text.find("  mlp bf16 overlap  12.20 ms ±"), derived);
  EXPECT_EQ(text.find("assumes:"), std::string::npos);  // the step analysis assumes nothing
}

TEST(ConsoleReporter, DerivedSizesAreBytesAndAssumptionsComeBeforeTheDiagnosis) {
  DerivedResult d;
  d.suite = "allreduce";
  d.subject = "nccl fp32";
  d.title = "latency-bandwidth model";
  d.figures = {
      {"collective/fit/allreduce/nccl/fp32/out/valid_from", "holds from", "B", 1048576, {}, ""}};
  d.assumptions = {"nodes of 8 ranks"};
  d.findings = {"a finding"};
  const std::string text = render({}, {d});
  EXPECT_TRUE(hasLine(text, "^allreduce nccl fp32: latency-bandwidth model$")) << text;
  EXPECT_TRUE(hasLine(text, "^  holds from +1 MiB$")) << text;
  EXPECT_TRUE(hasLine(text, "^    nodes of 8 ranks$")) << text;
  EXPECT_LT(text.find("  assumes:\n"), text.find("  diagnosis:\n"));
}

TEST(ConsoleReporter, EachCaseIsPrintedAsSoonAsItIsReported) {
  std::ostringstream out;
  ConsoleReporter reporter(out, kVerbose);
  reporter.reportContext(testing::twoRankContext());
  const std::vector<CaseResult> cases = testing::matmulCases();
  reporter.reportCase(cases[0]);
  // Before the suite's table: its header, and the case's %timeit lines.
  EXPECT_TRUE(hasLine(out.str(), "^matmul \\[device \\(CUDA events\\)\\]$")) << out.str();
  EXPECT_TRUE(hasLine(out.str(), "^  fp32 n=8192  21\\.60 ms ± .* per loop")) << out.str();
  EXPECT_FALSE(hasLine(out.str(), "^  case +min +median")) << out.str();
  reporter.reportCase(cases[2]);  // skipped: its reason at once
  EXPECT_TRUE(hasLine(out.str(), "^  tf32 n=8192: skipped: for a test$")) << out.str();
  reporter.finalize();
  EXPECT_TRUE(hasLine(out.str(), "^  case +min +median")) << out.str();
}

TEST(ConsoleReporter, ARunThatEndsEarlyPrintsTheTableSoFarAndWhy) {
  std::ostringstream out;
  ConsoleReporter reporter(out, kVerbose);
  reporter.reportContext(testing::twoRankContext());
  reporter.reportCase(testing::matmulCases()[1]);
  reporter.endEarly("rank 1 (nodeA, pid 42, stopped) did not answer");
  const std::string text = out.str();
  EXPECT_TRUE(hasLine(text, "^  bf16 n=8192 .* r1 nodeA cuda:1 ")) << text;
  EXPECT_TRUE(hasLine(text,
                      "^The run ended early: rank 1 \\(nodeA, pid 42, stopped\\) did not "
                      "answer$"))
      << text;
}

TEST(ConsoleReporter, NoHostTimeIsPrintedWhereNoneWasTaken) {
  Sample step = testing::stepSample("mlp", "bf16", "none", "step", {1e-3, 1e-3});
  step.measurement.host_values.clear();
  const std::string text = render(summarizeCases({{step}}));
  EXPECT_TRUE(hasLine(text, "^ +median 1\\.000 ms \\(.* CI .*\\), IQR .*; cold start 100\\.0 ms$"))
      << text;
  EXPECT_FALSE(hasLine(text, "host 0")) << text;
}

}  // namespace
}  // namespace splitstep

namespace splitstep {
namespace {

std::string renderStyled(const ConsoleStyle& style, const std::vector<CaseResult>& cases,
                         const std::vector<DerivedResult>& derived, const RunContext& context) {
  std::ostringstream out;
  ConsoleReporter reporter(out, style);
  reporter.reportContext(context);
  for (const CaseResult& c : cases) reporter.reportCase(c);
  for (const DerivedResult& d : derived) reporter.reportDerived(d);
  reporter.finalize();
  return out.str();
}

TEST(ConsoleReporter, ACaseStoppedOnTheSweepsBudgetSaysSo) {
  Sample budgeted = testing::matmulSample("bf16", {1e-3, 1.1e-3});
  budgeted.measurement.stop_rule = StopRule::SweepTime;
  budgeted.measurement.stop_reason = "sweep-time share reached (median ±4.00% at 95%)";
  Sample converged = testing::matmulSample("fp16", {1e-3, 1e-3});
  converged.measurement.stop_rule = StopRule::Converged;
  const std::string compact = renderStyled({}, summarizeCases({{budgeted, converged}}));
  EXPECT_TRUE(hasLine(compact,
                      "^  stopped on its share of --sweep-time, short of --ci-target: "
                      "bf16 n=8192$"))
      << compact;
  const std::string verbose = render(summarizeCases({{budgeted}}));
  EXPECT_TRUE(hasLine(verbose, "^  bf16 n=8192 .* sweep-time +r0 ")) << verbose;
  EXPECT_TRUE(hasLine(verbose, "^ +stopped: sweep-time share reached \\(median ±4\\.00% at 95%\\)"))
      << verbose;
  // Without such a case, no such line.
  EXPECT_FALSE(hasLine(renderStyled({}, summarizeCases({{converged}})), "--sweep-time"));
}

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Columns as a terminal counts them: UTF-8 continuation bytes take none.
std::size_t columns(const std::string& line) {
  return static_cast<std::size_t>(std::count_if(line.begin(), line.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

// An allreduce case of `bytes` on both ranks: 2 samples of `seconds`, every element checked.
Sample allreduceSample(std::uint64_t bytes, Placement placement, double seconds) {
  Sample s;
  s.suite = "allreduce";
  CollectiveCase fields;
  fields.backend = "nccl";
  fields.collective = "allreduce";
  fields.placement = placement;
  fields.size = bytes;
  fields.bytes = bytes;
  fields.count = bytes / 4;
  s.case_name = fmt::format("nccl fp32 {}{}", bytes, fields.inPlace() ? " in place" : "");
  s.series = "allreduce";
  s.fields = fields.encode();
  // Two ranks: busbw = algbw x 2(n-1)/n = algbw.
  s.rates = {{"algbw GB/s", static_cast<double>(bytes), 1e9},
             {"busbw GB/s", static_cast<double>(bytes), 1e9}};
  s.checks = {{"pattern", bytes / 4, 0}};
  s.measurement.clock = "device (CUDA events)";
  s.measurement.method = "back-to-back";
  s.measurement.loops = 1;
  s.measurement.values = {seconds, seconds};
  return s;
}

std::vector<CaseResult> allreduceCases() {
  std::vector<Sample> rank;
  for (const auto& [bytes, seconds] :
       {std::pair{std::uint64_t{8}, 10.97e-6}, std::pair{std::uint64_t{33554432}, 141.2e-6}}) {
    rank.push_back(allreduceSample(bytes, Placement::OutOfPlace, seconds));
    rank.push_back(allreduceSample(bytes, Placement::InPlace, seconds * 2));
  }
  return summarizeCases({rank, rank});
}

TEST(CompactConsole, OneLinePerCaseWithTheColumnsInTheirOrderAndNoTimeitLines) {
  const std::string text = renderStyled({}, testing::matmulCases());
  EXPECT_TRUE(hasLine(text, "^  case +time \\(ms\\) +TFLOP/s +vs fp32 +±ci +slowest +noise$"))
      << text;
  EXPECT_TRUE(
      hasLine(text, "^  fp32 n=8192 +[0-9.]+ +[0-9.]+ +1\\.00x +[-0-9.%]+ +r[01] +[0-9.]+%$"))
      << text;
  EXPECT_FALSE(hasLine(text, "per loop")) << text;
  EXPECT_FALSE(hasLine(text, "^  rank 1:")) << text;
  EXPECT_TRUE(hasLine(text, "^  ranks 0-1 on nodeA: NVIDIA H200$")) << text;
  EXPECT_TRUE(hasLine(text, "^  time: median of the ranks' medians; ±ci:")) << text;
  EXPECT_TRUE(hasLine(text, "gather 125\\.0 ms$")) << text;
  for (const std::string& line : linesOf(text)) EXPECT_LE(columns(line), kConsoleWidth) << line;
}

// A run of one rank: its context, and the compact console of `cases` reported in order.
std::string renderOneRank(const std::vector<CaseResult>& cases,
                          const std::vector<DerivedResult>& derived = {},
                          const ConsoleStyle& style = {}) {
  RunContext context = testing::twoRankContext();
  context.ranks.resize(1);
  context.gpu_links.clear();
  std::vector<std::pair<std::string, double>> wall = {{"matmul", 1.0}};
  for (const CaseResult& c : cases) {
    if (std::none_of(wall.begin(), wall.end(),
                     [&c](const auto& w) { return w.first == c.suite; })) {
      wall.emplace_back(c.suite, 0.5);
    }
  }
  context.wall.suites = wall;
  return renderStyled(style, cases, derived, context);
}

// `sample` as another collective's: the same case under another suite.
Sample asCollective(Sample sample, const std::string& collective) {
  auto fields = CollectiveCase::decode(sample.fields);
  fields->collective = collective;
  sample.fields = fields->encode();
  sample.suite = collective;
  sample.series = collective;
  return sample;
}

TEST(CompactConsole, OneRanksCollectivesAreAFewLinesOfTimesAndChecks) {
  std::vector<Sample> rank;
  for (const std::string collective : {"allreduce", "broadcast", "alltoall"}) {
    for (const auto& [bytes, seconds] :
         {std::pair{std::uint64_t{8}, 5e-6}, std::pair{std::uint64_t{1} << 30, 500e-6}}) {
      const double slower = collective == "alltoall" ? 1.2 : 1.0;
      rank.push_back(asCollective(allreduceSample(bytes, Placement::OutOfPlace, seconds * slower),
                                  collective));
    }
  }
  rank.back().checks = {{"pattern", 4, 1}};  // alltoall 1 GiB: one element wrong
  const std::vector<CaseResult> cases = summarizeCases({rank});
  const std::string text = renderOneRank(cases);
  // Their names are in --verbose's tables.
  EXPECT_TRUE(hasLine(text,
                      "^3 collectives on one rank \\[device \\(CUDA events\\)\\]: no link crossed, "
                      "so no bandwidth to judge \\(--verbose: a table each\\)$"))
      << text;
  EXPECT_TRUE(hasLine(text,
                      "^  6 cases, wrong: alltoall nccl fp32 1073741824 \\(1 wrong\\); time by "
                      "size, fastest to slowest collective: 8 B 5\\.000 us to$"))
      << text;
  EXPECT_TRUE(hasLine(text, "^    6\\.000 us, 1 GiB 500\\.0 us to 600\\.0 us$")) << text;
  EXPECT_FALSE(hasLine(text, "busbw")) << text;
  EXPECT_FALSE(hasLine(text, "^allreduce \\[")) << text;
  // Their wall time is one entry.
  EXPECT_TRUE(hasLine(text,
                      "^wall time: start-up 2\\.500 s, matmul 1\\.000 s, 3 collectives "
                      "1\\.500 s, gather 125\\.0 ms$"))
      << text;
  // --verbose, and a run of two ranks, have a table each.
  EXPECT_TRUE(hasLine(renderOneRank(cases, {}, kVerbose), "^alltoall \\[device")) << text;
  // One collective alone keeps its table, without a slowest column.
  const std::string alone = renderOneRank(summarizeCases({{rank[0], rank[1]}}));
  EXPECT_TRUE(hasLine(alone, "^allreduce \\[device \\(CUDA events\\)\\]$")) << alone;
  EXPECT_TRUE(hasLine(alone,
                      "^  case +size \\(B\\) +count +type +time \\(us\\) +algbw GB/s +busbw GB/s "
                      "+#wrong +±ci +noise$"))
      << alone;
  EXPECT_TRUE(hasLine(alone,
                      "^  time: the median; ±ci: reach of its 95% interval; noise: "
                      "std/mean$"))
      << alone;
}

// Three collectives on two ranks at `sizes` bytes each, alltoall's largest with one element
// wrong on each rank.
std::vector<CaseResult> threeCollectives(const std::vector<std::uint64_t>& sizes) {
  std::vector<Sample> rank;
  for (const std::string collective : {"allreduce", "broadcast", "alltoall"}) {
    for (std::uint64_t bytes : sizes) {
      const double slower = collective == "alltoall" ? 1.2 : 1.0;
      const double seconds = 5e-6 + static_cast<double>(bytes) * 1e-12 * slower;
      rank.push_back(
          asCollective(allreduceSample(bytes, Placement::OutOfPlace, seconds), collective));
    }
  }
  rank.back().checks = {{"pattern", 4, 1}};
  return summarizeCases({rank, rank});
}

TEST(CompactConsole, SeveralCollectivesOnSeveralRanksShareOneTableWhereTheirSizesAreFew) {
  const std::string text = renderStyled({}, threeCollectives({8, 1 << 20, 1 << 30}));
  EXPECT_TRUE(hasLine(text,
                      "^3 collectives over 2 ranks \\[device \\(CUDA events\\)\\] "
                      "\\(--verbose: a table each\\)$"))
      << text;
  EXPECT_TRUE(hasLine(text, "^  collective +8 B +1 MiB +1 GiB +busbw GB/s +±ci +noise$")) << text;
  // A row per collective: the time at each size, the bus bandwidth at the largest.
  EXPECT_TRUE(hasLine(
      text, "^  allreduce nccl out fp32 +5\\.000 us +6\\.049 us +1\\.079 ms +995\\.4 +- +0\\.00%$"))
      << text;
  EXPECT_TRUE(
      hasLine(text, "^  alltoall nccl out fp32 +5\\.000 us +6\\.258 us +1\\.293 ms +830\\.1 "))
      << text;
  EXPECT_TRUE(
      hasLine(text, "^  9 cases, wrong: alltoall nccl fp32 1073741824 \\(2 wrong\\); time by "))
      << text;
  EXPECT_FALSE(hasLine(text, "^allreduce \\[")) << text;
  EXPECT_FALSE(hasLine(text, "slowest")) << text;
  for (const std::string& line : linesOf(text)) EXPECT_LE(columns(line), kConsoleWidth) << line;
  // More sizes than a line holds, or --verbose: a table each, as one collective alone has.
  const std::string many =
      renderStyled({}, threeCollectives({8, 1 << 10, 1 << 15, 1 << 20, 1 << 25, 1 << 30}));
  EXPECT_TRUE(hasLine(many, "^allreduce \\[device \\(CUDA events\\)\\]$")) << many;
  EXPECT_TRUE(hasLine(many, "^alltoall \\[device \\(CUDA events\\)\\]$")) << many;
  EXPECT_TRUE(hasLine(many, "^  case +size \\(B\\) .* slowest +noise$")) << many;
  EXPECT_FALSE(hasLine(many, "collectives over")) << many;
  // Over several nodes each case's slowest rank names its node: a table each.
  RunContext two_nodes = testing::twoRankContext();
  two_nodes.ranks[1].host = "nodeB";
  two_nodes.ranks[1].node_index = 1;
  const std::string nodes =
      renderStyled({}, threeCollectives({8, 1 << 20, 1 << 30}), {}, two_nodes);
  EXPECT_TRUE(hasLine(nodes, "^alltoall \\[device \\(CUDA events\\)\\]$")) << nodes;
  EXPECT_FALSE(hasLine(nodes, "collectives over")) << nodes;
  const std::string verbose = renderStyled(kVerbose, threeCollectives({8, 1 << 20}));
  EXPECT_TRUE(hasLine(verbose, "^broadcast \\[device")) << verbose;
  EXPECT_FALSE(hasLine(verbose, "collectives over")) << verbose;
}

TEST(CompactConsole, AStepsPhasesShareItUnderItsRowInAUnitThatFits) {
  const std::string text = renderStyled({}, testing::stepCases());
  EXPECT_TRUE(hasLine(text, "^  case +time \\(ms\\) +samples/s")) << text;
  EXPECT_TRUE(hasLine(text, "^  mlp bf16 overlap +12\\.10 ")) << text;
  EXPECT_TRUE(hasLine(text, "^    forward 24\\.8%  backward 44\\.6%  comm 41\\.3%$")) << text;
  const std::vector<std::string> lines = linesOf(text);
  const auto row = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.starts_with("  mlp bf16 overlap ");
  });
  ASSERT_NE(row, lines.end());
  EXPECT_TRUE((row + 1)->starts_with("    forward ")) << text;
}

TEST(CompactConsole, TheVerdictsReasonsForWhatItDidNotJudgeFollowItsLine) {
  DerivedResult verdict;
  verdict.suite = std::string(ConsoleReporter::kVerdictSuite);
  verdict.subject = "node nodeA";
  verdict.findings = {
      "node nodeA: healthy (each at least 80% of expected) — bf16 GEMM 673 "
      "TFLOP/s (84% of expected)",
      "not judged: allreduce busbw (one GPU)"};
  std::vector<std::string> lines = linesOf(renderStyled({}, testing::matmulCases(), {verdict}));
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[lines.size() - 2], verdict.findings[0]);
  EXPECT_EQ(lines.back(), "  not judged: allreduce busbw (one GPU)");
  // Where both fit in a line, one line.
  verdict.findings[0] = "node vm: no reference figures for AMD EPYC: not judged";
  verdict.findings[1] = "the reference table has NVIDIA H200";
  lines = linesOf(renderStyled({}, testing::matmulCases(), {verdict}));
  EXPECT_EQ(lines.back(),
            "node vm: no reference figures for AMD EPYC: not judged; the reference table has "
            "NVIDIA H200");
}

TEST(CompactConsole, CollectivesHaveNcclTestsColumns) {
  const std::string text = renderStyled({}, allreduceCases());
  EXPECT_TRUE(hasLine(text,
                      "^  case +size \\(B\\) +count +type +time \\(us\\) +algbw GB/s +busbw GB/s "
                      "+#wrong +±ci +slowest +noise$"))
      << text;
  EXPECT_TRUE(hasLine(text, "^  nccl in +33554432 +8388608 +fp32 +282\\.40 +118\\.8 +118\\.8 +0 "))
      << text;
}

// NCCL's choice per size beside busbw, where NCCL told it; "-" for a case it told nothing of.
TEST(CompactConsole, NcclsAlgorithmStandsBesideBusbw) {
  std::vector<Sample> rank;
  for (const auto& [bytes, choice] :
       {std::pair{std::uint64_t{8}, std::optional<AlgorithmChoice>({"RING", "LL", 24})},
        std::pair{std::uint64_t{33554432}, std::optional<AlgorithmChoice>({"NVLS", "SIMPLE", 16})},
        std::pair{std::uint64_t{1024}, std::optional<AlgorithmChoice>()}}) {
    Sample s = allreduceSample(bytes, Placement::OutOfPlace, 20e-6);
    auto fields = CollectiveCase::decode(s.fields);
    fields->nccl = choice;
    s.fields = fields->encode();
    rank.push_back(s);
  }
  const std::vector<CaseResult> cases = summarizeCases({rank, rank});
  const std::string text = renderStyled({}, cases);
  EXPECT_TRUE(hasLine(text,
                      "^  case +size \\(B\\) +count +type +time \\(us\\) +algbw GB/s +busbw GB/s "
                      "+nccl +#wrong +±ci +slowest +noise$"))
      << text;
  EXPECT_TRUE(hasLine(text, "^  nccl out +8 +2 +fp32 +20\\.00 +[0-9.]+ +[0-9.]+ +ring/ll +0 "))
      << text;
  EXPECT_TRUE(hasLine(text,
                      "^  nccl out +33554432 +8388608 +fp32 +20\\.00 +[0-9.]+ +[0-9.]+ "
                      "+nvls/simple +0 "))
      << text;
  EXPECT_TRUE(hasLine(text, "^  nccl out +1024 +256 +fp32 +20\\.00 +[0-9.]+ +[0-9.]+ +- +0 "))
      << text;
  for (const std::string& line : linesOf(text)) EXPECT_LE(columns(line), kConsoleWidth) << line;
  // --verbose: the same column after the rates.
  const std::string verbose = render(cases);
  EXPECT_TRUE(hasLine(verbose, "algbw GB/s +busbw GB/s +nccl +check ")) << verbose;
  EXPECT_TRUE(hasLine(verbose, "^  nccl fp32 33554432 .* nvls/simple +ok ")) << verbose;
}

TEST(CompactConsole, WarningsOfAKindAreOneLineNamingTheirCases) {
  Sample wide = testing::matmulSample("fp32", {1e-3, 5e-3});
  Sample wider = testing::matmulSample("bf16", {1e-3, 6e-3});
  const std::string text = renderStyled({}, summarizeCases({{wide, wider}, {wide, wider}}));
  EXPECT_TRUE(hasLine(text,
                      "^warning: slowest sample over 4x the fastest \\(cached or disturbed\\?\\): "
                      "matmul fp32 n=8192, matmul bf16 n=8192$"))
      << text;
  const std::vector<std::string> lines = linesOf(text);
  EXPECT_EQ(
      std::count_if(lines.begin(), lines.end(),
                    [](const std::string& l) { return l.find("warning") != std::string::npos; }),
      1)
      << text;
}

TEST(CompactConsole, DerivedFiguresWithARowFormTheShortTable) {
  DerivedResult d = testing::stepDerived();
  d.figures[0].row = "step time";
  d.figures[0].column = "none";
  d.figures[1].row = "overlap";
  d.figures[1].column = "overlap";
  d.legend = "none: compute only; overlap: sync during backward";
  DerivedResult model;
  model.suite = "allreduce";
  model.subject = "nccl fp32";
  model.title = "latency-bandwidth model";
  model.addFigure("allreduce/alpha", "α, latency", "s", 1e-6);
  model.assumptions = {"a ring"};
  const std::string text = renderStyled({}, testing::stepCases(), {d, model});
  EXPECT_TRUE(hasLine(text, "^  +none +overlap$")) << text;
  EXPECT_TRUE(hasLine(text, "^  step time +10\\.10 ms$")) << text;
  EXPECT_TRUE(hasLine(text, "^  overlap +60\\.0%$")) << text;
  EXPECT_TRUE(hasLine(text, "^  none: compute only; overlap: sync during backward$")) << text;
  // Figures without a row, and a model's projection, wait for --verbose.
  EXPECT_FALSE(hasLine(text, "model TFLOP/s")) << text;
  EXPECT_FALSE(hasLine(text, "α, latency")) << text;
  EXPECT_TRUE(hasLine(text, "^--verbose adds .*nccl fp32: latency-bandwidth model$")) << text;
  EXPECT_TRUE(hasLine(text, "^    no bottleneck rule fired")) << text;
  const std::string verbose = renderStyled(kVerbose, testing::stepCases(), {d, model});
  EXPECT_TRUE(hasLine(verbose, "model TFLOP/s")) << verbose;
  EXPECT_TRUE(hasLine(verbose, "α, latency")) << verbose;
}

TEST(CompactConsole, AVerdictClosesTheReport) {
  DerivedResult verdict;
  verdict.suite = std::string(ConsoleReporter::kVerdictSuite);
  verdict.subject = "node nodeA";
  verdict.title = "against the expected figures";
  verdict.findings = {"node nodeA: healthy — bf16 GEMM 672 TFLOP/s (91% of expected)"};
  // Reported before the other results, printed after all of them.
  for (const ConsoleStyle& style : {ConsoleStyle{}, kVerbose}) {
    const std::vector<std::string> lines =
        linesOf(renderStyled(style, testing::stepCases(), {verdict, testing::stepDerived()}));
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines.back(), verdict.findings[0]);
  }
}

// all_reduce_perf of nccl-tests 2.19.6 on 2 x H200, committed with the run it was compared to.
std::vector<std::string> ncclTestsOutput() {
  std::ifstream in(std::string(SPLITSTEP_CONFIGS_DIR) +
                   "/../results/2026-12-01-h200x2-cluster/all_reduce_perf.txt");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(NcclTestsFormat, TheTableIsNcclTestsOwnLayout) {
  const std::vector<std::string> real = ncclTestsOutput();
  const auto at = [&real](const std::string& start) {
    const auto it = std::find_if(real.begin(), real.end(), [&start](const std::string& l) {
      return l.find(start) != std::string::npos;
    });
    return it == real.end() ? std::string() : *it;
  };
  const std::string row = at("  2147483648     536870912");
  ASSERT_FALSE(row.empty()) << "no nccl-tests output to compare with";
  // That row's times, as splitstep would have measured them.
  std::vector<Sample> rank = {allreduceSample(2147483648, Placement::OutOfPlace, 6374.65e-6),
                              allreduceSample(2147483648, Placement::InPlace, 6339.31e-6)};
  const std::vector<std::string> lines =
      linesOf(renderStyled({.format = ConsoleFormat::NcclTests}, summarizeCases({rank, rank})));
  for (const std::string& expected : {at("out-of-place"), at("#       size"), at("#        (B)"),
                                      row, at("# Out of bounds values")}) {
    EXPECT_NE(std::find(lines.begin(), lines.end(), expected), lines.end()) << expected;
  }
  // The mean busbw over both placements, as nccl-tests averages them.
  const double bytes = 2147483648.0;
  const std::string average = fmt::format("# Avg bus bandwidth    : {:g} ",
                                          (bytes / 6374.65e-6 + bytes / 6339.31e-6) / 2 / 1e9);
  EXPECT_NE(std::find(lines.begin(), lines.end(), average), lines.end()) << average;
  // Everything else is an nccl-tests comment.
  for (const std::string& line : lines) {
    EXPECT_TRUE(line == row || line.starts_with("#")) << line;
  }
}

TEST(NcclTestsFormat, APlacementNotRunIsNotAvailable) {
  std::vector<Sample> rank = {allreduceSample(1024, Placement::OutOfPlace, 20e-6)};
  const std::string text =
      renderStyled({.format = ConsoleFormat::NcclTests}, summarizeCases({rank, rank}));
  EXPECT_TRUE(hasLine(text,
                      "^        1024           256     float     sum      -1    20\\.00    0\\.05  "
                      "  0\\.05       0      N/A     N/A     N/A    N/A$"))
      << text;
}

TEST(NcclTestsFormat, EveryCollectiveHasNcclTestsColumns) {
  for (const CollectiveDescriptor* c : collectives()) {
    const NcclTestsColumns columns = ncclTestsColumns(*c);
    // nccl-tests names the reduction of a collective that adds up, and no other.
    EXPECT_EQ(columns.redop == "sum", c->reduction == Reduction::Sum) << c->name;
    EXPECT_EQ(columns.redop == "none", c->reduction == Reduction::None) << c->name;
    // Its root where it has one (-r 0), -1 where it has none.
    EXPECT_EQ(columns.root, c->root ? 0 : -1) << c->name;
  }
  EXPECT_EQ(ncclTestsColumns(allReduce()).root, -1);
  EXPECT_EQ(ncclTestsColumns(broadcast()).root, 0);
  // The rates the table reads are the collective family's.
  std::vector<std::string_view> rates;
  for (const RateSpec& r : CollectiveCase::family().rates) rates.push_back(r.name);
  EXPECT_EQ(rates, (std::vector<std::string_view>{"algbw GB/s", "busbw GB/s"}));
}

TEST(ConsoleText, NumbersAsNcclTestsPrintsThem) {
  EXPECT_EQ(ncclTestsNumber(10.97, 7), "  10.97");
  EXPECT_EQ(ncclTestsNumber(141.2, 7), " 141.20");
  EXPECT_EQ(ncclTestsNumber(65201.5, 7), "65201.5");
  EXPECT_EQ(ncclTestsNumber(107476, 7), " 107476");
  EXPECT_EQ(ncclTestsNumber(15e6, 7), "1.5e+07");
  EXPECT_EQ(ncclTestsNumber(0.001, 6), "  0.00");
}

TEST(ConsoleText, WrappedAndNamedWithinTheWidth) {
  EXPECT_EQ(wrapText("  one two three", 9, 4),
            (std::vector<std::string>{"  one two", "    three"}));
  EXPECT_EQ(namesWithin({"alpha", "beta", "gamma"}, 100), "alpha, beta, gamma");
  EXPECT_EQ(namesWithin({"alpha", "beta", "gamma"}, 20), "alpha, and 2 more");
}

TEST(ConsoleReporter, ACompactDiagnosisShowsItsLeadAndCountsTheRest) {
  DerivedResult d;
  d.suite = "step";
  d.subject = "mlp fp32";
  d.title = "where the step time goes";
  d.findings = {"first finding", "second finding", "third finding", "fourth finding"};
  const std::string compact = renderStyled(ConsoleStyle{}, {}, {d});
  EXPECT_TRUE(hasLine(compact, "^    first finding$")) << compact;
  EXPECT_FALSE(hasLine(compact, "^    second finding$")) << compact;
  EXPECT_TRUE(hasLine(compact, "^    and 3 more findings \\(--verbose\\)$")) << compact;
  const std::string verbose = renderStyled(ConsoleStyle{.verbose = true}, {}, {d});
  EXPECT_TRUE(hasLine(verbose, "^    fourth finding$")) << verbose;
  EXPECT_FALSE(hasLine(verbose, "more finding")) << verbose;
  // A lead of two (a noise hold-back, then what was judged): both, and the rest counted.
  d.lead_findings = 2;
  const std::string lead = renderStyled(ConsoleStyle{}, {}, {d});
  EXPECT_TRUE(hasLine(lead, "^    second finding$")) << lead;
  EXPECT_FALSE(hasLine(lead, "^    third finding$")) << lead;
  EXPECT_TRUE(hasLine(lead, "^    and 2 more findings \\(--verbose\\)$")) << lead;
}

}  // namespace
}  // namespace splitstep
