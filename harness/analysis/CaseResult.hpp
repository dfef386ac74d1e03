// Rank 0's view of one case: per-rank statistics, the spread across ranks, derived rates.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "measure/Sample.hpp"
#include "stats/Statistics.hpp"

namespace splitstep {

struct RankResult {
  int rank = 0;
  Summary summary;
  std::vector<double> values;
  std::vector<Check> checks;
};

struct RateValue {
  std::string name;
  double value = 0;
};

struct CaseResult {
  std::string suite;
  std::string case_name;
  std::string series;
  std::string unit;
  std::string clock;
  std::map<std::string, std::string> params;
  std::vector<std::string> notes;
  std::vector<RankResult> ranks;  // ranks that measured the case, by rank
  Summary across;                 // of the per-rank medians
  int slowest_rank = -1;          // highest per-rank median; -1 when no rank measured the case
  std::vector<RateValue> rates;   // at the median of the per-rank medians
  std::uint64_t checked = 0;      // over all ranks and checks
  std::uint64_t wrong = 0;

  bool skipped() const { return ranks.empty(); }
};

// `by_rank[r]` holds rank r's samples. Cases appear in rank 0's order; a case is matched across
// ranks by (suite, case, series). Ranks with no values for a case (skipped there) are left out.
std::vector<CaseResult> summarizeCases(const std::vector<std::vector<Sample>>& by_rank);

}  // namespace splitstep
