#include "analysis/StepAnalysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "common/StepKeys.hpp"
#include "common/Units.hpp"
#include "options/RunPlan.hpp"

namespace splitstep {
namespace {

namespace key = step_keys;
// The mode names are the sync modes' option values.
constexpr std::string_view kNone = toString(SyncMode::None);
constexpr std::string_view kSequential = toString(SyncMode::Sequential);
constexpr std::string_view kOverlap = toString(SyncMode::Overlap);
constexpr std::string_view kSingle = toString(SyncMode::Single);
constexpr std::string_view kPhaseData = toString(Phase::Data);
constexpr std::string_view kPhaseForward = toString(Phase::Forward);
constexpr std::string_view kPhaseBackward = toString(Phase::Backward);
constexpr std::string_view kPhaseOptimizer = toString(Phase::Optimizer);

// The step's time in each mode, as the figures name it.
struct ModeName {
  std::string_view mode;
  const char* symbol;
  const char* meaning;
};
constexpr ModeName kModeNames[] = {{kNone, "T_c", "no gradient sync"},
                                   {kSequential, "T_seq", "sync after backward"},
                                   {kOverlap, "T_ddp", "sync during backward"},
                                   {kSingle, "T_1", "rank 0 alone"}};

const char* symbolOf(std::string_view mode) {
  for (const ModeName& m : kModeNames) {
    if (mode == m.mode) return m.symbol;
  }
  return "T";
}

std::string param(const CaseResult& c, std::string_view key) {
  const auto it = c.params.find(std::string(key));
  return it == c.params.end() ? std::string() : it->second;
}

std::optional<double> numberParam(const CaseResult& c, std::string_view key) {
  const std::string text = param(c, key);
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size()) return std::nullopt;
  return value;
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

// The measured cases of one workload (model + precision), by mode and series.
class WorkloadCases {
 public:
  WorkloadCases(std::string model, std::string precision)
      : model_(std::move(model)), precision_(std::move(precision)) {}

  const std::string& model() const { return model_; }
  const std::string& precision() const { return precision_; }
  bool matches(const CaseResult& c) const {
    return param(c, key::kModel) == model_ && param(c, key::kPrecision) == precision_;
  }
  void add(const CaseResult* c) { cases_[param(*c, key::kMode)].try_emplace(c->series, c); }

  const CaseResult* find(std::string_view mode, std::string_view series) const {
    const auto m = cases_.find(mode);
    if (m == cases_.end()) return nullptr;
    const auto s = m->second.find(series);
    return s == m->second.end() ? nullptr : s->second;
  }
  const CaseResult* step(std::string_view mode) const { return find(mode, key::kWhole); }
  // The phases of a mode's step (comm left out: it overlaps them).
  std::vector<const CaseResult*> phases(std::string_view mode) const {
    std::vector<const CaseResult*> parts;
    const auto m = cases_.find(mode);
    if (m == cases_.end()) return parts;
    for (const auto& [series, c] : m->second) {
      if (c->part_of == key::kWhole && series != key::kComm && c->share) parts.push_back(c);
    }
    return parts;
  }
  // The first of `modes` whose step was measured; empty when none was.
  std::string firstMeasured(std::initializer_list<std::string_view> modes) const {
    for (std::string_view mode : modes) {
      if (step(mode)) return std::string(mode);
    }
    return {};
  }

 private:
  std::string model_;
  std::string precision_;
  std::map<std::string, std::map<std::string, const CaseResult*, std::less<>>, std::less<>> cases_;
};

class StepFigures {
 public:
  StepFigures(const WorkloadCases& workload, const std::vector<CaseResult>& cases)
      : w_(workload), cases_(cases) {
    result_.suite = key::kSuite;
    result_.subject = w_.model() + " " + w_.precision();
    result_.title = "where the step time goes";
  }

  DerivedResult run() {
    stepTimes();
    for (std::string_view mode : {kSequential, kOverlap}) {
      communication(mode);
      exposed(mode);
      overlap(mode);
      wait(mode);
    }
    for (std::string_view mode : {kSequential, kOverlap}) efficiency(mode);
    throughput();
    modelFlops();
    slowestRank();
    diagnose();
    return std::move(result_);
  }

 private:
  DerivedFigure& add(std::string tag, std::string name, std::string unit, double value) {
    DerivedFigure& figure = result_.figures.emplace_back();
    figure.tag = std::move(tag);
    figure.name = std::move(name);
    figure.unit = std::move(unit);
    figure.value = value;
    return figure;
  }

