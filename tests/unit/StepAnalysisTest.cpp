#include "derived/StepAnalysis.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

#include "ReportFixtures.hpp"
#include "cases/StepCase.hpp"
#include "common/StepKeys.hpp"

namespace splitstep {
namespace {

// Milliseconds per timed step, per rank; an empty list: that rank did not measure it.
using PerRank = std::vector<std::vector<double>>;

PerRank same(double r0, double r1) { return {{r0, r0, r0}, {r1, r1, r1}}; }
PerRank rankZero(double v) { return {{v, v, v}, {}}; }

// A two-rank job of the step suite, per (mode, series), and matmul ceilings (dtype, TFLOP/s).
struct Job {
  std::vector<std::tuple<std::string, std::string, PerRank>> series;
  std::vector<std::pair<std::string, double>> matmul;
  // The host's ms to launch each step of a mode, on every rank (otherwise 0.02 ms).
  std::map<std::string, double> host_ms;
  // The spread (std/mean) of each rank's steps of a mode (otherwise the fixture's 1%).
  std::map<std::string, std::vector<double>> noise;

  PerRank& at(const std::string& mode, const std::string& name) {
    for (auto& [m, s, values] : series) {
      if (m == mode && s == name) return values;
    }
    throw std::out_of_range(mode + " " + name);
  }
  Job& without(const std::string& mode) {
    std::erase_if(series, [&mode](const auto& entry) { return std::get<0>(entry) == mode; });
    return *this;
  }
  std::vector<std::vector<Sample>> samples(const std::string& model = "mlp",
                                           const std::string& precision = "bf16") const {
    std::vector<std::vector<Sample>> by_rank(2);
    for (const auto& [mode, name, values] : series) {
      for (std::size_t r = 0; r < by_rank.size(); ++r) {
        std::vector<double> seconds;
        for (double ms : values[r]) seconds.push_back(ms * 1e-3);
        // "overlap graphed": the graphed case of mode overlap (--step-graphs).
        const bool graphed = mode.ends_with(" graphed");
        const std::string sync_mode = graphed ? mode.substr(0, mode.find(' ')) : mode;
        Sample sample = testing::stepSample(model, precision, sync_mode, name, seconds);
        if (graphed) {
          StepCase fields = *StepCase::decode(sample.fields);
          fields.launch = StepLaunch::Graph;
          sample.fields = fields.encode();
          sample.case_name += " graphed";
        }
        if (name.starts_with(step_keys::kBusyPrefix)) {
          // As the step suite records them: detail series, not parts of the step.
          sample.part_of.clear();
          sample.detail = true;
        }
        if (const auto host = host_ms.find(mode); host != host_ms.end() && name == "step") {
          sample.measurement.host_values.assign(seconds.size(), host->second * 1e-3);
        }
        if (const auto spread = noise.find(mode); spread != noise.end() && name == "step") {
          sample.measurement.noise = spread->second[r];
        }
        by_rank[r].push_back(std::move(sample));
      }
    }
    for (std::size_t i = 0; i < matmul.size(); ++i) {
      // 1 ms per product of tflops * 1e9 FLOP: `tflops` TFLOP/s.
      Sample s = testing::matmulSample(matmul[i].first, {1e-3});
      s.case_name = matmul[i].first + " n=" + std::to_string(i + 1);
      s.rates = {{"TFLOP/s", matmul[i].second * 1e9, 1e12}};
      for (auto& rank : by_rank) rank.push_back(s);
    }
    return by_rank;
  }
  std::vector<CaseResult> cases() const { return summarizeCases(samples()); }
};

// Every mode of "mlp bf16" on two ranks (ms):
//   none:       step 10 / 10.2    data 1, forward 3, loss 0.5, backward 5, optimizer 0.5
//   sequential: step 14 / 14.2    ... sync 4.5, comm 4 / 4
//   overlap:    step 12 / 12.2    ... backward 5.4, sync 1.2, comm [5 6 4] / [4 5 5]
//   single:     step 9.68 on rank 0 alone, data 1, forward 3, backward 5
// and matmul bf16 at 750 and 600 TFLOP/s, fp16 at 900.
Job baseJob() {
  Job job;
  const auto phases = [&job](const std::string& mode, double backward) {
    job.series.emplace_back(mode, "data", same(1, 1));
    job.series.emplace_back(mode, "forward", same(3, 3));
    job.series.emplace_back(mode, "loss", same(0.5, 0.5));
    job.series.emplace_back(mode, "backward", same(backward, backward));
    job.series.emplace_back(mode, "optimizer", same(0.5, 0.5));
  };
  job.series.emplace_back("none", "step", same(10, 10.2));
  phases("none", 5);
  job.series.emplace_back("sequential", "step", same(14, 14.2));
  phases("sequential", 5);
  job.series.emplace_back("sequential", "sync", same(4.5, 4.5));
  job.series.emplace_back("sequential", "comm", same(4, 4));
  job.series.emplace_back("overlap", "step", same(12, 12.2));
  phases("overlap", 5.4);
  job.series.emplace_back("overlap", "sync", same(1.2, 1.2));
  job.series.emplace_back("overlap", "comm", PerRank{{5, 6, 4}, {4, 5, 5}});
  job.series.emplace_back("single", "step", rankZero(9.68));
  job.series.emplace_back("single", "data", rankZero(1));
  job.series.emplace_back("single", "forward", rankZero(3));
  job.series.emplace_back("single", "backward", rankZero(5));
  job.matmul = {{"bf16", 750}, {"bf16", 600}, {"fp16", 900}};
  return job;
}

DerivedResult deriveOne(const Job& job) {
  const auto results = deriveStepFigures(job.cases());
  if (results.size() != 1) throw std::runtime_error("expected one workload");
  return results.front();
}

// A copy: a reference into `d` would be flagged as dangling when `tag` is a temporary.
DerivedFigure figure(const DerivedResult& d, const std::string& tag) {
  for (const DerivedFigure& f : d.figures) {
    if (f.tag == tag) return f;
  }
  throw std::out_of_range("no figure " + tag);
}

bool hasFigure(const DerivedResult& d, const std::string& tag) {
  return std::any_of(d.figures.begin(), d.figures.end(),
                     [&tag](const DerivedFigure& f) { return f.tag == tag; });
}

// The finding that starts with `prefix`, or "" when none does.
std::string finding(const DerivedResult& d, const std::string& prefix) {
  for (const std::string& f : d.findings) {
    if (f.starts_with(prefix)) return f;
  }
  return "";
}

constexpr double kEps = 1e-12;

void expectPerRank(const DerivedFigure& f, const std::vector<std::pair<int, double>>& expected,
                   double tolerance = kEps) {
  ASSERT_EQ(f.per_rank.size(), expected.size()) << f.tag;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(f.per_rank[i].first, expected[i].first) << f.tag;
    EXPECT_NEAR(f.per_rank[i].second, expected[i].second, tolerance) << f.tag;
  }
}

TEST(StepAnalysis, StepTimeOfEachModeIsTheMedianOfTheRanksMedians) {
  const DerivedResult d = deriveOne(baseJob());
  EXPECT_EQ(d.suite, "step");
  EXPECT_EQ(d.subject, "mlp bf16");
  EXPECT_EQ(d.title, "where the step time goes");
  const DerivedFigure& t_c = figure(d, "step/time/none");
  EXPECT_EQ(t_c.unit, "s");
  EXPECT_NEAR(t_c.value, 10.1e-3, kEps);
  expectPerRank(t_c, {{0, 10e-3}, {1, 10.2e-3}});
  EXPECT_NEAR(figure(d, "step/time/sequential").value, 14.1e-3, kEps);
  EXPECT_NEAR(figure(d, "step/time/overlap").value, 12.1e-3, kEps);
  const TypedFields overlap_key = {{"figure", typedName("step/time")},
                                   {"mode", typedName("overlap")}};
  EXPECT_EQ(figure(d, "step/time/overlap").key, overlap_key);
  const DerivedFigure& t_1 = figure(d, "step/time/single");
  EXPECT_NEAR(t_1.value, 9.68e-3, kEps);
  EXPECT_EQ(t_1.name, "T_1, rank 0 alone (single)");
}

TEST(StepAnalysis, ExposedCommunicationAndOverlap) {
  const DerivedResult d = deriveOne(baseJob());
  // Comm medians: overlap rank 0 median(5, 6, 4) = 5, rank 1 median(4, 5, 5) = 5.
  EXPECT_NEAR(figure(d, "step/comm/overlap").value, 5e-3, kEps);
  expectPerRank(figure(d, "step/comm/overlap"), {{0, 5e-3}, {1, 5e-3}});
  EXPECT_NEAR(figure(d, "step/comm/sequential").value, 4e-3, kEps);
  // T_ddp - T_c = 12.1 - 10.1 = 2 ms (16.5% of T_ddp); per rank 12 - 10 and 12.2 - 10.2.
  const DerivedFigure& exposed = figure(d, "step/exposed/overlap");
  EXPECT_NEAR(exposed.value, 2e-3, kEps);
  expectPerRank(exposed, {{0, 2e-3}, {1, 2e-3}});
  EXPECT_EQ(exposed.note, "16.5% of T_ddp");
  EXPECT_EQ(exposed.name, "exposed communication, T_ddp - T_c (overlap)");
  // T_seq - T_c = 14.1 - 10.1 = 4 ms (28.4% of T_seq).
  EXPECT_NEAR(figure(d, "step/exposed/sequential").value, 4e-3, kEps);
  EXPECT_EQ(figure(d, "step/exposed/sequential").note, "28.4% of T_seq");
  // Overlap = 1 - 2 / 5 = 60%; the sequential mode does not overlap, so it has no overlap.
  EXPECT_EQ(figure(d, "step/overlap/overlap").unit, "%");
  EXPECT_NEAR(figure(d, "step/overlap/overlap").value, 60, 1e-9);
  EXPECT_FALSE(hasFigure(d, "step/overlap/sequential"));
}

TEST(StepAnalysis, OverlapOutsideZeroToHundredPercentIsExplained) {
  Job job = baseJob();
  job.at("overlap", "step") = same(16, 16.2);  // exposed 6 ms > T_comm 5 ms
  const DerivedResult d = deriveOne(job);
  const DerivedFigure& f = figure(d, "step/overlap/overlap");
  EXPECT_NEAR(f.value, -20, 1e-9);
  EXPECT_EQ(f.note.rfind("below 0:", 0), 0u) << f.note;
}

TEST(StepAnalysis, OneRankHasNoOverlapToSpeakOf) {
  std::vector<Sample> alone = baseJob().samples().front();
  for (Sample& s : alone) {
    if (s.suite == "step") s.fields.values["world_size"] = std::int64_t{1};
  }
  const auto results = deriveStepFigures(summarizeCases({alone}));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_FALSE(hasFigure(results[0], "step/overlap/overlap"));
  EXPECT_FALSE(hasFigure(results[0], "step/overlap/sequential"));
  EXPECT_TRUE(hasFigure(results[0], "step/exposed/overlap"));
  EXPECT_EQ(figure(results[0], "step/efficiency/overlap").note.rfind("one rank:", 0), 0u);
}

TEST(StepAnalysis, WaitIsTheMedianOverStepsOfTheExcessOverTheShortestRank) {
  const DerivedResult d = deriveOne(baseJob());
  // Overlap comm: rank 0 [5 6 4], rank 1 [4 5 5]; shortest per step [4 5 4].
  // Rank 0 waits [1 1 0] -> median 1 ms; rank 1 waits [0 0 1] -> median 0.
  const DerivedFigure& wait = figure(d, "step/wait/overlap");
  EXPECT_EQ(wait.unit, "s");
  EXPECT_NEAR(wait.value, 1e-3, kEps);
  expectPerRank(wait, {{0, 1e-3}, {1, 0}});
  // Rank 1's collectives are the shortest in steps 0 and 1: it arrives last there.
  EXPECT_EQ(wait.note, "rank 0 waits longest; rank 1 reaches the collectives last in 2 of 3 steps");
  EXPECT_NEAR(figure(d, "step/wait/sequential").value, 0, kEps);
}

TEST(StepAnalysis, ScalingEfficiencyAndThroughput) {
  const DerivedResult d = deriveOne(baseJob());
  // T_1 / T_ddp = 9.68 / 12.1 = 80%; T_1 / T_seq = 9.68 / 14.1.
  EXPECT_NEAR(figure(d, "step/efficiency/overlap").value, 80, 1e-9);
  EXPECT_NEAR(figure(d, "step/efficiency/sequential").value, 9.68 / 14.1 * 100, 1e-9);
  EXPECT_EQ(figure(d, "step/efficiency/overlap").note,
            "2 ranks against one, the same batch per rank");
  // Batch 64: 64 / 12.1 ms per GPU, 2 x 64 / 12.1 ms in total, 64 / 9.68 ms alone.
  const DerivedFigure& per_gpu = figure(d, "step/samples_per_s/per_gpu/overlap");
  EXPECT_EQ(per_gpu.unit, "samples/s");
  EXPECT_NEAR(per_gpu.value, 5289.2562, 1e-3);
  const DerivedFigure& total = figure(d, "step/samples_per_s/total/overlap");
  EXPECT_NEAR(total.value, 10578.5124, 1e-3);
  EXPECT_EQ(total.name, "samples/s in total, 2 ranks (overlap)");
  EXPECT_NEAR(figure(d, "step/samples_per_s/single").value, 6611.5702, 1e-3);
  EXPECT_FALSE(hasFigure(d, "step/samples_per_s/per_gpu/sequential"));
}

TEST(StepAnalysis, ModelFlopsAgainstTheHighestMatmulRateOfTheSamePrecision) {
  const DerivedResult d = deriveOne(baseJob());
  // 3.03e12 FLOP in 10.1 ms: 300 TFLOP/s (rank 0: 303, rank 1: 3.03 / 10.2 ms = 297.06).
  const DerivedFigure& tflops = figure(d, "step/tflops/none");
  EXPECT_NEAR(tflops.value, 300, 1e-9);
  expectPerRank(tflops, {{0, 303}, {1, 3030.0 / 10.2}}, 1e-9);
  EXPECT_EQ(tflops.note, "");
  // The bf16 ceiling is the higher of 750 and 600 (fp16's 900 is another dtype): 300 / 750.
  const DerivedFigure& fraction = figure(d, "step/ceiling_fraction/none");
  EXPECT_NEAR(fraction.value, 40, 1e-9);
  EXPECT_EQ(fraction.note, "ceiling: matmul bf16 n=1 at 750.0 TFLOP/s");
}

TEST(StepAnalysis, WithoutAMatmulOfThePrecisionTheNoteSaysHowToMeasureTheCeiling) {
  Job job = baseJob();
  job.matmul = {{"fp16", 900}};
  const DerivedResult d = deriveOne(job);
  EXPECT_EQ(figure(d, "step/tflops/none").note,
            "run matmul with --matmul-dtypes bf16 in the same job for the compute ceiling");
  EXPECT_FALSE(hasFigure(d, "step/ceiling_fraction/none"));
}

TEST(StepAnalysis, SlowestRankOfTheMostSynchronisedMode) {
  const DerivedResult d = deriveOne(baseJob());
  const DerivedFigure& f = figure(d, "step/slowest_rank/overlap");
  EXPECT_EQ(f.unit, "rank");
  EXPECT_EQ(f.value, 1);
  EXPECT_EQ(f.note, "median 1.7% above the fastest rank's");  // 12.2 / 12
}

TEST(StepAnalysis, OnlyFiguresWhoseInputsWereMeasured) {
  Job job = baseJob();
  job.without("none").without("sequential").without("single");
  job.matmul.clear();
  const DerivedResult d = deriveOne(job);
  std::vector<std::string> tags;
  for (const DerivedFigure& f : d.figures) tags.push_back(f.tag);
  EXPECT_EQ(tags, (std::vector<std::string>{
                      "step/time/overlap", "step/comm/overlap", "step/wait/overlap",
                      "step/samples_per_s/per_gpu/overlap", "step/samples_per_s/total/overlap",
                      "step/slowest_rank/overlap"}));
}

TEST(StepAnalysis, WorkloadsAreGroupedByModelAndPrecisionAndSkippedCasesIgnored) {
  Job job = baseJob();
  auto by_rank = job.samples("mlp", "bf16");
  Job other = baseJob();
  other.without("none").without("sequential").without("single");
  other.matmul.clear();
  const auto resnet = other.samples("resnet50", "fp32");
  for (std::size_t r = 0; r < by_rank.size(); ++r) {
    by_rank[r].insert(by_rank[r].end(), resnet[r].begin(), resnet[r].end());
    by_rank[r].push_back(testing::stepSample("vit-b16", "fp16", "overlap", "step", {}));
  }
  const auto results = deriveStepFigures(summarizeCases(by_rank));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].subject, "mlp bf16");
  EXPECT_EQ(results[1].subject, "resnet50 fp32");
  EXPECT_NEAR(figure(results[1], "step/time/overlap").value, 12.1e-3, kEps);
  EXPECT_FALSE(hasFigure(results[1], "step/time/none"));
}

