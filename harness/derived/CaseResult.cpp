#include "derived/CaseResult.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

namespace splitstep {
namespace {

constexpr double kLowClockFraction = 0.85;
constexpr double kSpreadWarning = 4.0;
constexpr double kLimitedShare = 0.10;

using CaseKey = std::tuple<std::string, std::string, std::string>;

CaseKey keyOf(const Sample& sample) { return {sample.suite, sample.case_name, sample.series}; }

void addOnce(std::vector<std::string>& list, const std::string& text) {
  if (std::find(list.begin(), list.end(), text) == list.end()) list.push_back(text);
}

CaseResult startCase(const Sample& sample) {
  CaseResult result;
  result.suite = sample.suite;
  result.case_name = sample.case_name;
  result.series = sample.series;
  result.part_of = sample.part_of;
  result.detail = sample.detail;
  result.unit = sample.unit;
  result.clock = sample.measurement.clock;
  result.fields = sample.fields;
  return result;
}

// The first rank to arrive waits longest; every rank's wait also holds the barrier's own cost,
// which the difference between the longest and the shortest wait removes.
std::optional<double> arrivalSkew(const std::vector<RankResult>& ranks) {
  std::vector<double> waits;
  for (const RankResult& r : ranks) {
    if (!r.measurement.arrival_waits.empty()) {
      waits.push_back(quantile(r.measurement.arrival_waits, 0.5));
    }
  }
  if (waits.empty()) return std::nullopt;
  const auto [low, high] = std::minmax_element(waits.begin(), waits.end());
  return *high - *low;
}

void finishCase(CaseResult& result, const std::vector<Rate>& rates) {
  if (result.ranks.empty()) return;
  result.arrival_skew = arrivalSkew(result.ranks);
  std::vector<double> medians;
  for (const RankResult& rank : result.ranks) medians.push_back(rank.summary.median);
  result.across = summarize(medians);
  result.slowest_rank = std::max_element(result.ranks.begin(), result.ranks.end(),
                                         [](const RankResult& a, const RankResult& b) {
                                           return a.summary.median < b.summary.median;
                                         })
                            ->rank;
  for (const Rate& rate : rates) {
    if (result.across.median > 0) {
      result.rates.push_back({rate.name, rate.amount_per_loop / result.across.median / rate.scale});
    }
  }
}

// The limits that slow the clock and held in at least kLimitedShare of the readings, with the
// share each held in, the most frequent first.
std::vector<std::pair<std::string, double>> slowingLimits(
    const std::map<std::string, double>& share) {
  std::vector<std::pair<std::string, double>> held;
  for (const ClockLimit& limit : kClockLimits) {
    const auto it = share.find(std::string(limit.name));
    if (limit.slows && it != share.end() && it->second >= kLimitedShare) {
      held.emplace_back(std::string(limit.name), it->second);
    }
  }
  std::stable_sort(held.begin(), held.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return held;
}

// "power cap in 85% of 120 telemetry readings, thermal (software) in 12%", where `readings`
// reads "of 120 telemetry readings" or "of the telemetry readings".
std::string describeLimits(const std::vector<std::pair<std::string, double>>& held,
                           const std::string& up_to, const std::string& readings) {
  std::vector<std::string> parts;
  for (const auto& [name, fraction] : held) {
    parts.push_back(fmt::format("{} in {}{:.0f}%{}", name, up_to, fraction * 100,
                                parts.empty() ? " " + readings : std::string()));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

// "; power 689 W mean against a 700 W limit" where both were read.
std::string powerClause(const std::optional<TelemetryRange>& power,
                        const std::optional<TelemetryRange>& limit) {
  if (!power || !limit) return "";
  return fmt::format("; power {:.0f} W mean against a {:.0f} W limit", power->mean, limit->max);
}

std::optional<TelemetryRange> powerOf(const TelemetrySummary& t) {
  const TelemetryRange* power = t.range(TelemetryQuantity::Power);
  if (power == nullptr) power = t.range(TelemetryQuantity::PowerAverage);
  return power ? std::optional<TelemetryRange>(*power) : std::nullopt;
}

std::optional<TelemetryRange> optionalRange(const TelemetrySummary& t, TelemetryQuantity q) {
  const TelemetryRange* range = t.range(q);
  return range ? std::optional<TelemetryRange>(*range) : std::nullopt;
}

// Every rank's clock limits together: the largest share of each limit over the ranks, the ranks
// it held on, the lowest mean SM clock and the highest mean power of them.
std::string limitedRanks(const std::vector<RankResult>& ranks) {
  std::map<std::string, double> largest;
  std::vector<int> limited;
  std::optional<TelemetryRange> clock;
  std::optional<TelemetryRange> power;
  std::optional<TelemetryRange> limit;
  for (const RankResult& r : ranks) {
    if (!r.telemetry || slowingLimits(r.telemetry->clock_limits).empty()) continue;
    limited.push_back(r.rank);
    for (const auto& [name, share] : r.telemetry->clock_limits) {
      largest[name] = std::max(largest[name], share);
    }
    const auto mine = optionalRange(*r.telemetry, TelemetryQuantity::SmClock);
    if (mine && (!clock || mine->mean < clock->mean)) clock = mine;
    const auto watts = powerOf(*r.telemetry);
    if (watts && (!power || watts->mean > power->mean)) power = watts;
    if (!limit) limit = optionalRange(*r.telemetry, TelemetryQuantity::PowerLimit);
  }
  if (limited.empty()) return "";
  return fmt::format(
      "GPU clock held down on rank(s) {}: {}{}{}", fmt::join(limited, ", "),
      describeLimits(slowingLimits(largest), "up to ", "of the telemetry readings"),
      clock ? fmt::format("; lowest mean SM clock {:.0f} MHz", clock->mean) : std::string(),
      powerClause(power, limit));
}

// The whole of `text` as a number; nullopt where it is empty or not a number as a whole.
}  // namespace

std::optional<double> CaseResult::rate(const RateSpec& spec) const {
  const auto it = std::find_if(rates.begin(), rates.end(),
                               [&spec](const RateValue& r) { return r.name == spec.name; });
  if (it == rates.end()) return std::nullopt;
  return it->value;
}

const RankResult* CaseResult::slowest() const {
  for (const RankResult& rank : ranks) {
    if (rank.rank == slowest_rank) return &rank;
  }
  return nullptr;
}

std::optional<SmClock> lowestClock(const Measurement& m) {
  std::optional<SmClock> lowest;
  for (const auto& clock : {m.clock_at_start, m.clock_at_end}) {
    if (clock && clock->max_mhz > 0 && (!lowest || clock->current_mhz < lowest->current_mhz)) {
      lowest = clock;
    }
  }
  return lowest;
}

bool clockIsLow(const SmClock& clock) {
  return clock.current_mhz < kLowClockFraction * clock.max_mhz;
}

std::string clockCause(const SmClock& clock) {
  return clock.limited_by.empty() ? "reason unknown" : "held down by " + clock.limited_by;
}

std::vector<std::string> measurementWarnings(const Measurement& m, const Summary& summary) {
  std::vector<std::string> warnings;
  if (const auto clock = lowestClock(m); clock && clockIsLow(*clock)) {
    warnings.push_back(fmt::format("SM clock {} MHz is below 85% of its {} MHz maximum ({})",
                                   clock->current_mhz, clock->max_mhz, clockCause(*clock)));
  }
  if (summary.n > 0 && summary.min > 0 && summary.max > kSpreadWarning * summary.min) {
    warnings.push_back(fmt::format(
        "the slowest sample took {:.1f}x the fastest: a result may be cached or disturbed",
        summary.max / summary.min));
  }
  return warnings;
}

std::vector<std::string> telemetryWarnings(const TelemetrySummary& telemetry) {
  const auto held = slowingLimits(telemetry.clock_limits);
  if (held.empty()) return {};
  const TelemetryRange* clock = telemetry.range(TelemetryQuantity::SmClock);
  return {fmt::format(
      "GPU clock held down: {}{}{}",
      describeLimits(held, "", fmt::format("of {} telemetry readings", telemetry.limit_readings)),
      clock ? fmt::format("; SM clock {:.0f} MHz mean, {:.0f}-{:.0f}", clock->mean, clock->min,
                          clock->max)
            : std::string(),
      powerClause(powerOf(telemetry), optionalRange(telemetry, TelemetryQuantity::PowerLimit)))};
}

std::string_view describe(WarningKind kind) {
  switch (kind) {
    case WarningKind::LowClock:
      return "SM clock below 85% of its maximum";
    case WarningKind::WideSpread:
      return "slowest sample over 4x the fastest (cached or disturbed?)";
    case WarningKind::ClockHeld:
      return "GPU clock held down by a limit (power cap, thermal, ...)";
  }
  return "";
}

std::vector<CaseWarning> caseWarnings(const std::vector<RankResult>& ranks) {
  std::vector<int> low_ranks;
  unsigned low_min = 0;
  unsigned low_max = 0;
  SmClock example;
  std::vector<int> spread_ranks;
  double widest = 0;
  for (const RankResult& r : ranks) {
    if (const auto clock = lowestClock(r.measurement); clock && clockIsLow(*clock)) {
      low_min = low_ranks.empty() ? clock->current_mhz : std::min(low_min, clock->current_mhz);
      low_max = std::max(low_max, clock->current_mhz);
      if (low_ranks.empty()) example = *clock;
      low_ranks.push_back(r.rank);
    }
    const Summary& s = r.summary;
    if (s.n > 0 && s.min > 0 && s.max > kSpreadWarning * s.min) {
      widest = std::max(widest, s.max / s.min);
      spread_ranks.push_back(r.rank);
    }
  }
  std::vector<CaseWarning> warnings;
  if (!low_ranks.empty()) {
    warnings.push_back(
        {WarningKind::LowClock,
         fmt::format("SM clock {} MHz on rank(s) {}, below 85% of the {} MHz maximum ({})",
                     low_min == low_max ? fmt::format("{}", low_min)
                                        : fmt::format("{}-{}", low_min, low_max),
                     fmt::join(low_ranks, ", "), example.max_mhz, clockCause(example))});
  }
  if (!spread_ranks.empty()) {
    warnings.push_back(
        {WarningKind::WideSpread,
         fmt::format(
             "the slowest sample took up to {:.1f}x the fastest on rank(s) {}: a result may be "
             "cached or disturbed",
             widest, fmt::join(spread_ranks, ", "))});
  }
  if (std::string held = limitedRanks(ranks); !held.empty()) {
    warnings.push_back({WarningKind::ClockHeld, std::move(held)});
  }
  return warnings;
}

std::vector<CaseResult> CaseSummarizer::add(const std::vector<std::vector<Sample>>& by_rank) {
  std::vector<CaseResult> results;
  std::vector<Comparison> comparisons;
  if (by_rank.empty()) return results;
  // Each rank's samples of the batch by case, so that matching stays linear in the batch.
  std::vector<std::map<CaseKey, const Sample*>> index(by_rank.size());
  for (std::size_t r = 0; r < by_rank.size(); ++r) {
    for (const Sample& sample : by_rank[r]) index[r].try_emplace(keyOf(sample), &sample);
  }
  for (const Sample& first : by_rank.front()) {
    const CaseKey key = keyOf(first);
    if (!seen_.insert(key).second) continue;
    CaseResult result = startCase(first);
    std::vector<Rate> rates;
    for (std::size_t r = 0; r < by_rank.size(); ++r) {
      const auto found = index[r].find(key);
      if (found == index[r].end()) continue;
      const Sample& match = *found->second;
      for (const std::string& note : match.notes) addOnce(result.notes, note);
      for (const std::string& note : match.measurement.notes) addOnce(result.notes, note);
      if (match.measurement.values.empty()) continue;
      // The fields of the lowest rank that measured the case: what it learnt while measuring
      // (NCCL's algorithm) is the case's, also where rank 0 was outside the case's group.
      if (result.ranks.empty()) result.fields = match.fields;
      if (rates.empty()) rates = match.rates;
      RankResult& rank = result.ranks.emplace_back();
      rank.rank = static_cast<int>(r);
      rank.measurement = match.measurement;
      rank.summary = summarize(match.measurement.values);
      rank.median_ci = medianInterval(match.measurement.values, kMedianConfidence);
      if (!match.measurement.host_values.empty()) {
        rank.host_summary = summarize(match.measurement.host_values);
      }
      rank.checks = match.checks;
      rank.warnings = measurementWarnings(rank.measurement, rank.summary);
      rank.telemetry = match.telemetry;
      if (rank.telemetry) {
        for (std::string& w : telemetryWarnings(*rank.telemetry)) rank.warnings.push_back(w);
      }
      for (const Check& check : match.checks) {
        result.checked += check.checked;
        result.wrong += check.wrong;
      }
    }
    finishCase(result, rates);
    // A phase shares its step's clock, and its short intervals spread widely without meaning
    // anything for the step: the step's own warnings speak for the case.
    if (result.part_of.empty()) result.warnings = caseWarnings(result.ranks);
    if (!result.skipped()) {
      if (first.comparison.is_baseline && !first.comparison.group.empty()) {
        baselines_[{result.suite, first.comparison.group}] = result.across.median;
      }
      wholes_[key] = result.across.median;  // any case may be the whole of a part
    }
    results.push_back(std::move(result));
    comparisons.push_back(first.comparison);
  }
  // Baselines and wholes of this batch are known now, wherever they stood in it.
  for (std::size_t i = 0; i < results.size(); ++i) {
    CaseResult& result = results[i];
    if (result.skipped()) continue;
    const Comparison& mine = comparisons[i];
    if (const auto baseline = baselines_.find({result.suite, mine.group});
        !mine.group.empty() && baseline != baselines_.end()) {
      result.speedup = baseline->second / result.across.median;
      result.speedup_baseline = mine.baseline;
    }
    if (const auto whole = wholes_.find({result.suite, result.case_name, result.part_of});
        !result.part_of.empty() && whole != wholes_.end() && whole->second > 0) {
      result.share = result.across.median / whole->second;
    }
  }
  return results;
}

std::vector<CaseResult> summarizeCases(const std::vector<std::vector<Sample>>& by_rank) {
  return CaseSummarizer().add(by_rank);
}

}  // namespace splitstep
