#include "derived/CollectiveAnalysis.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cases/CollectiveCase.hpp"
#include "cases/MatmulCase.hpp"
#include "cases/StepCase.hpp"
#include "derived/StepProjection.hpp"

namespace splitstep {
namespace {

constexpr double kAlpha = 10e-6;
constexpr double kBandwidth = 300e9;
constexpr double kGiB = 1ull << 30;

// A case measured on `ranks` ranks whose median across ranks is `seconds`.
// A collective case of `suite` on NCCL or MPI, fp32, of `bytes`.
CaseFields collective(const std::string& suite, const std::string& backend, std::uint64_t bytes,
                      Placement placement = Placement::OutOfPlace) {
  return CollectiveCase{backend, suite,     CollectiveDtype::Fp32, placement, bytes,
                        bytes,   bytes / 4, BufferKind::Device,    {}}
      .encode();
}

CaseResult measured(std::string suite, std::string series, CaseFields fields, double seconds,
                    int ranks) {
  CaseResult c;
  c.suite = std::move(suite);
  c.case_name = "case";
  c.series = std::move(series);
  c.fields = std::move(fields);
  for (int r = 0; r < ranks; ++r) c.ranks.emplace_back().rank = r;
  c.across.median = seconds;
  return c;
}

// A sweep 16 B .. 1 GiB (x4) of time alpha + bytes / bandwidth.
std::vector<CaseResult> sweep(const std::string& suite, const std::string& backend,
                              Placement placement, int ranks, double alpha = kAlpha,
                              double bandwidth = kBandwidth) {
  std::vector<CaseResult> cases;
  for (double b = 16; b <= kGiB; b *= 4) {
    cases.push_back(measured(suite, suite,
                             collective(suite, backend, static_cast<std::uint64_t>(b), placement),
                             alpha + b / bandwidth, ranks));
  }
  return cases;
}

ProjectionPlan plan() {
  ProjectionPlan p;
  p.ranks = {2, 8, 16};
  p.gpus_per_node = 8;
  p.internode_bandwidth = 50e9;
  p.internode_latency = 5e-6;
  return p;
}

const DerivedFigure* figure(const DerivedResult& d, const std::string& tag) {
  const auto it = std::find_if(d.figures.begin(), d.figures.end(),
                               [&tag](const DerivedFigure& f) { return f.tag == tag; });
  return it == d.figures.end() ? nullptr : &*it;
}

TEST(CollectiveAnalysis, FitsEachSweepAndSaysWhereTheModelHolds) {
  const auto results =
      deriveCollectiveFigures(sweep("allreduce", "nccl", Placement::OutOfPlace, 2), plan());
  ASSERT_EQ(results.size(), 1u);
  const DerivedResult& d = results[0];
  EXPECT_EQ(d.suite, "allreduce");
  EXPECT_EQ(d.subject, "nccl fp32");
  const std::string fit = "collective/fit/allreduce/nccl/fp32/out";
  ASSERT_NE(figure(d, fit + "/1/alpha"), nullptr);
  EXPECT_NEAR(figure(d, fit + "/1/alpha")->value / kAlpha, 1, 1e-6);
  EXPECT_EQ(figure(d, fit + "/1/alpha")->unit, "s");
  ASSERT_NE(figure(d, fit + "/1/bandwidth"), nullptr);
  EXPECT_NEAR(figure(d, fit + "/1/bandwidth")->value, 300, 1e-4);
  EXPECT_EQ(figure(d, fit + "/1/bandwidth")->unit, "GB/s");
  // Two ranks: the allreduce's bus factor is 1.
  EXPECT_EQ(figure(d, fit + "/1/bandwidth")->note, "busbw 300.0 GB/s");
  EXPECT_EQ(figure(d, fit + "/breakpoint/1"), nullptr);  // one segment
  EXPECT_NEAR(figure(d, fit + "/r2")->value, 100, 1e-6);
  EXPECT_EQ(figure(d, fit + "/valid_from")->value, 16);
  EXPECT_EQ(figure(d, fit + "/valid_from")->unit, "B");
  EXPECT_EQ(figure(d, fit + "/valid_to")->value, kGiB);
}

TEST(CollectiveAnalysis, ProjectsToEachRankCountWithinAndAcrossNodes) {
  const auto results =
      deriveCollectiveFigures(sweep("allreduce", "nccl", Placement::OutOfPlace, 2), plan());
  ASSERT_EQ(results.size(), 1u);
  const DerivedResult& d = results[0];
  const std::string at = "collective/projection/allreduce/nccl/fp32/out/N=";
  // At the measured rank count: the model itself.
  ASSERT_NE(figure(d, at + "2/time"), nullptr);
  EXPECT_NEAR(figure(d, at + "2/time")->value / (kAlpha + kGiB / kBandwidth), 1, 1e-6);
  // Eight ranks in one node, ring: 14 x alpha/2 + 2 x 7/8 x bytes / bandwidth.
  const double ring8 = 14 * kAlpha / 2 + 1.75 * kGiB / kBandwidth;
  EXPECT_NEAR(figure(d, at + "8/time")->value / ring8, 1, 1e-6);
  EXPECT_EQ(figure(d, at + "8/time")->name, "N=8 (one node): time of 1 GiB");
  EXPECT_EQ(figure(d, at + "8/time")->note.substr(0, 11), "ring; tree ");
  EXPECT_NEAR(figure(d, at + "8/busbw")->value, kGiB * 1.75 / ring8 / 1e9, 1e-6);
  // Sixteen ranks on two nodes: the 50 GB/s network and its 5 us latency bound the ring.
  const double ring16 = 30 * 5e-6 + 2 * 15.0 / 16 * kGiB / 50e9;
  EXPECT_NEAR(figure(d, at + "16/time")->value / ring16, 1, 1e-6);
  EXPECT_EQ(figure(d, at + "16/time")->name, "N=16 (2 nodes): time of 1 GiB");
  // What the tag spells, typed, so that no reader takes the tag apart.
  const TypedFields key = {{"figure", typedName("collective/projection/time")},
                           {"collective", typedName("allreduce")},
                           {"backend", typedName("nccl")},
                           {"dtype", typedName("fp32")},
                           {"placement", typedName("out")},
                           {"ranks", typedInteger(16)}};
  EXPECT_EQ(figure(d, at + "16/time")->key, key);
  ASSERT_EQ(d.assumptions.size(), 3u);
  EXPECT_NE(d.assumptions[2].find("nodes of 8"), std::string::npos);
  EXPECT_NE(d.assumptions[2].find("50.0 GB/s"), std::string::npos);
}

TEST(CollectiveAnalysis, SaysWhenTheModelMissesTheSizeItProjects) {
  EXPECT_TRUE(
      deriveCollectiveFigures(sweep("allreduce", "nccl", Placement::OutOfPlace, 2), plan())[0]
          .findings.empty());
  std::vector<CaseResult> cases = sweep("allreduce", "nccl", Placement::OutOfPlace, 2);
  cases.back().across.median *= 2;  // 1 GiB twice as slow as the line through the rest
  const auto results = deriveCollectiveFigures(cases, plan());
  ASSERT_EQ(results[0].findings.size(), 1u);
  EXPECT_EQ(results[0].findings[0],
            "the model misses the largest size, 1 GiB, by 50%: the projections of it carry that "
            "error");
}

TEST(CollectiveAnalysis, OneRankFitsButDoesNotProject) {
  const auto results =
      deriveCollectiveFigures(sweep("allreduce", "nccl", Placement::OutOfPlace, 1), plan());
  ASSERT_EQ(results.size(), 1u);
  const DerivedResult& d = results[0];
  EXPECT_NE(figure(d, "collective/fit/allreduce/nccl/fp32/out/1/alpha"), nullptr);
  // No bus bandwidth on one rank, and nothing projected.
  EXPECT_EQ(figure(d, "collective/fit/allreduce/nccl/fp32/out/1/bandwidth")->note, "");
  for (const DerivedFigure& f : d.figures) {
    EXPECT_EQ(f.tag.find("collective/projection"), std::string::npos) << f.tag;
  }
  ASSERT_EQ(d.assumptions.size(), 1u);
  EXPECT_NE(d.assumptions[0].find("one rank"), std::string::npos);
}

TEST(CollectiveAnalysis, SweepsAreSeparateByCollectiveBackendAndPlacement) {
  std::vector<CaseResult> cases = sweep("allreduce", "nccl", Placement::OutOfPlace, 2);
  for (const auto& more : {sweep("allreduce", "nccl", Placement::InPlace, 2),
                           sweep("allreduce", "mpi", Placement::OutOfPlace, 2, 1e-6, 5e9),
                           sweep("alltoall", "nccl", Placement::OutOfPlace, 2)}) {
    cases.insert(cases.end(), more.begin(), more.end());
  }
  // Two sizes are too few to fit; a skipped case and a non-collective suite are left out.
  cases.push_back(measured("broadcast", "broadcast", collective("broadcast", "nccl", 8), 1e-5, 2));
  cases.push_back(measured("broadcast", "broadcast", collective("broadcast", "nccl", 64), 1e-5, 2));
  cases.push_back(measured("allreduce", "allreduce", collective("allreduce", "nccl", 16), 1, 0));
  cases.push_back(
      measured("matmul", "matmul", MatmulCase{MatmulDtype::Fp32, {16, 16, 16}, {}}.encode(), 1, 2));
  const auto results = deriveCollectiveFigures(cases, plan());
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[1].subject, "nccl fp32 in place");
  EXPECT_EQ(results[2].subject, "mpi fp32");
  EXPECT_NEAR(figure(results[2], "collective/fit/allreduce/mpi/fp32/out/1/bandwidth")->value, 5,
              1e-6);
  EXPECT_EQ(results[3].suite, "alltoall");
  // Alltoall's one algorithm: direct, (n - 1) x alpha + (n - 1)/n x bytes x beta; at two
  // ranks alpha is the link's and beta a half of the link's.
  const double direct8 = 7 * kAlpha + 7.0 / 8 * kGiB / (kBandwidth / 2);
  EXPECT_NEAR(
      figure(results[3], "collective/projection/alltoall/nccl/fp32/out/N=8/time")->value / direct8,
      1, 1e-6);
  EXPECT_EQ(figure(results[3], "collective/projection/alltoall/nccl/fp32/out/N=8/time")->note,
            "direct");
}

// The step suite's cases of one workload as the step analysis reads them.
std::vector<CaseResult> stepCases(int ranks, const IntegerList& buckets) {
  auto params = [&](SyncMode mode) {
    StepCase c;
    c.model = "mlp";
    c.precision = StepPrecision::Bf16;
    c.mode = mode;
    c.world_size = ranks;
    if (mode == SyncMode::Sequential || mode == SyncMode::Overlap) {
      c.buckets = StepBuckets{static_cast<std::int64_t>(buckets.size()), 0, buckets};
    }
    return c.encode();
  };
  std::vector<CaseResult> cases = {
      measured("step", "backward", params(SyncMode::None), 25e-3, ranks),
      measured("step", "step", params(SyncMode::None), 40e-3, ranks),
      measured("step", "step", params(SyncMode::Sequential), 46e-3, ranks),
      measured("step", "step", params(SyncMode::Overlap), 41e-3, ranks)};
  cases[0].part_of = "step";
  return cases;
}

TEST(CollectiveAnalysis, PredictsTheMeasuredStepFromTheAllreduceModelAndProjectsIt) {
  std::vector<CaseResult> cases = stepCases(2, {1048576, 268435456, 268435456});
  // The step reduces in place: that sweep (20 us) wins over out of place (10 us) and MPI.
  for (const auto& more : {sweep("allreduce", "nccl", Placement::OutOfPlace, 2),
                           sweep("allreduce", "nccl", Placement::InPlace, 2, 20e-6),
                           sweep("allreduce", "mpi", Placement::InPlace, 2, 1e-6, 5e9)}) {
    cases.insert(cases.end(), more.begin(), more.end());
  }
  const auto results = deriveStepProjection(cases, plan());
  ASSERT_EQ(results.size(), 1u);
  const DerivedResult& d = results[0];
  EXPECT_EQ(d.suite, "step");
  EXPECT_EQ(d.subject, "mlp bf16");
  const std::vector<double> bytes = {1048576, 268435456, 268435456};
  std::vector<double> seconds;
  for (double b : bytes) seconds.push_back(20e-6 + b / kBandwidth);
  const double t_seq = 40e-3 + seconds[0] + seconds[1] + seconds[2];
  ASSERT_NE(figure(d, "step/projection/check/T_seq"), nullptr);
  EXPECT_NEAR(figure(d, "step/projection/check/T_seq")->value / t_seq, 1, 1e-6);
  EXPECT_EQ(figure(d, "step/projection/check/T_seq")->note, "measured 46.00 ms");
  EXPECT_NEAR(figure(d, "step/projection/check/T_seq_ratio")->value, t_seq / 46e-3 * 100, 1e-6);
  const double t_ddp = overlappedStepTime(40e-3, 25e-3, bytes, seconds);
  EXPECT_NEAR(figure(d, "step/projection/check/T_ddp")->value / t_ddp, 1, 1e-6);
  EXPECT_NEAR(figure(d, "step/projection/check/T_ddp_ratio")->value, t_ddp / 41e-3 * 100, 1e-6);
  // Eight ranks: each bucket by the faster of ring and tree over the link the 2-rank fit
  // implies (10 us, 300 GB/s): the tree for 1 MiB, the ring for 256 MiB.
  double t_seq8 = 40e-3;
  for (double b : bytes) {
    t_seq8 += std::min(14 * 10e-6 + 1.75 * b / kBandwidth, 6 * 10e-6 + 2 * b / kBandwidth);
  }
  ASSERT_NE(figure(d, "step/projection/N=8/T_seq"), nullptr);
  EXPECT_NEAR(figure(d, "step/projection/N=8/T_seq")->value / t_seq8, 1, 1e-6);
  ASSERT_NE(figure(d, "step/projection/N=16/T_ddp"), nullptr);
  // Typed: the rank count and the mode of the measured step time it stands beside.
  const TypedFields key = {{"figure", typedName("step/projection")},
                           {"ranks", typedInteger(16)},
                           {"mode", typedName("overlap")}};
  EXPECT_EQ(figure(d, "step/projection/N=16/T_ddp")->key, key);
  EXPECT_NE(d.assumptions[1].find("nccl fp32 in-place allreduce"), std::string::npos);
}

TEST(CollectiveAnalysis, TheStepIsCheckedButNotProjectedFromOneRank) {
  std::vector<CaseResult> cases = stepCases(1, {4096, 8192});
  const auto ar = sweep("allreduce", "nccl", Placement::OutOfPlace, 1);
  cases.insert(cases.end(), ar.begin(), ar.end());
  const auto results = deriveStepProjection(cases, plan());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_NE(figure(results[0], "step/projection/check/T_seq_ratio"), nullptr);
  EXPECT_EQ(figure(results[0], "step/projection/N=8/T_seq"), nullptr);
  EXPECT_NE(results[0].assumptions[0].find("one rank"), std::string::npos);
}

TEST(CollectiveAnalysis, NoStepProjectionWithoutAnAllreduceSweepOrBuckets) {
  EXPECT_TRUE(deriveStepProjection(stepCases(2, {4096}), plan()).empty());
  std::vector<CaseResult> no_buckets = stepCases(2, {});
  const auto ar = sweep("allreduce", "nccl", Placement::OutOfPlace, 2);
  no_buckets.insert(no_buckets.end(), ar.begin(), ar.end());
  EXPECT_TRUE(deriveStepProjection(no_buckets, plan()).empty());
}

}  // namespace
}  // namespace splitstep