TEST(StepAnalysis, NoRuleFiresOnTheBaseJob) {
  // Overlap step: data 8.3%, optimizer 4.1%, exposed 16.5%, backward / forward 1.8, backward
  // 8% slower than without sync, rank 1 computes 1.0% over the median rank.
  const DerivedResult d = deriveOne(baseJob());
  EXPECT_EQ(d.findings,
            (std::vector<std::string>{"no bottleneck rule fired: the largest phase is backward at "
                                      "44.6% of the step (overlap)"}));
}

TEST(StepAnalysis, InputBoundAboveHalfTheStep) {
  Job job = baseJob();
  job.at("overlap", "data") = same(6.1, 6.1);  // 6.1 / 12.1 = 50.4%
  EXPECT_EQ(finding(deriveOne(job), "input bound"),
            "input bound: loading/copying the batch takes 50.4% of the step (overlap): pin host "
            "memory, use more loader workers, a faster format, or prefetch the next batch");
  job.at("overlap", "data") = same(6.0, 6.0);  // 49.6%
  EXPECT_EQ(finding(deriveOne(job), "input bound"), "");
}

TEST(StepAnalysis, CommunicationBoundAboveAFifthOfTheStep) {
  Job job = baseJob();
  job.at("overlap", "step") = same(12.6, 12.8);  // exposed 12.7 - 10.1 = 2.6 ms, 20.5%
  EXPECT_EQ(finding(deriveOne(job), "communication bound"),
            "communication bound: gradient communication adds 2.600 ms that computation does not "
            "hide, 20.5% of the step (overlap): use larger buckets, compress gradients (bf16/fp16 "
            "or PowerSGD), or a faster link");
  job.at("overlap", "step") = same(12.5, 12.7);  // 2.5 / 12.6 = 19.8%
  EXPECT_EQ(finding(deriveOne(job), "communication bound"), "");
}