  void stepTimes() {
    for (const ModeName& m : kModeNames) {
      const CaseResult* c = w_.step(m.mode);
      if (!c) continue;
      DerivedFigure& f =
          add(fmt::format("step/time/{}", m.mode),
              fmt::format("{}, {} ({})", m.symbol, m.meaning, m.mode), "s", c->across.median);
      if (m.mode != kSingle) f.per_rank = perRank(rankMedians(*c));
    }
  }

  void communication(std::string_view mode) {
    const CaseResult* comm = w_.find(mode, key::kComm);
    if (!comm) return;
    add(fmt::format("step/comm/{}", mode), fmt::format("T_comm, gradient collectives ({})", mode),
        "s", comm->across.median)
        .per_rank = perRank(rankMedians(*comm));
  }

  // T_mode - T_c, overall and per rank.
  std::optional<double> exposedTime(std::string_view mode) const {
    const CaseResult* synced = w_.step(mode);
    const CaseResult* compute = w_.step(kNone);
    if (!synced || !compute) return std::nullopt;
    return synced->across.median - compute->across.median;
  }

  void exposed(std::string_view mode) {
    const auto exposed = exposedTime(mode);
    if (!exposed) return;
    const CaseResult* synced = w_.step(mode);
    DerivedFigure& f = add(
        fmt::format("step/exposed/{}", mode),
        fmt::format("exposed communication, {} - T_c ({})", symbolOf(mode), mode), "s", *exposed);
    const auto compute = rankMedians(*w_.step(kNone));
    for (const auto& [rank, median] : rankMedians(*synced)) {
      if (const auto c = compute.find(rank); c != compute.end()) {
        f.per_rank.emplace_back(rank, median - c->second);
      }
    }
    if (synced->across.median > 0) {
      f.note = fmt::format("{} of {}", percent(*exposed / synced->across.median), symbolOf(mode));
    }
  }

  void overlap(std::string_view mode) {
    const auto exposed = exposedTime(mode);
    const CaseResult* comm = w_.find(mode, key::kComm);
    // Alone, a rank's collectives are copies of a few microseconds: there is nothing to hide.
    if (!exposed || !comm || comm->across.median <= 0 || worldSize(*comm) < 2) return;
    const double overlap = 1 - *exposed / comm->across.median;
    DerivedFigure& f =
        add(fmt::format("step/overlap/{}", mode),
            fmt::format("overlap, 1 - exposed / T_comm ({})", mode), "%", overlap * 100);
    if (overlap < 0) {
      f.note =
          "below 0: the step grew by more than the collectives' own time (the sync slows "
          "compute, or noise)";
    } else if (overlap > 1) {
      f.note = fmt::format("above 100%: {} was shorter than T_c (noise)", symbolOf(mode));
    }
  }

