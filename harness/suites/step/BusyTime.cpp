#include "suites/step/BusyTime.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>

namespace splitstep {
namespace {

using BusyInterval = std::pair<std::uint64_t, std::uint64_t>;

// The length of the union of `intervals`, in seconds.
double busyUnionSeconds(std::vector<BusyInterval> intervals) {
  std::sort(intervals.begin(), intervals.end());
  std::uint64_t covered = 0;
  std::uint64_t reach = 0;
  for (const auto& [start, end] : intervals) {
    const std::uint64_t from = std::max(start, reach);
    if (end > from) covered += end - from;
    reach = std::max(reach, end);
  }
  return static_cast<double>(covered) * 1e-9;
}

}  // namespace

std::string phaseScope(Phase phase) { return "splitstep phase " + std::string(toString(phase)); }

std::string replayScope() { return "splitstep graph replay"; }

std::vector<double> busyPerScope(const std::vector<ProfiledScope>& scopes,
                                 const std::vector<ProfiledLaunch>& launches,
                                 const std::vector<ProfiledWork>& work) {
  std::unordered_map<std::uint64_t, std::uint64_t> launched_at;
  for (const ProfiledLaunch& l : launches) launched_at.emplace(l.correlation, l.start);
  std::vector<std::vector<BusyInterval>> intervals(scopes.size());
  for (const ProfiledWork& w : work) {
    const auto launch = launched_at.find(w.correlation);
    if (launch == launched_at.end() || w.end <= w.start) continue;
    for (std::size_t s = 0; s < scopes.size(); ++s) {
      if (scopes[s].start <= launch->second && launch->second <= scopes[s].end) {
        intervals[s].emplace_back(w.start, w.end);
        break;
      }
    }
  }
  std::vector<double> busy;
  for (std::vector<BusyInterval>& i : intervals) busy.push_back(busyUnionSeconds(std::move(i)));
  return busy;
}

std::vector<StepBusy> busyTimes(const std::vector<ProfiledPhase>& phases,
                                const std::vector<ProfiledLaunch>& launches,
                                const std::vector<ProfiledWork>& work) {
  std::vector<ProfiledPhase> ordered = phases;
  std::sort(ordered.begin(), ordered.end(),
            [](const ProfiledPhase& a, const ProfiledPhase& b) { return a.start < b.start; });
  // Each phase's step: a new one at every data phase.
  std::vector<std::size_t> step_of(ordered.size());
  std::size_t steps = 0;
  for (std::size_t i = 0; i < ordered.size(); ++i) {
    if (ordered[i].phase == Phase::Data || steps == 0) ++steps;
    step_of[i] = steps - 1;
  }
  std::unordered_map<std::uint64_t, std::uint64_t> launched_at;
  for (const ProfiledLaunch& l : launches) launched_at.emplace(l.correlation, l.start);

  std::vector<std::array<std::vector<BusyInterval>, kPhases.size()>> intervals(steps);
  for (const ProfiledWork& w : work) {
    const auto launch = launched_at.find(w.correlation);
    if (launch == launched_at.end() || w.end <= w.start) continue;
    // The last phase that began at or before the launch, if the launch lies inside it.
    const auto after =
        std::upper_bound(ordered.begin(), ordered.end(), launch->second,
                         [](std::uint64_t t, const ProfiledPhase& p) { return t < p.start; });
    if (after == ordered.begin()) continue;
    const auto phase = std::prev(after);
    if (launch->second > phase->end) continue;
    const auto index = static_cast<std::size_t>(phase - ordered.begin());
    intervals[step_of[index]][static_cast<std::size_t>(phase->phase)].emplace_back(w.start, w.end);
  }

  std::vector<StepBusy> busy(steps);
  for (std::size_t s = 0; s < steps; ++s) {
    std::vector<BusyInterval> all;
    for (std::size_t p = 0; p < kPhases.size(); ++p) {
      busy[s].phases[p] = busyUnionSeconds(intervals[s][p]);
      all.insert(all.end(), intervals[s][p].begin(), intervals[s][p].end());
    }
    busy[s].step = busyUnionSeconds(std::move(all));
  }
  return busy;
}

}  // namespace splitstep