TEST(StepAnalysis, CommunicationBoundWithoutOverlapModeJudgesTheSequentialStep) {
  Job job = baseJob();
  job.without("overlap");  // T_seq - T_c = 4 ms of 14.1 ms: 28.4%
  EXPECT_EQ(finding(deriveOne(job), "communication bound"),
            "communication bound: gradient communication adds 4.000 ms that computation does not "
            "hide, 28.4% of the step (sequential): overlap the reduction with backward (mode "
            "overlap), use larger buckets, compress gradients (bf16/fp16 or PowerSGD), or a "
            "faster link");
}

TEST(StepAnalysis, ALateRankIsNamedWhenOthersWaitMoreThanATenthOfTheStep) {
  Job job = baseJob();
  // Rank 1's collectives are the shortest in every step: rank 0 waits for it 1.3 ms of 12.1 ms.
  job.at("overlap", "comm") = {{6.3, 6.3, 6.3}, {5, 5, 5}};
  EXPECT_EQ(finding(deriveOne(job), "late rank")
                .rfind("late rank: rank 1 reaches the gradient collectives last (overlap): the "
                       "others wait up to 1.300 ms per step for it, 10.7% of the step",
                       0),
            0u)
      << finding(deriveOne(job), "late rank");
  job.at("overlap", "comm") = {{6.2, 6.2, 6.2}, {5, 5, 5}};  // 1.2 / 12.1 = 9.9%
  EXPECT_EQ(finding(deriveOne(job), "late rank"), "");
}

