#include "analysis/StepAnalysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "analysis/StepBreakdown.hpp"
#include "cases/MatmulCase.hpp"
#include "cases/StepCase.hpp"
#include "common/StepKeys.hpp"
#include "common/Units.hpp"
#include "options/StepPlan.hpp"

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

// The GEMM dtype whose TFLOP/s bound a step of this precision (the compute ceiling).
MatmulDtype matmulDtypeOf(StepPrecision precision) {
  switch (precision) {
    case StepPrecision::Fp32:
      return MatmulDtype::Fp32;
    case StepPrecision::Bf16:
      return MatmulDtype::Bf16;
    case StepPrecision::Fp16:
      return MatmulDtype::Fp16;
  }
  return MatmulDtype::Fp32;
}

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
  explicit WorkloadCases(const StepCase& fields)
      : model_(fields.model), precision_(fields.precision) {}

  const std::string& model() const { return model_; }
  StepPrecision precision() const { return precision_; }
  bool matches(const StepCase& fields) const {
    return fields.model == model_ && fields.precision == precision_;
  }
  // `c` with its fields decoded.
  void add(const CaseResult* c, const StepCase& fields) {
    cases_[std::string(toString(fields.mode))].try_emplace(c->series, c);
    fields_.try_emplace(c, fields);
  }
  // The decoded fields of a case added before.
  const StepCase& fieldsOf(const CaseResult& c) const { return fields_.at(&c); }

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
  StepPrecision precision_;
  std::map<std::string, std::map<std::string, const CaseResult*, std::less<>>, std::less<>> cases_;
  std::map<const CaseResult*, StepCase> fields_;
};

class StepFigures {
 public:
  StepFigures(const WorkloadCases& workload, const std::vector<CaseResult>& cases)
      : w_(workload), cases_(cases) {
    result_.suite = key::kSuite;
    result_.subject = w_.model() + " " + std::string(toString(w_.precision()));
    result_.title = "where the step time goes";
  }

