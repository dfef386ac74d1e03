// The verdict: each node's measurements held to its GPU's reference figures, in one line.
#include "derived/Verdict.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cases/CollectiveCase.hpp"
#include "cases/MatmulCase.hpp"
#include "cases/MembwCase.hpp"
#include "collect/SampleCodec.hpp"
#include "derived/Analyses.hpp"
#include "derived/ReferenceFigures.hpp"

namespace splitstep {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

// Two ranks on node "vm", each on an H200, joined by NVLink.
std::vector<RankInfo> h200Ranks(int count = 2) {
  std::vector<RankInfo> ranks;
  for (int r = 0; r < count; ++r) {
    RankInfo& info = ranks.emplace_back();
    info.rank = r;
    info.host = "vm";
    info.local_rank = r;
    info.device = "cuda:" + std::to_string(r);
    info.device_name = "NVIDIA H200";
    info.uuid = "GPU-" + std::to_string(r);
  }
  for (RankInfo& a : ranks) {
    for (const RankInfo& b : ranks) {
      if (a.rank != b.rank) a.gpu_links[b.uuid] = "NVLink";
    }
  }
  return ranks;
}

// A sample whose median rate is `rate` (amount `amount` per loop, in units of `scale`).
Sample timed(std::string suite, std::string name, CaseFields fields, std::string rate_name,
             double amount, double scale, double rate) {
  Sample s;
  s.suite = std::move(suite);
  s.case_name = std::move(name);
  s.series = s.suite;
  s.fields = std::move(fields);
  s.rates = {{std::move(rate_name), amount, scale}};
  s.measurement.values.assign(3, amount / scale / rate);
  return s;
}

Sample gemm(double tflops, std::int64_t n = 8192) {
  const double flop = 2.0 * static_cast<double>(n * n * n);
  return timed("matmul", "bf16 n=" + std::to_string(n),
               MatmulCase{MatmulDtype::Bf16, {n, n, n}, {}}.encode(), "TFLOP/s", flop, 1e12,
               tflops);
}

Sample membw(const std::string& kind, double gbps) {
  const std::uint64_t bytes = 256ull << 20;
  return timed("membw", kind + " 256 MiB", MembwCase{kind, bytes}.encode(), "GB/s",
               static_cast<double>(bytes) * (kind == "triad" ? 3 : 1), 1e9, gbps);
}

Sample allreduce(double busbw, double bytes, int ranks) {
  CollectiveCase c{"nccl",
                   "allreduce",
                   CollectiveDtype::Fp32,
                   Placement::OutOfPlace,
                   static_cast<std::uint64_t>(bytes),
                   static_cast<std::uint64_t>(bytes),
                   static_cast<std::uint64_t>(bytes / 4),
                   BufferKind::Device,
                   std::nullopt};
  Sample s = timed("allreduce", "nccl fp32", c.encode(), "busbw GB/s",
                   bytes * 2.0 * (ranks - 1) / ranks, 1e9, busbw);
  if (ranks == 1) s.rates.clear();  // one rank: no busbw, as CollectiveSuite leaves it
  return s;
}

// Every item healthy on both ranks.
std::vector<Sample> healthySamples() {
  return {gemm(760), membw("triad", 4000), membw("h2d pinned", 55), membw("d2h pinned", 54),
          allreduce(344, 4 * kGiB, 2)};
}

std::vector<DerivedResult> verdictOf(const std::vector<std::vector<Sample>>& by_rank,
                                     const std::vector<RankInfo>& ranks) {
  return deriveVerdict(judgeNodes(summarizeCases(by_rank), ranks), ranks);
}

const DerivedFigure* figure(const DerivedResult& d, const std::string& tag) {
  for (const DerivedFigure& f : d.figures) {
    if (f.tag == tag) return &f;
  }
  return nullptr;
}

TEST(VerdictTest, HealthyNodeInOneLineWithEachRatio) {
  const auto results = verdictOf({healthySamples(), healthySamples()}, h200Ranks());
  ASSERT_EQ(results.size(), 1u);
  const DerivedResult& d = results[0];
  EXPECT_EQ(d.findings.size(), 1u) << "every item judged: nothing more to say";
  EXPECT_EQ(d.suite, "verdict");
  EXPECT_EQ(d.subject, "node vm");
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings[0],
            "node vm: healthy (each at least 80% of expected) — bf16 GEMM 760 TFLOP/s (95% "
            "of expected), HBM 4.00 TB/s (99%), host<->device 54.0 GB/s (102%), allreduce busbw "
            "344 GB/s (93%); expected figures of an NVIDIA H100 80GB HBM3");
  const DerivedFigure* measured = figure(d, "verdict/gemm-bf16/measured");
  const DerivedFigure* expected = figure(d, "verdict/gemm-bf16/expected");
  const DerivedFigure* ratio = figure(d, "verdict/gemm-bf16/ratio");
  ASSERT_TRUE(measured && expected && ratio);
  EXPECT_NEAR(measured->value, 760, 1e-6);
  // Typed: the item, the figure, the case judged, its family and the dtype of the matmul cases
  // beside it.
  const TypedFields key = {{"figure", typedName("verdict/measured")},
                           {"item", typedName("gemm-bf16")},
                           {"case", typedName("bf16 n=8192")},
                           {"family", typedName("matmul")},
                           {"dtype", typedName("bf16")}};
  EXPECT_EQ(measured->key, key);
  EXPECT_EQ(measured->per_rank.size(), 2u);
  EXPECT_DOUBLE_EQ(expected->value, findReference("NVIDIA H200")->gemm_bf16.expected);
  EXPECT_NE(expected->note.find("https://"), std::string::npos);
  EXPECT_NEAR(ratio->value, 100 * 760 / expected->value, 1e-6);
  EXPECT_EQ(ratio->unit, "%");
  EXPECT_NEAR(figure(d, "verdict/allreduce-busbw/measured")->value, 344, 1e-6);
  EXPECT_DOUBLE_EQ(figure(d, "verdict/allreduce-busbw/expected")->value, 370);
}