TEST(StepAnalysis, StragglerComputesMoreThanFivePercentOverTheMedianRank) {
  Job job = baseJob();
  job.at("none", "step") = same(10, 11.2);  // median rank 10.6: rank 1 is 5.66% over it
  EXPECT_EQ(finding(deriveOne(job), "straggler")
                .rfind("straggler: rank 1 computes 5.7% slower than the median rank (T_c 11.20 ms "
                       "against 10.60 ms)",
                       0),
            0u)
      << finding(deriveOne(job), "straggler");
  job.at("none", "step") = same(10, 11.0);  // median 10.5: 4.76%
  EXPECT_EQ(finding(deriveOne(job), "straggler"), "");
}

TEST(StepAnalysis, OptimizerHeavyAboveAQuarterOfTheStep) {
  Job job = baseJob();
  job.at("overlap", "optimizer") = same(3.1, 3.1);  // 3.1 / 12.1 = 25.6%
  EXPECT_EQ(finding(deriveOne(job), "optimizer heavy")
                .rfind("optimizer heavy: the optimizer step takes 25.6% of the step (overlap): "
                       "use a fused or foreach optimizer",
                       0),
            0u);
  job.at("overlap", "optimizer") = same(3.0, 3.0);  // 24.8%
  EXPECT_EQ(finding(deriveOne(job), "optimizer heavy"), "");
}

