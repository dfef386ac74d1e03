#include "derived/TelemetryAnalysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "cases/StepCase.hpp"
#include "common/StepKeys.hpp"
#include "common/Units.hpp"
#include "options/StepPlan.hpp"

namespace splitstep {
namespace {

namespace key = step_keys;
constexpr std::string_view kBackward = toString(Phase::Backward);
constexpr std::string_view kPowerCap = "power cap";

// A case's telemetry over its ranks: each rank's mean SM clock, and the means over the ranks.
struct CaseTelemetry {
  std::vector<std::pair<int, double>> clock_per_rank;
  double clock = 0;             // MHz
  std::optional<double> power;  // W
  bool power_averaged = false;  // only NVML's 1 s average was read
  double power_cap = 0;         // share of readings with the power cap holding
  std::size_t readings = 0;     // SM clock readings, fewest over the ranks
};

std::optional<CaseTelemetry> telemetryOf(const CaseResult& c) {
  CaseTelemetry t;
  t.readings = c.ranks.empty() ? 0 : std::numeric_limits<std::size_t>::max();
  double power_sum = 0;
  std::size_t power_ranks = 0;
  for (const RankResult& r : c.ranks) {
    const TelemetryRange* clock =
        r.telemetry ? r.telemetry->range(TelemetryQuantity::SmClock) : nullptr;
    if (clock == nullptr) return std::nullopt;  // every rank, or the figure would be one-sided
    t.clock_per_rank.emplace_back(r.rank, clock->mean);
    t.clock += clock->mean / static_cast<double>(c.ranks.size());
    t.readings = std::min(t.readings, clock->n);
    t.power_cap += r.telemetry->limitShare(kPowerCap) / static_cast<double>(c.ranks.size());
    const TelemetryRange* power = r.telemetry->range(TelemetryQuantity::Power);
    if (power == nullptr) {
      power = r.telemetry->range(TelemetryQuantity::PowerAverage);
      t.power_averaged = t.power_averaged || power != nullptr;
    }
    if (power != nullptr) {
      power_sum += power->mean;
      ++power_ranks;
    }
  }
  if (t.readings < kMinPhaseReadings) return std::nullopt;
  if (power_ranks > 0) t.power = power_sum / static_cast<double>(power_ranks);
  return t;
}

std::string powerNote(const CaseTelemetry& t) {
  std::string note;
  if (t.power) {
    note = fmt::format("power {:.0f} W{}, ", *t.power, t.power_averaged ? " (1 s average)" : "");
  }
  return note + fmt::format("power cap in {:.0f}% of readings (at least {} per rank)",
                            t.power_cap * 100, t.readings);
}

// What the clocks of the backward pass say about its slowdown with overlapped sync.
std::optional<std::string> powerCapFinding(const CaseResult& none, const CaseResult& overlap) {
  const auto alone = telemetryOf(none);
  const auto synced = telemetryOf(overlap);
  if (!alone || !synced || none.skipped() || overlap.skipped() || none.across.median <= 0 ||
      synced->clock <= 0) {
    return std::nullopt;
  }
  const double slowdown = overlap.across.median / none.across.median - 1;
  // Time scales at most inversely with the clock (a kernel bound by memory or by waiting
  // scales less): the most a lower clock can explain.
  const double clock_effect = alone->clock / synced->clock - 1;
  const std::string clocks = fmt::format(
      "the backward pass runs at {:.0f} MHz mean SM clock with overlap and {:.0f} MHz without "
      "sync, the power cap holding in {:.0f}% and {:.0f}% of the readings",
      synced->clock, alone->clock, synced->power_cap * 100, alone->power_cap * 100);
  const std::string slower = fmt::format("{:.1f}%", slowdown * 100);
  if (slowdown <= 0) {
    return fmt::format("telemetry: {}; the backward pass is not slower with overlap ({} vs {})",
                       clocks, formatSeconds(overlap.across.median),
                       formatSeconds(none.across.median));
  }
  if (clock_effect < kSameClock) {
    return fmt::format(
        "telemetry: {}: the clock is the same, so the power cap does not explain the {} slowdown "
        "of backward with overlap; the collectives' kernels compete with it for SMs and memory "
        "bandwidth",
        clocks, slower);
  }
  if (clock_effect >= slowdown) {
    return fmt::format(
        "telemetry: {}: a clock {:.1f}% lower accounts for the whole {} slowdown of backward "
        "with overlap: the shared power budget, not contention, slows it",
        clocks, clock_effect * 100, slower);
  }
  return fmt::format(
      "telemetry: {}: the {:.1f}% lower clock accounts for at most {:.1f} points of the {} "
      "slowdown of backward with overlap; the rest comes from the collectives' kernels competing "
      "for SMs and memory bandwidth",
      clocks, clock_effect * 100, clock_effect * 100, slower);
}

}  // namespace

std::vector<DerivedResult> deriveStepTelemetry(const std::vector<CaseResult>& cases) {
  std::vector<std::pair<std::string, StepPrecision>> workloads;
  for (const CaseResult& c : cases) {
    const auto fields = StepCase::decode(c.fields);
    if (!fields) continue;
    const std::pair workload{fields->model, fields->precision};
    if (std::find(workloads.begin(), workloads.end(), workload) == workloads.end()) {
      workloads.push_back(workload);
    }
  }
  std::vector<DerivedResult> results;
  for (const auto& [model, precision] : workloads) {
    DerivedResult result;
    result.suite = std::string(key::kSuite);
    result.subject = model + " " + std::string(toString(precision));
    result.title = "SM clock and power by phase (telemetry)";
    const CaseResult* backward_none = nullptr;
    const CaseResult* backward_overlap = nullptr;
    for (const CaseResult& c : cases) {
      const auto fields = StepCase::decode(c.fields);
      if (!fields || fields->model != model || fields->precision != precision) continue;
      const std::string_view mode = toString(fields->mode);
      if (c.series == kBackward && fields->mode == SyncMode::None) backward_none = &c;
      if (c.series == kBackward && fields->mode == SyncMode::Overlap) backward_overlap = &c;
      const auto t = telemetryOf(c);
      if (!t) continue;
      DerivedFigure& f = result.figures.emplace_back(
          DerivedFigure{fmt::format("telemetry/sm_clock/{}/{}", mode, c.series),
                        fmt::format("SM clock, {} ({})", c.series, mode), "MHz", t->clock,
                        t->clock_per_rank, powerNote(*t)});
      // A row per phase, a column per mode: one line where only whole steps were sampled.
      f.row = fmt::format("SM clock, {}", c.series);
      f.column = mode;
    }
    if (result.figures.empty()) continue;
    if (backward_none && backward_overlap) {
      if (auto finding = powerCapFinding(*backward_none, *backward_overlap)) {
        result.findings.push_back(std::move(*finding));
      }
    }
    // Without a finding, the clocks are the warnings' business (a clock held down is one).
    result.verbose_only = result.findings.empty();
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace splitstep