  DerivedResult run() {
    stepTimes();
    for (std::string_view mode : {kSequential, kOverlap}) {
      communication(mode);
      exposed(mode);
      overlap(mode);
      wait(mode);
      breakdown(mode);
      ledger(mode);
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
    return result_.addFigure(std::move(tag), std::move(name), std::move(unit), value);
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

  // Only a mode that overlaps has an overlap; sequential's would measure noise and slowdown.
  void overlap(std::string_view mode) {
    if (mode != kOverlap) return;
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
    // The rank whose collectives wait least in most steps arrives last: the others wait for it.
    std::map<int, int> last_in;
    for (std::size_t i = 0; i < steps; ++i) {
      const auto last = std::min_element(comm->ranks.begin(), comm->ranks.end(),
                                         [i](const RankResult& a, const RankResult& b) {
                                           return a.measurement.values[i] < b.measurement.values[i];
                                         });
      ++last_in[last->rank];
    }
    const int late =
        std::max_element(last_in.begin(), last_in.end(), [](const auto& a, const auto& b) {
          return a.second < b.second;
        })->first;
    f.note = fmt::format(
        "rank {} waits longest; rank {} reaches the collectives last in {} of {} "
        "steps",
        longest->first, late, last_in[late], steps);
    const double step = w_.step(mode) ? w_.step(mode)->across.median : 0;
    if (step > 0 && longest->second / step > kLateRankWait) {
      result_.findings.push_back(fmt::format(
          "late rank: rank {} reaches the gradient collectives last ({}): the others wait up to "
          "{} per step for it, {} of the step; {}",
          late, mode, formatSeconds(longest->second), percent(longest->second / step),
          onCpu() ? "check its host work, other processes on its cores and its NUMA binding"
                  : "check its input pipeline, its SM clock and temperature, other processes "
                    "on its GPU and its CPU/NUMA binding"));
    }
    if (const auto& delay = w_.fieldsOf(*comm).delay) {
      result_.notes.push_back(
          fmt::format("rank {} was made late by {} in every step on purpose "
                      "(--delay-rank, --delay-ms)",
                      delay->rank, formatSeconds(delay->seconds)));
    }
  }

  bool onCpu() const {
    for (std::string_view mode : {kNone, kSequential, kOverlap, kSingle}) {
      if (const CaseResult* c = w_.step(mode)) return !w_.fieldsOf(*c).on_cuda;
    }
    return false;
  }

  // The values of `c` on `rank`, one per step; empty when it did not measure the case.
  static std::vector<double> valuesOn(const CaseResult* c, int rank) {
    if (c == nullptr) return {};
    for (const RankResult& r : c->ranks) {
      if (r.rank == rank) return r.measurement.values;
    }
    return {};
  }

  // T_mode - T_c in parts that add up, per rank (analysis/StepBreakdown).
  void breakdown(std::string_view mode) {
    const CaseResult* step = w_.step(mode);
    const CaseResult* none = w_.step(kNone);
    if (!step || !none) return;
    std::vector<RankSteps> ranks;
    for (const RankResult& r : step->ranks) {
      ranks.push_back({r.rank, r.measurement.values,
                       valuesOn(w_.find(mode, kPhaseBackward), r.rank),
                       valuesOn(w_.find(mode, toString(Phase::Sync)), r.rank),
                       valuesOn(w_.find(mode, key::kPacking), r.rank),
                       valuesOn(w_.find(mode, key::kComm), r.rank), valuesOn(none, r.rank),
                       valuesOn(w_.find(kNone, kPhaseBackward), r.rank)});
    }
    const StepBreakdown b = breakDownStep(ranks);
    if (b.ranks.empty()) return;
    struct Part {
      const char* tag;
      const char* name;
      Estimate StepParts::*field;
    };
    const Part parts[] = {
        {"delta", "", &StepParts::delta},
        {"backward_slowdown", "  backward slowdown", &StepParts::backward_slowdown},
        {"packing", "  packing outside backward", &StepParts::packing},
        {"tail_comm", "  tail communication, not waiting", &StepParts::tail},
        {"wait", "  waiting for later ranks", &StepParts::wait},
        {"residual", "  residual", &StepParts::residual}};
    for (const Part& part : parts) {
      const Estimate& mean = b.mean.*part.field;
      const std::string name =
          part.name[0] == '\0'
              ? fmt::format("{} - T_c in parts, mean over ranks ({})", symbolOf(mode), mode)
              : fmt::format("{} ({})", part.name, mode);
      DerivedFigure& f =
          add(fmt::format("step/breakdown/{}/{}", mode, part.tag), name, "s", mean.value);
      f.interval = std::pair{mean.low, mean.high};
      for (const StepParts& r : b.ranks) f.per_rank.emplace_back(r.rank, (r.*part.field).value);
    }
    result_.notes.push_back(fmt::format(
        "{0} - T_c = backward slowdown + packing + tail communication + wait + residual, on "
        "each rank from the medians of its steps ({1}); [intervals]: 95%, bootstrap over steps",
        symbolOf(mode), mode));
  }

  // Each gradient bucket's timeline (detail figures) and the bucket that ends last.
  void ledger(std::string_view mode) {
    struct Row {
      std::size_t bucket;
      double bytes, ready, delay, comm, finish;
      const CaseResult* finish_case;
    };
    std::vector<Row> rows;
    for (std::size_t b = 0;; ++b) {
      auto series = [&](std::string_view quantity) {
        return w_.find(mode, fmt::format("bucket {} {}", b, quantity));
      };
      const CaseResult* ready = series(key::kBucketReady);
      const CaseResult* delay = series(key::kBucketLaunchDelay);
      const CaseResult* comm = series(key::kBucketComm);
      const CaseResult* finish = series(key::kBucketFinish);
      if (!ready || !delay || !comm || !finish) break;
      const auto& bucket = w_.fieldsOf(*ready).bucket;
      rows.push_back({b, bucket ? static_cast<double>(bucket->bytes) : 0, ready->across.median,
                      delay->across.median, comm->across.median, finish->across.median, finish});
    }
    if (rows.empty()) return;
    for (const Row& r : rows) {
      DerivedFigure& f =
          add(fmt::format("step/ledger/{}/bucket{}", mode, r.bucket),
              fmt::format("bucket {} ends after backward ({})", r.bucket, mode), "s", r.finish);
      f.detail = true;
      f.note = fmt::format("{}: ready {} into backward, launch delay {}, comm {}",
                           formatBytesApprox(r.bytes), formatSeconds(r.ready),
                           formatSeconds(r.delay), formatSeconds(r.comm));
    }
    const auto last = std::max_element(
        rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.finish < b.finish; });
    const auto after =
        std::count_if(rows.begin(), rows.end(), [](const Row& r) { return r.finish > 0; });
    DerivedFigure& f = add(fmt::format("step/ledger/{}/last", mode),
                           fmt::format("last bucket's end after backward, bucket {} of {} ({})",
                                       last->bucket, rows.size(), mode),
                           "s", last->finish);
    f.per_rank = perRank(rankMedians(*last->finish_case));
    f.note = fmt::format(
        "{}, ready {} into backward, launch delay {}, comm {}; {} of {} buckets end after "
        "backward; every bucket's timeline is in the results file",
        formatBytesApprox(last->bytes), formatSeconds(last->ready), formatSeconds(last->delay),
        formatSeconds(last->comm), after, rows.size());
  }

  int worldSize(const CaseResult& c) const {
    const std::int64_t size = w_.fieldsOf(c).world_size;
    return size >= 1 ? static_cast<int>(size) : static_cast<int>(c.ranks.size());
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
      const auto batch = static_cast<double>(w_.fieldsOf(*c).batch);
      if (c->across.median > 0) {
        add(fmt::format("step/samples_per_s/per_gpu/{}", mode),
            fmt::format("samples/s per rank ({})", mode), "samples/s", batch / c->across.median);
        const int size = worldSize(*c);
        add(fmt::format("step/samples_per_s/total/{}", mode),
            fmt::format("samples/s in total, {} ranks ({})", size, mode), "samples/s",
            size * batch / c->across.median);
      }
    }
    if (const CaseResult* one = w_.step(kSingle)) {
      const auto batch = static_cast<double>(w_.fieldsOf(*one).batch);
      if (one->across.median > 0) {
        add("step/samples_per_s/single", "samples/s on rank 0 alone (single)", "samples/s",
            batch / one->across.median);
      }
    }
  }

