#include "derived/SweepBudget.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "common/Units.hpp"
#include "stats/MedianInterval.hpp"

namespace splitstep {
namespace {

bool stoppedOnBudget(const CaseResult& c) {
  return std::any_of(c.ranks.begin(), c.ranks.end(), [](const RankResult& r) {
    return r.measurement.stop_rule == StopRule::SweepTime;
  });
}

// The console's ±ci: the widest reach of a rank's interval from its median.
double widestReach(const CaseResult& c) {
  double reach = 0;
  for (const RankResult& r : c.ranks) {
    reach = std::max(reach, relativeReach(r.median_ci, r.summary.median));
  }
  return reach;
}

// A case costs the run the time its slowest rank sampled.
double longestSampling(const CaseResult& c) {
  double seconds = 0;
  for (const RankResult& r : c.ranks) seconds = std::max(seconds, r.measurement.wall.sampling);
  return seconds;
}

TypedFields figureKey(std::string_view figure, const std::string& suite) {
  return {{"figure", typedName(figure)}, {"suite", typedName(suite)}};
}

DerivedResult suiteBudget(const std::string& suite, const std::vector<const CaseResult*>& cases) {
  DerivedResult result;
  result.suite = suite;
  result.subject = "sweep budget";
  result.title = "what the sweep budget left uncertain";
  std::size_t stopped = 0;
  double sampling = 0;
  double widest = 0;
  double narrowest = 0;
  const CaseResult* widest_case = nullptr;
  for (const CaseResult* c : cases) {
    sampling += longestSampling(*c);
    if (!stoppedOnBudget(*c)) continue;
    const double reach = widestReach(*c);
    if (stopped == 0 || reach < narrowest) narrowest = reach;
    if (widest_case == nullptr || reach > widest) {
      widest = reach;
      widest_case = c;
    }
    ++stopped;
  }
  DerivedFigure& share =
      result.addFigure("sweep/budget/stopped", "cases stopped on the budget", "%",
                       100.0 * static_cast<double>(stopped) / static_cast<double>(cases.size()));
  share.note = fmt::format("{} of {}", stopped, cases.size());
  share.key = figureKey("sweep/budget/stopped", suite);
  DerivedFigure& time = result.addFigure("sweep/budget/sampling",
                                         "sampling, the longest rank of each case", "s", sampling);
  time.key = figureKey("sweep/budget/sampling", suite);
  DerivedFigure& reach = result.addFigure(
      "sweep/budget/widest", "widest ±ci of the cases it stopped", "%", 100.0 * widest);
  reach.note = widest_case->case_name;
  reach.key = figureKey("sweep/budget/widest", suite);
  result.findings.push_back(fmt::format(
      "{} of {} {} cases stopped on their share of --sweep-time, their ±ci {:.2f}% to {:.2f}% "
      "(widest: {}); where those cases matter, give the sweep more time or run them alone",
      stopped, cases.size(), suite, 100.0 * narrowest, 100.0 * widest, widest_case->case_name));
  result.notes.push_back(fmt::format(
      "the suite sampled for {} in all, each case on its longest rank", formatSeconds(sampling)));
  return result;
}

}  // namespace

std::vector<DerivedResult> deriveSweepBudget(const std::vector<CaseResult>& cases) {
  std::vector<std::string> suites;
  for (const CaseResult& c : cases) {
    if (stoppedOnBudget(c) && std::find(suites.begin(), suites.end(), c.suite) == suites.end()) {
      suites.push_back(c.suite);
    }
  }
  std::vector<DerivedResult> results;
  for (const std::string& suite : suites) {
    std::vector<const CaseResult*> whole;
    for (const CaseResult& c : cases) {
      if (c.suite == suite && !c.skipped() && c.part_of.empty() && !c.detail) whole.push_back(&c);
    }
    results.push_back(suiteBudget(suite, whole));
  }
  return results;
}

}  // namespace splitstep
