// The exit status of a finished run: wrong elements fail it, a verdict below expected fails it
// where asked, with one line per case or node that says why.
#include "derived/RunStatus.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

std::vector<RankInfo> twoHosts() {
  std::vector<RankInfo> ranks(2);
  ranks[0].rank = 0;
  ranks[0].host = "a";
  ranks[1].rank = 1;
  ranks[1].host = "b";
  return ranks;
}

// A collective case checked on two ranks, with `wrong[r]` wrong elements of 1024 on rank r.
CaseResult checkedCase(std::string suite, std::string name, std::array<std::uint64_t, 2> wrong) {
  CaseResult c;
  c.suite = std::move(suite);
  c.case_name = std::move(name);
  for (int r = 0; r < 2; ++r) {
    RankResult& rank = c.ranks.emplace_back();
    rank.rank = r;
    rank.checks.push_back({"pattern", 1024, wrong[static_cast<std::size_t>(r)]});
  }
  return c;
}

NodeVerdict gemmAt(double measured) {
  NodeVerdict node;
  node.host = "a";
  node.gpu = "NVIDIA H200";
  node.has_reference = true;
  ItemVerdict& gemm = node.items.emplace_back();
  gemm.item = VerdictItem::GemmBf16;
  gemm.unit = "TFLOP/s";
  gemm.measured = measured;
  gemm.expected = 800;
  gemm.rank = 0;
  return node;
}

TEST(RunStatus, ARunWithNothingWrongPasses) {
  const RunStatus run = judgeRun({checkedCase("allreduce", "nccl fp32 1 KiB", {0, 0})},
                                 {gemmAt(700)}, twoHosts(), true);
  EXPECT_EQ(run.status, 0);
  EXPECT_TRUE(run.reasons.empty());
}

TEST(RunStatus, WrongElementsFailTheRunNamingTheCaseAndEachRank) {
  const RunStatus run = judgeRun({checkedCase("allreduce", "nccl fp32 1 KiB", {0, 3}),
                                  checkedCase("broadcast", "nccl fp32 1 KiB", {0, 0}),
                                  checkedCase("allgather", "mpi fp32 4 KiB", {1, 2})},
                                 {}, twoHosts(), false);
  EXPECT_EQ(run.status, kWrongResultsStatus);
  EXPECT_EQ(run.reasons,
            (std::vector<std::string>{
                "wrong results: allreduce nccl fp32 1 KiB: rank 1 (host b) 3 of 1024 elements "
                "wrong",
                "wrong results: allgather mpi fp32 4 KiB: rank 0 (host a) 1 of 1024, rank 1 (host "
                "b) 2 of 1024 elements wrong"}));
}

TEST(RunStatus, BelowExpectedFailsOnlyWhereAskedAndWithAStatusOfItsOwn) {
  // 600 of 800 TFLOP/s is 75%, under kBelowExpected.
  EXPECT_EQ(judgeRun({}, {gemmAt(600)}, twoHosts(), false).status, 0);
  const RunStatus asked = judgeRun({}, {gemmAt(600)}, twoHosts(), true);
  EXPECT_EQ(asked.status, kBelowExpectedStatus);
  ASSERT_EQ(asked.reasons.size(), 1U);
  EXPECT_EQ(asked.reasons[0].rfind(
                "--fail-below-expected: node a: below expected (under 80%) — bf16 GEMM", 0),
            0U)
      << asked.reasons[0];
  // At 80% and above the node is not below expected; a node not judged does not fail either.
  EXPECT_EQ(judgeRun({}, {gemmAt(640)}, twoHosts(), true).status, 0);
  NodeVerdict unjudged = gemmAt(600);
  unjudged.items[0].measured.reset();
  EXPECT_EQ(judgeRun({}, {unjudged}, twoHosts(), true).status, 0);
}

TEST(RunStatus, WrongResultsOutrankASlowNode) {
  const RunStatus run = judgeRun({checkedCase("allreduce", "nccl fp32 1 KiB", {2, 0})},
                                 {gemmAt(100)}, twoHosts(), true);
  EXPECT_EQ(run.status, kWrongResultsStatus);
  EXPECT_EQ(run.reasons.size(), 2U);
}

}  // namespace
}  // namespace splitstep
