// The table that closes a suite in the terminal report, with its notes and warnings. Compact:
// one line per case, nccl-tests' columns where a case is a collective's (size, count, type, time
// in us, algbw, busbw, and beside busbw NCCL's algorithm/protocol where NCCL told them, #wrong),
// then the figures only splitstep has (±ci, slowest rank, noise), and the warnings of the run's
// every case a line per kind, naming the cases. Verbose: the spread across ranks, every part under
// its whole, each rank's median, and each case's notes and warnings.
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "derived/CaseResult.hpp"
#include "meta/RunContext.hpp"

namespace splitstep {

// Per-rank medians are listed inline up to this many ranks; beyond, the JSON has them.
inline constexpr std::size_t kMaxRanksInline = 8;

// What the compact tables' columns hold, in one line, for a run of `ranks` ranks.
std::string compactLegend(std::size_t ranks);

void printSuiteTable(std::ostream& out, const std::vector<CaseResult>& cases,
                     const std::vector<RankInfo>& ranks, bool verbose);

// The collective suites of a run on one rank, in a few lines instead of a table each: one rank
// crosses no link, so only their times (fastest and slowest collective at each size) and their
// checks say anything. `suites`: each suite's cases, in the order run.
void printCollectivesOnOneRank(std::ostream& out,
                               const std::vector<std::vector<CaseResult>>& suites);

// The collective suites of a run on several ranks in one table, where their sizes are few: a
// row per collective and variant, the time at each size asked for, the bus bandwidth at the
// largest, the checks, ±ci and noise at their largest. `ranks`: how many ran them. False, and
// nothing printed, where they do not fit one table (more than kMatrixSizes sizes): a table each.
inline constexpr std::size_t kMatrixSizes = 5;
bool printCollectiveMatrix(std::ostream& out, const std::vector<std::vector<CaseResult>>& suites,
                           std::size_t ranks);

// The cases of each kind of warning, named "suite case".
using CaseWarnings = std::map<WarningKind, std::vector<std::string>>;
void noteWarnings(const std::vector<CaseResult>& cases, CaseWarnings& warned);
// A line per kind.
void printWarnings(std::ostream& out, const CaseWarnings& warned);

}  // namespace splitstep