TEST(StepAnalysis, BackwardHeavyAboveTwoAndAHalfForwards) {
  Job job = baseJob();
  job.at("overlap", "forward") = same(2.1, 2.1);  // 5.4 / 2.1 = 2.57
  EXPECT_EQ(finding(deriveOne(job), "backward heavy")
                .rfind("backward heavy: the backward pass takes 2.57x the forward pass (overlap; "
                       "about 2x is usual)",
                       0),
            0u);
  job.at("overlap", "forward") = same(2.2, 2.2);  // 2.45
  EXPECT_EQ(finding(deriveOne(job), "backward heavy"), "");
}

TEST(StepAnalysis, GradientSyncSlowsBackwardByMoreThanTenPercent) {
  Job job = baseJob();
  job.at("overlap", "backward") = same(5.6, 5.6);  // 5.6 / 5 = +12%
  EXPECT_EQ(finding(deriveOne(job), "gradient sync slows")
                .rfind("gradient sync slows the backward pass by 12.0% (5.600 ms with overlap, "
                       "5.000 ms without sync): it packs every gradient",
                       0),
            0u);
  job.at("overlap", "backward") = same(5.4, 5.4);  // +8%
  EXPECT_EQ(finding(deriveOne(job), "gradient sync slows"), "");
  job.at("overlap", "backward") = same(5.6, 5.6);
  job.without("none");  // nothing to compare with
  EXPECT_EQ(finding(deriveOne(job), "gradient sync slows"), "");
}

