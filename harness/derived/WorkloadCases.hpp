// The step analysis's view of one workload (model + precision): its measured cases by mode and
// series, and how the figures name its modes. Private to derived/StepAnalysis and
// derived/StepDiagnosis.
#pragma once

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cases/StepCase.hpp"
#include "common/StepKeys.hpp"
#include "derived/CaseResult.hpp"
#include "options/StepPlan.hpp"

namespace splitstep::step_analysis {

// The mode names are the sync modes' option values.
inline constexpr std::string_view kNone = toString(SyncMode::None);
inline constexpr std::string_view kSequential = toString(SyncMode::Sequential);
inline constexpr std::string_view kOverlap = toString(SyncMode::Overlap);
inline constexpr std::string_view kSingle = toString(SyncMode::Single);
inline constexpr std::string_view kPhaseData = toString(Phase::Data);
inline constexpr std::string_view kPhaseForward = toString(Phase::Forward);
inline constexpr std::string_view kPhaseBackward = toString(Phase::Backward);
inline constexpr std::string_view kPhaseOptimizer = toString(Phase::Optimizer);

// The step's time in each mode, as the figures name it.
struct ModeName {
  std::string_view mode;
  const char* symbol;
  const char* meaning;
};
inline constexpr ModeName kModeNames[] = {{kNone, "T_c", "no gradient sync"},
                                          {kSequential, "T_seq", "sync after backward"},
                                          {kOverlap, "T_ddp", "sync during backward"},
                                          {kSingle, "T_1", "rank 0 alone"}};

const char* symbolOf(std::string_view mode);

std::map<int, double> rankMedians(const CaseResult& c);

std::vector<std::pair<int, double>> perRank(const std::map<int, double>& values);

std::string percent(double fraction);

// The measured cases of one workload (model + precision), by mode and series.
class WorkloadCases {
 public:
  explicit WorkloadCases(const StepCase& fields)
      : model_(fields.model), precision_(fields.precision) {}

  const std::string& model() const { return model_; }
  StepPrecision precision() const { return precision_; }
  bool matches(const StepCase& fields) const {
    return fields.model == model_ && fields.precision == precision_;
  }
  // `c` with its fields decoded.
  void add(const CaseResult* c, const StepCase& fields);
  // The decoded fields of a case added before.
  const StepCase& fieldsOf(const CaseResult& c) const { return fields_.at(&c); }

  // The eager cases' series (a graphed case is found by graphed()).
  const CaseResult* find(std::string_view mode, std::string_view series) const;
  // A series of a mode's graphed case (--step-graphs), or nullptr.
  const CaseResult* graphed(std::string_view mode, std::string_view series) const;
  const CaseResult* step(std::string_view mode) const { return find(mode, step_keys::kWhole); }
  // The phases of a mode's step (comm left out: it overlaps them).
  std::vector<const CaseResult*> phases(std::string_view mode) const;
  // The first of `modes` whose step was measured; empty when none was.
  std::string firstMeasured(std::initializer_list<std::string_view> modes) const;

  // Each phase of a mode measured with the GPU's busy time in it: the medians across ranks of
  // its time and of its busy time. Overlap's sync phase is left out: the collectives it waits
  // for were launched in backward, whose busy time holds them, so its own would read as idle.
  struct PhaseBusy {
    Phase phase;
    double time = 0;
    double busy = 0;
  };
  std::vector<PhaseBusy> busyPhases(std::string_view mode) const;

  // T_mode - T_c, of the medians across ranks.
  std::optional<double> exposedTime(std::string_view mode) const;
  // Whether the ranks ran the step on the host, from the first mode measured.
  bool onCpu() const;

 private:
  std::string model_;
  StepPrecision precision_;
  using ByModeAndSeries =
      std::map<std::string, std::map<std::string, const CaseResult*, std::less<>>, std::less<>>;
  static const CaseResult* seriesOf(const ByModeAndSeries& cases, std::string_view mode,
                                    std::string_view series);
  ByModeAndSeries cases_;
  ByModeAndSeries graphed_;
  std::map<const CaseResult*, StepCase> fields_;
};

}  // namespace splitstep::step_analysis