  // The highest matmul TFLOP/s of the workload's precision in this job, and its case.
  std::optional<std::pair<double, std::string>> ceiling() const {
    std::optional<std::pair<double, std::string>> best;
    for (const CaseResult& c : cases_) {
      const auto matmul = MatmulCase::decode(c.fields);
      if (!matmul || c.skipped() || matmul->dtype != matmulDtypeOf(w_.precision())) continue;
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
    const auto flop = w_.fieldsOf(*compute).flop_per_step;
    const double tflops = flop / compute->across.median / 1e12;
    DerivedFigure& f = add("step/tflops/none", "model TFLOP/s at T_c (none)", "TFLOP/s", tflops);
    for (const auto& [rank, median] : rankMedians(*compute)) {
      if (median > 0) f.per_rank.emplace_back(rank, flop / median / 1e12);
    }
    const auto peak = ceiling();
    if (!peak || peak->first <= 0) {
      f.note = fmt::format(
          "run matmul with --matmul-dtypes {} in the same job for the compute "
          "ceiling",
          toString(w_.precision()));
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
          "packs every gradient into its bucket, and {}",
          percent(synced->across.median / alone->across.median - 1),
          formatSeconds(synced->across.median), formatSeconds(alone->across.median),
          onCpu() ? "the collectives run on the host inside backward's gradient hooks, on the "
                    "cores backward uses; fewer, larger buckets cost fewer calls"
                  : "the collectives' kernels compete with the backward kernels for SMs, memory "
                    "bandwidth and power; fewer NCCL channels (NCCL_MAX_NCHANNELS) or fewer, "
                    "larger buckets leave more to compute"));
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
            "every synchronised step waits for it; {}",
            rank, percent(time / median - 1), formatSeconds(time), formatSeconds(median),
            onCpu() ? "check its CPU frequency, other processes on its cores and its NUMA binding"
                    : "check its SM clock and temperature, other processes on its GPU, and its "
                      "CPU/NUMA binding"));
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
    const auto fields = StepCase::decode(c.fields);
    if (!fields || c.skipped()) continue;
    auto w = std::find_if(workloads.begin(), workloads.end(),
                          [&](const WorkloadCases& known) { return known.matches(*fields); });
    if (w == workloads.end()) w = workloads.insert(workloads.end(), WorkloadCases(*fields));
    w->add(&c, *fields);
  }
  std::vector<DerivedResult> results;
  for (const WorkloadCases& w : workloads) results.push_back(StepFigures(w, cases).run());
  return results;
}

}  // namespace splitstep