TEST(StepAnalysis, DiagnosisJudgesTheSingleModeWhenItAloneWasMeasured) {
  Job job = baseJob();
  job.without("overlap").without("sequential").without("none");
  const DerivedResult d = deriveOne(job);
  // Single: backward 5 of 9.68 ms.
  EXPECT_EQ(d.findings,
            (std::vector<std::string>{"no bottleneck rule fired: the largest phase is backward at "
                                      "51.7% of the step (single)"}));
  EXPECT_FALSE(hasFigure(d, "step/slowest_rank/single"));
}

// The overlap step of the base job (12 / 12.2 ms) with the GPU busy 9 ms of it: forward's
// kernels fill its 3 ms, backward's 2.7 ms of its 5.4.
Job busyJob() {
  Job job = baseJob();
  job.series.emplace_back("overlap", "gpu busy step", same(9, 9));
  job.series.emplace_back("overlap", "gpu busy forward", same(3, 3));
  job.series.emplace_back("overlap", "gpu busy backward", same(2.7, 2.7));
  // The sync phase launches nothing with overlap: its collectives were launched in backward.
  job.series.emplace_back("overlap", "gpu busy sync", same(0, 0));
  return job;
}

TEST(StepAnalysis, GpuBusyIsKernelTimeOverTheStepAndOverEachPhase) {
  const DerivedResult d = deriveOne(busyJob());
  const DerivedFigure busy = figure(d, "step/busy/overlap");
  EXPECT_NEAR(busy.value, 9 / 12.1 * 100, 1e-9);
  EXPECT_EQ(busy.unit, "%");
  expectPerRank(busy, {{0, 75}, {1, 9 / 12.2 * 100}}, 1e-9);
  EXPECT_NEAR(figure(d, "step/idle/overlap").value, 3.1e-3, 1e-12);
  EXPECT_NEAR(figure(d, "step/busy/overlap/forward").value, 100, 1e-9);
  EXPECT_NEAR(figure(d, "step/busy/overlap/backward").value, 50, 1e-9);
  EXPECT_EQ(figure(d, "step/busy/overlap/backward").note, "kernels 2.700 ms of 5.400 ms");
  // Only where the busy time was measured: the other modes' phases have none.
  EXPECT_FALSE(hasFigure(d, "step/busy/overlap/data"));
  EXPECT_FALSE(hasFigure(d, "step/busy/overlap/sync"));
  EXPECT_FALSE(hasFigure(d, "step/busy/none"));
  // The busy series are not phases: the largest phase is still backward.
  EXPECT_EQ(finding(d, "no bottleneck"),
            "no bottleneck rule fired: the largest phase is backward at 44.6% of the step "
            "(overlap)");
}

