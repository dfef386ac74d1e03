// The exit status a finished run earns from what it measured, for a job script or a node check:
// wrong elements fail it, as nccl-tests fails a run with #wrong, and a verdict below expected
// fails it where the user asked (--fail-below-expected).
#pragma once

#include <string>
#include <vector>

#include "derived/CaseResult.hpp"
#include "derived/Verdict.hpp"
#include "meta/RankInfo.hpp"

namespace splitstep {

// Some check found elements that differ from the expected value.
inline constexpr int kWrongResultsStatus = 1;
// Some verdict item is below expected, with --fail-below-expected: a status of its own, so that
// a node check can tell a slow node from a broken run.
inline constexpr int kBelowExpectedStatus = 3;

struct RunStatus {
  int status = 0;
  // One line per case with wrong elements, naming the case and each rank's count, then one per
  // node below expected: "wrong results: allreduce nccl fp32 1 MiB: rank 1 (host b) 1 of 262144
  // elements wrong".
  std::vector<std::string> reasons;
};

RunStatus judgeRun(const std::vector<CaseResult>& cases, const std::vector<NodeVerdict>& verdicts,
                   const std::vector<RankInfo>& ranks, bool fail_below_expected);

}  // namespace splitstep
