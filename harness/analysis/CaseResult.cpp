#include "analysis/CaseResult.hpp"

#include <algorithm>
#include <set>
#include <tuple>

namespace splitstep {
namespace {

using CaseKey = std::tuple<std::string, std::string, std::string>;

CaseKey keyOf(const Sample& sample) { return {sample.suite, sample.case_name, sample.series}; }

CaseResult startCase(const Sample& sample) {
  CaseResult result;
  result.suite = sample.suite;
  result.case_name = sample.case_name;
  result.series = sample.series;
  result.unit = sample.unit;
  result.clock = sample.clock;
  result.params = sample.params;
  return result;
}

void finishCase(CaseResult& result, const std::vector<Rate>& rates) {
  if (result.ranks.empty()) return;
  std::vector<double> medians;
  for (const RankResult& rank : result.ranks) medians.push_back(rank.summary.median);
  result.across = summarize(medians);
  const auto slowest = std::max_element(
      result.ranks.begin(), result.ranks.end(),
      [](const RankResult& a, const RankResult& b) { return a.summary.median < b.summary.median; });
  result.slowest_rank = slowest->rank;
  for (const Rate& rate : rates) {
    if (result.across.median > 0) {
      result.rates.push_back({rate.name, rate.amount_per_loop / result.across.median / rate.scale});
    }
  }
}

}  // namespace

std::vector<CaseResult> summarizeCases(const std::vector<std::vector<Sample>>& by_rank) {
  std::vector<CaseResult> results;
  if (by_rank.empty()) return results;
  std::set<CaseKey> seen;
  for (const Sample& first : by_rank.front()) {
    const CaseKey key = keyOf(first);
    if (!seen.insert(key).second) continue;
    CaseResult result = startCase(first);
    std::vector<Rate> rates;
    std::set<std::string> notes;
    for (std::size_t r = 0; r < by_rank.size(); ++r) {
      const auto match = std::find_if(by_rank[r].begin(), by_rank[r].end(),
                                      [&key](const Sample& s) { return keyOf(s) == key; });
      if (match == by_rank[r].end()) continue;
      for (const std::string& note : match->notes) {
        if (notes.insert(note).second) result.notes.push_back(note);
      }
      if (match->values.empty()) continue;
      if (rates.empty()) rates = match->rates;
      RankResult& rank = result.ranks.emplace_back();
      rank.rank = static_cast<int>(r);
      rank.values = match->values;
      rank.summary = summarize(match->values);
      rank.checks = match->checks;
      for (const Check& check : match->checks) {
        result.checked += check.checked;
        result.wrong += check.wrong;
      }
    }
    finishCase(result, rates);
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace splitstep