TEST(StepAnalysis, HostBoundWhenTheGpuIdlesWhileTheHostLaunches) {
  Job job = busyJob();
  // 11 of 12.1 ms: 91% of the device's time, busy 74%. The sync phase (1.2 ms, nothing launched
  // in it) is not named: with overlap, what it waits for was launched in backward.
  job.host_ms["overlap"] = 11;
  EXPECT_EQ(finding(deriveOne(job), "host-bound"),
            "host-bound: the GPU is busy 74.4% of the step and idles 3.100 ms (overlap), while "
            "the host takes 11.00 ms to launch a step the GPU runs in 12.10 ms: the step's time "
            "depends on the CPU that launches it, most in backward (50.0% busy, idle 2.700 ms); "
            "a CUDA-graph step removes the launches (--step-graphs on measures it); in training, "
            "CUDA graphs (torch.cuda.graph, torch.compile mode=\"reduce-overhead\"), a larger "
            "batch per GPU, fewer and fused kernels (a fused optimizer) or a faster host core do "
            "the same");
  EXPECT_EQ(finding(deriveOne(job), "no bottleneck"), "");
  // The host well ahead of the GPU (6 of 12.1 ms), yet the GPU idles 2.7 ms inside backward,
  // which only launches kernels: 22.3% of the step waits for launches there, and the GPU runs
  // the rest after the host is done (as an optimizer over many parameters does).
  job.host_ms["overlap"] = 6;
  EXPECT_NE(finding(deriveOne(job), "host-bound"), "");
  // A host done in 2 ms cannot have kept the GPU waiting 2.7 ms for launches.
  job.host_ms["overlap"] = 2;
  EXPECT_EQ(finding(deriveOne(job), "host-bound"), "");
  job.host_ms["overlap"] = 6;
  // The same idle time in the data phase (an input copy runs no kernel) and the host well
  // ahead: the GPU's idle time is not the host's.
  job.at("overlap", "gpu busy backward") = same(5.4, 5.4);
  EXPECT_EQ(finding(deriveOne(job), "host-bound"), "");
  // Idle inside the launching phases at 10% of the step or less is not enough alone.
  job.at("overlap", "gpu busy backward") = same(4.2, 4.2);  // idle 1.2 ms, 9.9%
  EXPECT_EQ(finding(deriveOne(job), "host-bound"), "");
  job.at("overlap", "gpu busy backward") = same(4.1, 4.1);  // idle 1.3 ms, 10.7%
  EXPECT_NE(finding(deriveOne(job), "host-bound"), "");
  // The host well ahead of the GPU (9.6 of 12.1 ms, 79%) and no idle time in the launching
  // phases: not host-bound.
  job.at("overlap", "gpu busy backward") = same(5.4, 5.4);
  job.host_ms["overlap"] = 9.6;
  EXPECT_EQ(finding(deriveOne(job), "host-bound"), "");
  job.at("overlap", "gpu busy backward") = same(2.7, 2.7);
  // Busy 90.1% of the step: not host-bound, however long the host takes.
  job.host_ms["overlap"] = 12;
  job.at("overlap", "gpu busy step") = same(10.9, 10.9);
  EXPECT_EQ(finding(deriveOne(job), "host-bound"), "");
  job.at("overlap", "gpu busy step") = same(10.8, 10.8);  // 89.3%
  EXPECT_NE(finding(deriveOne(job), "host-bound"), "");
}

TEST(StepAnalysis, TheGraphedStepStandsBesideTheEagerOneWithItsGainAndBusyShare) {
  Job job = busyJob();
  job.host_ms["overlap"] = 11;
  // The graphed overlap step: 9.2 ms on both ranks, the GPU busy 9 ms of it.
  job.series.emplace_back("overlap graphed", "step", same(9.2, 9.2));
  job.series.emplace_back("overlap graphed", "gpu busy step", same(9, 9));
  const DerivedResult d = deriveOne(job);
  EXPECT_NEAR(figure(d, "step/graphed/overlap").value, 9.2e-3, 1e-12);
  EXPECT_NEAR(figure(d, "step/graph_gain/overlap").value, 12.1 / 9.2, 1e-9);
  EXPECT_EQ(figure(d, "step/graph_gain/overlap").unit, "x");
  EXPECT_NEAR(figure(d, "step/graphed/busy/overlap").value, 9 / 9.2 * 100, 1e-9);
  EXPECT_EQ(figure(d, "step/graphed/busy/overlap").row, "GPU busy in the graphed step");
  // The eager figures are the eager case's alone: the graphed case is not a mode of its own.
  EXPECT_NEAR(figure(d, "step/time/overlap").value, 12.1e-3, 1e-12);
  EXPECT_NEAR(figure(d, "step/busy/overlap").value, 9 / 12.1 * 100, 1e-9);
  EXPECT_FALSE(hasFigure(d, "step/graphed/none"));
  const std::string host = finding(d, "host-bound");
  EXPECT_NE(host.find("the graphed step, without the launches, takes 9.200 ms (1.32x faster)"),
            std::string::npos)
      << host;
}