TEST(VerdictTest, NamesTheSlowItemItsRankAndHowFarShort) {
  std::vector<Sample> slow = healthySamples();
  slow[1] = membw("triad", 2000);  // rank 1's HBM at half its expected bandwidth
  const auto results = verdictOf({healthySamples(), slow}, h200Ranks());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(
      results[0].findings[0],
      "node vm: below expected (under 80%) — HBM 2.00 TB/s on rank 1 (cuda:1) is 50% of "
      "the expected 4.03 TB/s (50% short), bf16 GEMM 760 TFLOP/s (95% of expected), "
      "host<->device 54.0 GB/s (102%), allreduce busbw 344 GB/s (93%); expected figures of an "
      "NVIDIA H100 80GB HBM3");
  const DerivedFigure* ratio = figure(results[0], "verdict/hbm-triad/ratio");
  ASSERT_NE(ratio, nullptr);
  EXPECT_NEAR(ratio->value, 100 * 2000 / (4800 * 0.84), 1e-6);
  EXPECT_NE(ratio->note.find("below expected"), std::string::npos);
  EXPECT_FALSE(judgeNodes(summarizeCases({healthySamples(), slow}), h200Ranks())[0].healthy());
}

TEST(VerdictTest, SaysWhatHeldTheClockDownAndWhoseFigureIsExpected) {
  Sample capped = gemm(673, 4096);
  capped.measurement.clock_at_end = SmClock{1755, 1980, "power cap"};
  const auto results = verdictOf({{capped}}, h200Ranks(1));
  EXPECT_EQ(results[0].findings[0],
            "node vm: healthy (each at least 80% of expected) — bf16 GEMM 673 TFLOP/s (84% "
            "of expected, clock: power cap); expected figures of an NVIDIA H100 80GB HBM3");
  // Below expected under the cap: the reason stands beside how far short it is.
  capped = gemm(400, 4096);
  capped.measurement.clock_at_start = SmClock{1200, 1980, "thermal"};
  EXPECT_NE(verdictOf({{capped}}, h200Ranks(1))[0].findings[0].find(
                "is 50% of the expected 798 TFLOP/s (50% short, clock: thermal)"),
            std::string::npos);
  // An H100 is held to H100 figures: nothing borrowed to say.
  std::vector<RankInfo> h100 = h200Ranks(1);
  h100[0].device_name = "NVIDIA H100 80GB HBM3";
  EXPECT_EQ(verdictOf({{gemm(760)}}, h100)[0].findings[0],
            "node vm: healthy (each at least 80% of expected) — bf16 GEMM 760 TFLOP/s (95% "
            "of expected)");
}

TEST(VerdictTest, BelowExpectedStartsUnderEightyPercent) {
  ItemVerdict item;
  item.expected = 800;
  item.measured = 0.81 * 800;
  EXPECT_FALSE(item.below());
  item.measured = 0.79 * 800;
  EXPECT_TRUE(item.below());
}

