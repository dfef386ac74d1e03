// Rank 0's view of one case: per-rank statistics, the spread across ranks, derived figures.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "cases/Rates.hpp"
#include "measure/Sample.hpp"
#include "stats/MedianInterval.hpp"
#include "stats/Statistics.hpp"

namespace splitstep {

struct RankResult {
  int rank = 0;
  Summary summary;  // of measurement.values: the spread (cv, IQR) is the workload's
  // Of measurement.host_values; empty where the host time was not taken (a step's phases).
  std::optional<Summary> host_summary;
  // The uncertainty of summary.median: its interval at kMedianConfidence.
  MedianInterval median_ci;
  Measurement measurement;
  std::vector<Check> checks;
  std::vector<std::string> warnings;          // from measurementWarnings() and telemetryWarnings()
  std::optional<TelemetrySummary> telemetry;  // Sample::telemetry
};

// What a case's warning is about, so that a report can name every case of one kind at once.
enum class WarningKind { LowClock, WideSpread, ClockHeld };

struct CaseWarning {
  WarningKind kind;
  std::string text;  // the case's own figures and ranks

  bool operator==(const CaseWarning&) const = default;
};

// The warning of every case of `kind` in one phrase, without any case's figures.
std::string_view describe(WarningKind kind);

struct RateValue {
  std::string name;
  double value = 0;
};

struct CaseResult {
  std::string suite;
  std::string case_name;
  std::string series;
  std::string part_of;  // the series this one is a part of (Sample::part_of); empty for a whole
  bool detail = false;  // Sample::detail: in results files, not in the console's tables
  std::string unit;
  std::string clock;
  CaseFields fields;               // Sample::fields: decoded by the case schemas (harness/cases/)
  std::vector<std::string> notes;  // the suite's and the Measurer's, each once
  std::vector<RankResult> ranks;   // ranks that measured the case, by rank
  Summary across;                  // of the per-rank medians
  int slowest_rank = -1;           // highest per-rank median; -1 when no rank measured the case
  std::vector<RateValue> rates;    // at the median of the per-rank medians
  std::uint64_t checked = 0;       // over all ranks and checks
  std::uint64_t wrong = 0;
  std::optional<double> speedup;  // baseline median / this median (Sample::comparison)
  std::string speedup_baseline;
  std::vector<CaseWarning> warnings;  // the ranks' warnings, one each for the whole case
  // Ranks that met at a barrier before each sample (Measurement::arrival_waits): how much
  // later the last rank arrived than the first, as the spread of the ranks' median waits.
  std::optional<double> arrival_skew;
  // A part's across-rank median over its whole's (the case of the same suite and name whose
  // series is `part_of`); unset for a whole, a skipped case, or a part whose whole is missing.
  std::optional<double> share;

  bool skipped() const { return ranks.empty(); }
  const RankResult* slowest() const;
  // The case's rate `spec` (cases/Rates.hpp); unset where the case has none.
  std::optional<double> rate(const RateSpec& spec) const;
};

// A case whose SM clock was below 85% of the maximum when timing started or ended, or whose
// slowest sample took more than 4x its fastest (%timeit's warning that a result may be cached).
std::vector<std::string> measurementWarnings(const Measurement& m, const Summary& summary);

// A rank whose GPU clock was held down by a limit (power cap, thermal, ...) in at least 10% of
// the telemetry readings while the case ran.
std::vector<std::string> telemetryWarnings(const TelemetrySummary& telemetry);

// The same warnings for every rank of a case together, naming the ranks.
std::vector<CaseWarning> caseWarnings(const std::vector<RankResult>& ranks);

// Summarises cases as they arrive, a batch at a time, each from every rank: a case is compared
// with baselines and wholes of earlier batches as with those of its own.
class CaseSummarizer {
 public:
  // `by_rank[r]` holds rank r's samples of the batch. Returns the batch's cases in rank 0's
  // order; a case is matched across ranks by (suite, case, series), and one seen in an earlier
  // batch is not repeated. Ranks with no values for a case (skipped there) are left out. A case
  // gets its speed-up over a baseline of its group (Sample::comparison) and a part its share of
  // its whole (CaseResult::share) where those were summarised in this batch or before.
  std::vector<CaseResult> add(const std::vector<std::vector<Sample>>& by_rank);

 private:
  using CaseKey = std::tuple<std::string, std::string, std::string>;
  std::set<CaseKey> seen_;
  std::map<std::pair<std::string, std::string>, double> baselines_;  // (suite, group) -> median
  std::map<CaseKey, double> wholes_;                                 // whole's key -> median
};

// Every case of one batch (CaseSummarizer::add on a fresh summarizer).
std::vector<CaseResult> summarizeCases(const std::vector<std::vector<Sample>>& by_rank);

}  // namespace splitstep
