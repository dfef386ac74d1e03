// What a sweep budget left uncertain: the cases it stopped, the time the suite sampled and the
// widest interval among those it stopped, per suite, and nothing where it stopped none.
#include "derived/SweepBudget.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

struct RankSpec {
  StopRule rule;
  double sampling;  // s
  double reach;     // of the median's interval, relative: its high end; its low end half that
};

CaseResult measured(const std::string& suite, const std::string& name,
                    const std::vector<RankSpec>& ranks) {
  CaseResult c;
  c.suite = suite;
  c.case_name = name;
  c.series = suite;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    RankResult& r = c.ranks.emplace_back();
    r.rank = static_cast<int>(i);
    r.summary.median = 4e-6;
    r.median_ci = {4e-6 * (1 - ranks[i].reach / 2), 4e-6 * (1 + ranks[i].reach), 0.95};
    r.measurement.stop_rule = ranks[i].rule;
    r.measurement.wall.sampling = ranks[i].sampling;
  }
  c.across.median = 4e-6;
  return c;
}

const DerivedFigure& figure(const DerivedResult& result, const std::string& tag) {
  for (const DerivedFigure& f : result.figures) {
    if (f.tag == tag) return f;
  }
  ADD_FAILURE() << "no figure " << tag;
  return result.figures.front();
}

TEST(SweepBudget, NothingWhereTheBudgetStoppedNoCase) {
  EXPECT_TRUE(
      deriveSweepBudget({measured("allreduce", "8 B", {{StopRule::Converged, 0.1, 0.004}}),
                         measured("allreduce", "16 B", {{StopRule::NoiseTarget, 0.1, 0.001}})})
          .empty());
}

TEST(SweepBudget, TheCasesItStoppedTheSuitesSamplingAndTheWidestInterval) {
  // A case counts as stopped where any rank was; it costs the run its longest rank's sampling.
  const std::vector<CaseResult> cases = {
      measured("allreduce", "8 B",
               {{StopRule::SweepTime, 0.10, 0.02}, {StopRule::SweepTime, 0.11, 0.03}}),
      measured("allreduce", "1 MiB",
               {{StopRule::Converged, 0.05, 0.004}, {StopRule::SweepTime, 0.10, 0.045}}),
      measured("allreduce", "16 MiB",
               {{StopRule::SweepTime, 0.09, 0.0007}, {StopRule::SweepTime, 0.09, 0.0006}}),
      measured("allreduce", "1 GiB",
               {{StopRule::NoiseTarget, 0.06, 0.0005}, {StopRule::NoiseTarget, 0.04, 0.0004}}),
  };
  const auto results = deriveSweepBudget(cases);
  ASSERT_EQ(results.size(), 1u);
  const DerivedResult& r = results.front();
  EXPECT_EQ(r.suite, "allreduce");
  const DerivedFigure& stopped = figure(r, "sweep/budget/stopped");
  EXPECT_DOUBLE_EQ(stopped.value, 75.0);
  EXPECT_EQ(stopped.note, "3 of 4");
  EXPECT_EQ(stopped.key, (TypedFields{{"figure", typedName("sweep/budget/stopped")},
                                      {"suite", typedName("allreduce")}}));
  EXPECT_NEAR(figure(r, "sweep/budget/sampling").value, 0.11 + 0.10 + 0.09 + 0.06, 1e-12);
  const DerivedFigure& widest = figure(r, "sweep/budget/widest");
  EXPECT_NEAR(widest.value, 4.5, 1e-9);  // 1 MiB's rank 1
  EXPECT_EQ(widest.note, "1 MiB");
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings.front(),
            "3 of 4 allreduce cases stopped on their share of --sweep-time, their ±ci 0.07% to "
            "4.50% (widest: 1 MiB); where those cases matter, give the sweep more time or run "
            "them alone");
}

TEST(SweepBudget, OneResultPerSuiteOfWholeMeasuredCases) {
  CaseResult part = measured("step", "mlp", {{StopRule::SweepTime, 0.0, 0.5}});
  part.part_of = "step";
  CaseResult skipped = measured("allgather", "8 B", {});
  const auto results =
      deriveSweepBudget({measured("allgather", "16 B", {{StopRule::SweepTime, 0.1, 0.01}}), skipped,
                         measured("allreduce", "8 B", {{StopRule::Converged, 0.1, 0.001}}), part,
                         measured("step", "mlp", {{StopRule::SweepTime, 0.2, 0.002}}),
                         measured("allreduce", "16 B", {{StopRule::SweepTime, 0.1, 0.003}})});
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].suite, "allgather");
  EXPECT_EQ(figure(results[0], "sweep/budget/stopped").note, "1 of 1");  // not the skipped one
  EXPECT_EQ(results[1].suite, "step");
  EXPECT_EQ(figure(results[1], "sweep/budget/stopped").note, "1 of 1");  // the part is not a case
  EXPECT_NEAR(figure(results[1], "sweep/budget/widest").value, 0.2, 1e-9);
  EXPECT_EQ(results[2].suite, "allreduce");
  EXPECT_EQ(figure(results[2], "sweep/budget/stopped").note, "1 of 2");
}

}  // namespace
}  // namespace splitstep