TEST(VerdictTest, ACpuRunHasNoReferenceAndSaysSo) {
  std::vector<RankInfo> ranks = h200Ranks(1);
  ranks[0].device = "cpu";
  ranks[0].device_name = "cpu";
  const auto results = verdictOf({{gemm(1.5, 1024), membw("triad", 20)}}, ranks);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].findings[0], "node vm: no reference figures for cpu: not judged");
  EXPECT_EQ(results[0].findings.at(1),
            "the reference table has NVIDIA H200, NVIDIA H100 80GB HBM3");
  EXPECT_TRUE(results[0].figures.empty());
  EXPECT_EQ(judgeNodes(summarizeCases({{gemm(1.5, 1024)}}), ranks)[0].items[0].not_judged,
            "no reference figures for this GPU");
}

TEST(VerdictTest, APartialRunJudgesWhatItMeasuredAndNamesTheRest) {
  const auto matmul_only = verdictOf({{gemm(760)}}, h200Ranks(1));
  EXPECT_EQ(matmul_only[0].findings[0],
            "node vm: healthy (each at least 80% of expected) — bf16 GEMM 760 TFLOP/s (95% "
            "of expected); expected figures of an NVIDIA H100 80GB HBM3");
  EXPECT_EQ(matmul_only[0].findings.at(1),
            "not judged: HBM (no membw triad case), host<->device (no pinned h2d/d2h case), "
            "allreduce busbw (no NCCL allreduce case)");
  EXPECT_EQ(figure(matmul_only[0], "verdict/hbm-triad/measured"), nullptr);

  const auto one_gpu = verdictOf({{allreduce(0, 4 * kGiB, 1)}}, h200Ranks(1));
  EXPECT_EQ(one_gpu[0].findings[0], "node vm: NVIDIA H200, nothing judged");
  EXPECT_EQ(one_gpu[0].findings.at(1),
            "not judged: bf16 GEMM (no bf16 matmul case), HBM (no membw triad case), "
            "host<->device (no pinned h2d/d2h case), allreduce busbw (one GPU)");
  EXPECT_FALSE(
      judgeNodes(summarizeCases({{allreduce(0, 4 * kGiB, 1)}}), h200Ranks(1))[0].healthy());

  const std::vector<Sample> small = {allreduce(250, 64 << 20, 2)};
  const auto small_sizes = judgeNodes(summarizeCases({small, small}), h200Ranks());
  EXPECT_EQ(small_sizes[0].items[3].not_judged,
            "largest size 64 MiB, under the 1 GiB of busbw's plateau");
}

TEST(VerdictTest, AllreduceOverPcieOrAcrossNodesIsNotJudged) {
  const std::vector<Sample> ar = {allreduce(40, 4 * kGiB, 2)};
  std::vector<RankInfo> pcie = h200Ranks();
  pcie[0].gpu_links["GPU-1"] = "PIX";
  EXPECT_EQ(judgeNodes(summarizeCases({ar, ar}), pcie)[0].items[3].not_judged,
            "GPUs joined by PIX, not NVLink");

  std::vector<RankInfo> two_nodes = h200Ranks();
  two_nodes[1].host = "vm2";
  two_nodes[1].node_index = 1;
  const auto nodes = judgeNodes(summarizeCases({ar, ar}), two_nodes);
  ASSERT_EQ(nodes.size(), 2u);
  for (const NodeVerdict& node : nodes) {
    EXPECT_EQ(node.items[3].not_judged, "it crosses nodes: no network figures");
  }
}

TEST(VerdictTest, EachNodeHasItsOwnVerdict) {
  std::vector<RankInfo> ranks = h200Ranks();
  ranks[1].host = "slow";
  ranks[1].node_index = 1;
  const auto results = verdictOf({{gemm(760)}, {gemm(400)}}, ranks);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].subject, "node vm");
  EXPECT_TRUE(results[0].findings[0].starts_with(
      "node vm: healthy (each at least 80% of expected) — bf16 GEMM 760 TFLOP/s"));
  EXPECT_TRUE(results[1].findings[0].starts_with(
      "node slow: below expected (under 80%) — bf16 GEMM 400 TFLOP/s on rank 1 (cuda:1) is 50% "
      "of the expected 798 TFLOP/s (50% short)"));
}