TEST(StepAnalysis, ANoisyStepHoldsBackTheRulesItsUncertaintyCouldHaveFired) {
  Job job = busyJob();
  job.host_ms["overlap"] = 11;
  job.at("overlap", "data") = same(6.1, 6.1);                // input bound, 50.4%
  job.at("overlap", "comm") = {{6.3, 6.3, 6.3}, {5, 5, 5}};  // a late rank, 10.7%
  const DerivedResult quiet = deriveOne(job);
  EXPECT_NE(finding(quiet, "input bound"), "");
  EXPECT_NE(finding(quiet, "late rank"), "");
  EXPECT_EQ(finding(quiet, "too noisy"), "");
  // The same medians, but rank 1's compute steps spread by a fifth either way.
  job.at("none", "step") = {{10, 10, 10}, {8.2, 10.2, 12.2}};
  const DerivedResult noisy = deriveOne(job);
  EXPECT_EQ(finding(noisy, "input bound"), "");
  EXPECT_EQ(finding(noisy, "late rank"), "");
  EXPECT_NE(finding(noisy, "host-bound"), "");
  EXPECT_EQ(finding(noisy, "no bottleneck"), "");
  EXPECT_EQ(noisy.findings.front(),
            "too noisy to judge: late rank 1, others wait 10.7% of the step against 10.0%; "
            "input bound, 50.4% of the step against 50.0%; they clear their thresholds by less "
            "than the 19.6% that the 95% interval of rank 1's median none step reaches from it: "
            "give each case more samples (--samples, --min-time, --max-time), or each rank a "
            "quiet GPU and core");
  // A rule must clear its bound by more than the uncertainty, 50% x 1.196 = 59.8% here: the data
  // phase at 7.5 of 13.5 ms (55.6%) is held back, at 9 of 15 ms (60.0%) it stands.
  job.at("overlap", "data") = same(7.5, 7.5);
  job.at("overlap", "step") = same(13.4, 13.6);
  EXPECT_EQ(finding(deriveOne(job), "input bound"), "");
  job.at("overlap", "data") = same(9, 9);
  job.at("overlap", "step") = same(14.9, 15.1);
  EXPECT_EQ(finding(deriveOne(job), "input bound")
                .rfind("input bound: loading/copying the batch "
                       "takes 60.0% of the step (overlap)",
                       0),
            0u)
      << finding(deriveOne(job), "input bound");
}

TEST(StepAnalysis, AStepWhoseSamplesSpreadHoldsBackRulesThoughItsIntervalIsNarrow) {
  Job job = busyJob();
  job.host_ms["overlap"] = 11;
  job.at("overlap", "data") = same(6.1, 6.1);                // input bound, 50.4%
  job.at("overlap", "comm") = {{6.3, 6.3, 6.3}, {5, 5, 5}};  // a late rank, 10.7%
  // Each step's samples alike, so its median's interval reaches nowhere: only the spread counts.
  // At the bound, 10%, the rules are judged as they stand.
  job.noise["none"] = {0.02, 0.10};
  const DerivedResult at_bound = deriveOne(job);
  EXPECT_NE(finding(at_bound, "input bound"), "");
  EXPECT_NE(finding(at_bound, "late rank"), "");
  EXPECT_EQ(finding(at_bound, "too noisy"), "");
  // Rank 1's compute steps spread by 15%: both rules are held back, and the finding that says so
  // comes first, before host-bound's (always judged), as the console shows the first findings.
  job.noise["none"] = {0.02, 0.15};
  const DerivedResult noisy = deriveOne(job);
  EXPECT_EQ(finding(noisy, "input bound"), "");
  EXPECT_EQ(finding(noisy, "late rank"), "");
  ASSERT_EQ(noisy.findings.size(), 2u);
  EXPECT_EQ(noisy.findings[0],
            "too noisy to judge: late rank 1, others wait 10.7% of the step against 10.0%; "
            "input bound, 50.4% of the step against 50.0%; they clear their thresholds by less "
            "than the 15.0% by which rank 1's none steps spread (noise, std/mean): give each "
            "rank a quiet GPU and core (more samples narrow the interval, not the spread)");
  EXPECT_EQ(noisy.findings[1].rfind("host-bound: ", 0), 0u) << noisy.findings[1];
  // Both lead: the console's short view shows what was judged beside what was held back.
  EXPECT_EQ(noisy.lead_findings, 2u);
  EXPECT_EQ(at_bound.lead_findings, 1u);
  // A rule that clears its bound by more than the spread stands: the data phase at 9 of 15 ms,
  // 60.0% against 50% x 1.15 = 57.5%.
  job.at("overlap", "data") = same(9, 9);
  job.at("overlap", "step") = same(14.9, 15.1);
  const DerivedResult clear = deriveOne(job);
  EXPECT_NE(finding(clear, "input bound"), "");
  EXPECT_EQ(finding(clear, "too noisy"), "");
}

}  // namespace
}  // namespace splitstep
