#include "derived/WorkloadCases.hpp"

#include <fmt/format.h>

namespace splitstep::step_analysis {

namespace key = step_keys;

const char* symbolOf(std::string_view mode) {
  for (const ModeName& m : kModeNames) {
    if (mode == m.mode) return m.symbol;
  }
  return "T";
}

std::map<int, double> rankMedians(const CaseResult& c) {
  std::map<int, double> medians;
  for (const RankResult& r : c.ranks) medians[r.rank] = r.summary.median;
  return medians;
}

std::vector<std::pair<int, double>> perRank(const std::map<int, double>& values) {
  return {values.begin(), values.end()};
}

std::string percent(double fraction) { return fmt::format("{:.1f}%", fraction * 100); }

void WorkloadCases::add(const CaseResult* c, const StepCase& fields) {
  ByModeAndSeries& cases = fields.launch == StepLaunch::Graph ? graphed_ : cases_;
  cases[std::string(toString(fields.mode))].try_emplace(c->series, c);
  fields_.try_emplace(c, fields);
}

const CaseResult* WorkloadCases::seriesOf(const ByModeAndSeries& cases, std::string_view mode,
                                          std::string_view series) {
  const auto m = cases.find(mode);
  if (m == cases.end()) return nullptr;
  const auto s = m->second.find(series);
  return s == m->second.end() ? nullptr : s->second;
}

const CaseResult* WorkloadCases::find(std::string_view mode, std::string_view series) const {
  return seriesOf(cases_, mode, series);
}

const CaseResult* WorkloadCases::graphed(std::string_view mode, std::string_view series) const {
  return seriesOf(graphed_, mode, series);
}

std::vector<const CaseResult*> WorkloadCases::phases(std::string_view mode) const {
  std::vector<const CaseResult*> parts;
  const auto m = cases_.find(mode);
  if (m == cases_.end()) return parts;
  for (const auto& [series, c] : m->second) {
    if (c->part_of == key::kWhole && series != key::kComm && c->share) parts.push_back(c);
  }
  return parts;
}

std::string WorkloadCases::firstMeasured(std::initializer_list<std::string_view> modes) const {
  for (std::string_view mode : modes) {
    if (step(mode)) return std::string(mode);
  }
  return {};
}

std::vector<WorkloadCases::PhaseBusy> WorkloadCases::busyPhases(std::string_view mode) const {
  std::vector<PhaseBusy> phases;
  for (Phase phase : kPhases) {
    if (phase == Phase::Sync && mode == kOverlap) continue;
    const CaseResult* time = find(mode, toString(phase));
    const CaseResult* busy = find(mode, step_keys::busySeries(toString(phase)));
    if (time && busy && time->across.median > 0) {
      phases.push_back({phase, time->across.median, busy->across.median});
    }
  }
  return phases;
}

std::optional<double> WorkloadCases::exposedTime(std::string_view mode) const {
  const CaseResult* synced = step(mode);
  const CaseResult* compute = step(kNone);
  if (!synced || !compute) return std::nullopt;
  return synced->across.median - compute->across.median;
}

bool WorkloadCases::onCpu() const {
  for (std::string_view mode : {kNone, kSequential, kOverlap, kSingle}) {
    if (const CaseResult* c = step(mode)) return !fieldsOf(*c).on_cuda;
  }
  return false;
}

}  // namespace splitstep::step_analysis