TEST(VerdictTest, RunsAmongTheAnalysesOfEveryRun) {
  const std::vector<CaseResult> cases = summarizeCases({{gemm(760)}});
  const std::vector<RankInfo> ranks = h200Ranks(1);
  const ProjectionPlan projection;
  const auto all = deriveAll({cases, ranks, projection, judgeNodes(cases, ranks)});
  EXPECT_TRUE(std::any_of(all.begin(), all.end(),
                          [](const DerivedResult& d) { return d.suite == "verdict"; }));
}

TEST(VerdictTest, EveryReferenceFigureCitesItsSource) {
  for (const GpuReference& gpu : referenceGpus()) {
    for (const ReferenceFigure& f : {gpu.gemm_bf16, gpu.hbm_triad, gpu.host_device}) {
      EXPECT_GT(f.expected, 0) << gpu.gpu;
      EXPECT_LE(f.expected, f.peak) << gpu.gpu;
      EXPECT_NE(f.peak_source.find("https://"), std::string::npos) << gpu.gpu;
      EXPECT_NE(f.expected_source.find("https://"), std::string::npos) << gpu.gpu;
    }
    for (const AllreduceReference& a : gpu.allreduce) {
      EXPECT_NE(a.ring.expected_source.find("https://"), std::string::npos) << a.gpus;
      if (a.nvls_busbw) {
        EXPECT_NE(a.nvls_source.find("https://"), std::string::npos) << a.gpus;
      }
    }
  }
}

// A results file's case fields, each read as the type the file's catalogue declares for it.
CaseFields typedFields(const nlohmann::json& results, const nlohmann::json& c) {
  CaseFields fields{c.at("family").get<std::string>(), {}};
  const nlohmann::json& specs =
      results.at("metadata").at("catalogue").at("families").at(fields.family).at("fields");
  for (const nlohmann::json& spec : specs) {
    const std::string name = spec.at("name").get<std::string>();
    if (!c.at("fields").contains(name)) continue;
    const auto type = enumFromString<FieldType>(spec.at("type").get<std::string>());
    EXPECT_TRUE(type.has_value()) << spec.dump();
    fields.values.emplace(name, fieldValue(type.value_or(FieldType::String), c["fields"][name]));
  }
  return fields;
}

// A committed results file's cases, rebuilt as their ranks' samples: each rank's values, and
// each rate's amount per loop from the case's rate at its median (rate = amount / median).
std::pair<std::vector<CaseResult>, std::vector<RankInfo>> committedRun(const std::string& path) {
  std::ifstream in(std::string(SPLITSTEP_RESULTS_DIR) + "/" + path);
  const nlohmann::json results = nlohmann::json::parse(in);
  const auto ranks = results.at("ranks").get<std::vector<RankInfo>>();
  std::vector<std::vector<Sample>> by_rank(ranks.size());
  for (const nlohmann::json& c : results.at("cases")) {
    for (const nlohmann::json& r : c.at("ranks")) {
      Sample s;
      s.suite = c.at("suite").get<std::string>();
      s.case_name = c.at("case").get<std::string>();
      s.series = c.at("series").get<std::string>();
      s.part_of = c.at("part_of").get<std::string>();
      s.fields = typedFields(results, c);
      const double median = c.at("across_ranks").at("median").get<double>();
      for (const auto& [name, value] : c.at("rates").items()) {
        s.rates.push_back({name, value.get<double>() * median, 1});
      }
      r.at("values").get_to(s.measurement.values);
      by_rank.at(r.at("rank").get<std::size_t>()).push_back(std::move(s));
    }
  }
  return {summarizeCases(by_rank), ranks};
}

TEST(VerdictTest, TheCommittedH200QuickRunsAreHealthy) {
  for (const char* path : {"2026-12-01-h200-typed-repeat/after/quick-1.json",
                           "2026-12-01-h200-typed-repeat/after/quick-2.json",
                           "2026-12-01-h200-typed-before-after/after/quick.json"}) {
    const auto [cases, ranks] = committedRun(path);
    const auto nodes = judgeNodes(cases, ranks);
    ASSERT_EQ(nodes.size(), 1u) << path;
    EXPECT_TRUE(nodes[0].healthy()) << path << ": " << nodes[0].line(ranks);
    for (int item = 0; item < 3; ++item) EXPECT_TRUE(nodes[0].items[item].measured) << path;
    EXPECT_EQ(nodes[0].items[3].not_judged, "one GPU") << path;
  }
}

}  // namespace
}  // namespace splitstep