  // Per step i, rank r's collective time minus the shortest over ranks; per rank, the median.
  void wait(std::string_view mode) {
    const CaseResult* comm = w_.find(mode, key::kComm);
    if (!comm || comm->ranks.size() < 2) return;
    std::size_t steps = comm->ranks.front().measurement.values.size();
    for (const RankResult& r : comm->ranks) {
      steps = std::min(steps, r.measurement.values.size());
    }
    if (steps == 0) return;
    std::vector<double> shortest(steps);
    for (std::size_t i = 0; i < steps; ++i) {
      shortest[i] = comm->ranks.front().measurement.values[i];
      for (const RankResult& r : comm->ranks) {
        shortest[i] = std::min(shortest[i], r.measurement.values[i]);
      }
    }
    std::vector<std::pair<int, double>> waits;
    for (const RankResult& r : comm->ranks) {
      std::vector<double> wait(steps);
      for (std::size_t i = 0; i < steps; ++i) wait[i] = r.measurement.values[i] - shortest[i];
      waits.emplace_back(r.rank, quantile(wait, 0.5));
    }
    const auto longest =
        std::max_element(waits.begin(), waits.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    DerivedFigure& f = add(fmt::format("step/wait/{}", mode),
                           fmt::format("wait for later ranks, the most waiting rank ({})", mode),
                           "s", longest->second);
    f.per_rank = waits;
    f.note = fmt::format("rank {} waits longest: the others reach the collectives later",
                         longest->first);
  }

  int worldSize(const CaseResult& c) const {
    const auto size = numberParam(c, key::kWorldSize);
    return size && *size >= 1 ? static_cast<int>(*size) : static_cast<int>(c.ranks.size());
  }

  void efficiency(std::string_view mode) {
    const CaseResult* one = w_.step(kSingle);
    const CaseResult* many = w_.step(mode);
    if (!one || !many || many->across.median <= 0) return;
    add(fmt::format("step/efficiency/{}", mode),
        fmt::format("weak-scaling efficiency, T_1 / {} ({})", symbolOf(mode), mode), "%",
        one->across.median / many->across.median * 100)
        .note = worldSize(*many) > 1
                    ? fmt::format("{} ranks against one, the same batch per rank", worldSize(*many))
                    : "one rank: what bucketing and the sync calls cost without any peer";
  }

  void throughput() {
    const std::string mode = w_.firstMeasured({kOverlap, kSequential});
    if (!mode.empty()) {
      const CaseResult* c = w_.step(mode);
      const auto batch = numberParam(*c, key::kBatch);
      if (batch && c->across.median > 0) {
        add(fmt::format("step/samples_per_s/per_gpu/{}", mode),
            fmt::format("samples/s per rank ({})", mode), "samples/s", *batch / c->across.median);
        const int size = worldSize(*c);
        add(fmt::format("step/samples_per_s/total/{}", mode),
            fmt::format("samples/s in total, {} ranks ({})", size, mode), "samples/s",
            size * *batch / c->across.median);
      }
    }
    if (const CaseResult* one = w_.step(kSingle)) {
      const auto batch = numberParam(*one, key::kBatch);
      if (batch && one->across.median > 0) {
        add("step/samples_per_s/single", "samples/s on rank 0 alone (single)", "samples/s",
            *batch / one->across.median);
      }
    }
  }

  // The highest matmul TFLOP/s of the workload's precision in this job, and its case.
  std::optional<std::pair<double, std::string>> ceiling() const {
    std::optional<std::pair<double, std::string>> best;
    for (const CaseResult& c : cases_) {
      if (c.suite != "matmul" || c.skipped() || param(c, "dtype") != w_.precision()) continue;
      for (const RateValue& rate : c.rates) {
        if (rate.name == "TFLOP/s" && (!best || rate.value > best->first)) {
          best = {rate.value, c.case_name};
        }
      }
    }
    return best;
  }

  void modelFlops() {
    const CaseResult* compute = w_.step(kNone);
    if (!compute || compute->across.median <= 0) return;
    const auto flop = numberParam(*compute, key::kFlopPerStep);
    if (!flop) return;
    const double tflops = *flop / compute->across.median / 1e12;
    DerivedFigure& f = add("step/tflops/none", "model TFLOP/s at T_c (none)", "TFLOP/s", tflops);
    for (const auto& [rank, median] : rankMedians(*compute)) {
      if (median > 0) f.per_rank.emplace_back(rank, *flop / median / 1e12);
    }
    const auto peak = ceiling();
    if (!peak || peak->first <= 0) {
      f.note = fmt::format(
          "run matmul with --matmul-dtypes {} in the same job for the compute "
          "ceiling",
          w_.precision());
      return;
    }
    add("step/ceiling_fraction/none", "fraction of the measured compute ceiling (none)", "%",
        tflops / peak->first * 100)
        .note = fmt::format("ceiling: matmul {} at {:.1f} TFLOP/s", peak->second, peak->first);
  }

  void slowestRank() {
    const std::string mode = w_.firstMeasured({kOverlap, kSequential, kNone});
    if (mode.empty()) return;
    const CaseResult* c = w_.step(mode);
    if (c->ranks.size() < 2) return;
    DerivedFigure& f = add(fmt::format("step/slowest_rank/{}", mode),
                           fmt::format("slowest rank ({} step)", mode), "rank", c->slowest_rank);
    const double fastest = c->across.min;
    if (fastest > 0) {
      f.note =
          fmt::format("median {} above the fastest rank's", percent(c->across.max / fastest - 1));
    }
  }

  void diagnose() {
    const std::string mode = w_.firstMeasured({kOverlap, kSequential, kNone, kSingle});
    if (mode.empty()) return;
    std::vector<std::string>& findings = result_.findings;

    if (const CaseResult* data = w_.find(mode, kPhaseData);
        data && data->share && *data->share > kInputBoundShare) {
      findings.push_back(fmt::format(
          "input bound: loading/copying the batch takes {} of the step ({}): pin host memory, "
          "use more loader workers, a faster format, or prefetch the next batch",
          percent(*data->share), mode));
    }

    communicationBound();
    stragglers();

    if (const CaseResult* optimizer = w_.find(mode, kPhaseOptimizer);
        optimizer && optimizer->share && *optimizer->share > kOptimizerHeavyShare) {
      findings.push_back(fmt::format(
          "optimizer heavy: the optimizer step takes {} of the step ({}): use a fused or foreach "
          "optimizer implementation, fewer parameters, or a larger batch per step to spread its "
          "cost",
          percent(*optimizer->share), mode));
    }

    const CaseResult* forward = w_.find(mode, kPhaseForward);
    const CaseResult* backward = w_.find(mode, kPhaseBackward);
    if (forward && backward && forward->across.median > 0 &&
        backward->across.median / forward->across.median > kBackwardOverForward) {
      findings.push_back(fmt::format(
          "backward heavy: the backward pass takes {:.2f}x the forward pass ({}; about 2x is "
          "usual): look for recomputation (activation checkpointing), unfused layers or costly "
          "gradient hooks",
          backward->across.median / forward->across.median, mode));
    }

    const CaseResult* synced = w_.find(kOverlap, kPhaseBackward);
    const CaseResult* alone = w_.find(kNone, kPhaseBackward);
    if (synced && alone && alone->across.median > 0 &&
        synced->across.median / alone->across.median - 1 > kSyncSlowsBackward) {
      findings.push_back(fmt::format(
          "gradient sync slows the backward pass by {} ({} with overlap, {} without sync): it "
          "packs every gradient into its bucket, and the collectives' kernels compete with the "
          "backward kernels for SMs, memory bandwidth and power; fewer NCCL channels "
          "(NCCL_MAX_NCHANNELS) or fewer, larger buckets leave more to compute",
          percent(synced->across.median / alone->across.median - 1),
          formatSeconds(synced->across.median), formatSeconds(alone->across.median)));
    }

    if (findings.empty()) findings.push_back(nothingFired(mode));
  }

  void communicationBound() {
    const std::string mode = w_.firstMeasured({kOverlap, kSequential});
    if (mode.empty()) return;
    const auto exposed = exposedTime(mode);
    const double step = w_.step(mode)->across.median;
    if (!exposed || step <= 0 || *exposed / step <= kCommunicationBoundShare) return;
    const std::string remedies =
        mode == kOverlap
            ? "use larger buckets, compress gradients (bf16/fp16 or PowerSGD), or a faster link"
            : "overlap the reduction with backward (mode overlap), use larger buckets, compress "
              "gradients (bf16/fp16 or PowerSGD), or a faster link";
    result_.findings.push_back(
        fmt::format("communication bound: gradient communication adds {} that computation does "
                    "not hide, {} of the step ({}): {}",
                    formatSeconds(*exposed), percent(*exposed / step), mode, remedies));
  }

  // Ranks whose compute step (mode none) is more than kStragglerExcess over the median rank's.
  void stragglers() {
    const CaseResult* compute = w_.step(kNone);
    if (!compute || compute->ranks.size() < 2 || compute->across.median <= 0) return;
    const double median = compute->across.median;
    for (const auto& [rank, time] : rankMedians(*compute)) {
      if (time / median - 1 > kStragglerExcess) {
        result_.findings.push_back(fmt::format(
            "straggler: rank {} computes {} slower than the median rank (T_c {} against {}): "
            "every synchronised step waits for it; check its SM clock and temperature, other "
            "processes on its GPU, and its CPU/NUMA binding",
            rank, percent(time / median - 1), formatSeconds(time), formatSeconds(median)));
      }
    }
  }

  std::string nothingFired(std::string_view mode) const {
    const auto phases = w_.phases(mode);
    if (phases.empty()) {
      return fmt::format("no bottleneck rule fired; no phase of the {} step was measured", mode);
    }
    const CaseResult* largest = *std::max_element(
        phases.begin(), phases.end(),
        [](const CaseResult* a, const CaseResult* b) { return *a->share < *b->share; });
    return fmt::format("no bottleneck rule fired: the largest phase is {} at {} of the step ({})",
                       largest->series, percent(*largest->share), mode);
  }

  const WorkloadCases& w_;
  const std::vector<CaseResult>& cases_;
  DerivedResult result_;
};

}  // namespace

std::vector<DerivedResult> deriveStepFigures(const std::vector<CaseResult>& cases) {
  std::vector<WorkloadCases> workloads;
  for (const CaseResult& c : cases) {
    if (c.suite != key::kSuite || c.skipped()) continue;
    auto w = std::find_if(workloads.begin(), workloads.end(),
                          [&c](const WorkloadCases& known) { return known.matches(c); });
    if (w == workloads.end()) {
      w = workloads.insert(workloads.end(),
                           WorkloadCases(param(c, key::kModel), param(c, key::kPrecision)));
    }
    w->add(&c);
  }
  std::vector<DerivedResult> results;
  for (const WorkloadCases& w : workloads) results.push_back(StepFigures(w, cases).run());
  return results;
}

}  // namespace splitstep
