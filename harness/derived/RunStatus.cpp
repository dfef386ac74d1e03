#include "derived/RunStatus.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace splitstep {
namespace {

std::string hostOf(int rank, const std::vector<RankInfo>& ranks) {
  const RankInfo* info = infoOf(rank, ranks);
  return info ? "host " + info->host : std::string("host unknown");
}

// "rank 1 (host b) 1 of 262144", for each rank of the case whose checks found wrong elements.
std::vector<std::string> wrongRanks(const CaseResult& c, const std::vector<RankInfo>& ranks) {
  std::vector<std::string> found;
  for (const RankResult& r : c.ranks) {
    std::uint64_t checked = 0;
    std::uint64_t wrong = 0;
    for (const Check& check : r.checks) {
      checked += check.checked;
      wrong += check.wrong;
    }
    if (wrong > 0) {
      found.push_back(
          fmt::format("rank {} ({}) {} of {}", r.rank, hostOf(r.rank, ranks), wrong, checked));
    }
  }
  return found;
}

}  // namespace

RunStatus judgeRun(const std::vector<CaseResult>& cases, const std::vector<NodeVerdict>& verdicts,
                   const std::vector<RankInfo>& ranks, bool fail_below_expected) {
  RunStatus run;
  for (const CaseResult& c : cases) {
    const std::vector<std::string> found = wrongRanks(c, ranks);
    if (found.empty()) continue;
    run.reasons.push_back(fmt::format("wrong results: {} {}: {} elements wrong", c.suite,
                                      c.case_name, fmt::join(found, ", ")));
    run.status = kWrongResultsStatus;
  }
  if (!fail_below_expected) return run;
  for (const NodeVerdict& node : verdicts) {
    if (std::none_of(node.items.begin(), node.items.end(),
                     [](const ItemVerdict& i) { return i.below(); })) {
      continue;
    }
    run.reasons.push_back(fmt::format("--fail-below-expected: {}", node.line(ranks)));
    if (run.status == 0) run.status = kBelowExpectedStatus;
  }
  return run;
}

}  // namespace splitstep
