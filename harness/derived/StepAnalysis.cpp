#include "derived/StepAnalysis.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "cases/MatmulCase.hpp"
#include "cases/Rates.hpp"
#include "cases/StepCase.hpp"
#include "common/StepKeys.hpp"
#include "common/Units.hpp"
#include "derived/StepBreakdown.hpp"
#include "derived/StepDiagnosis.hpp"
#include "derived/WorkloadCases.hpp"

namespace splitstep {

using namespace step_analysis;

namespace {

namespace key = step_keys;

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

// The short table's row of the GPU's busy share of the step, and those of each phase under
// it: "  in backward".
constexpr std::string_view kBusyRow = "GPU busy, kernel time / step";
constexpr std::string_view kPhaseRow = "  in ";

class StepFigures {
 public:
  StepFigures(const WorkloadCases& workload, const std::vector<CaseResult>& cases)
      : w_(workload), cases_(cases) {
    result_.suite = key::kSuite;
    result_.subject = w_.model() + " " + std::string(toString(w_.precision()));
    result_.title = "where the step time goes";
    std::vector<std::string> modes;
    for (const ModeName& m : kModeNames) {
      modes.push_back(fmt::format("{}: {}", m.mode, m.mode == kNone ? "compute only" : m.meaning));
    }
    result_.legend = fmt::format("{}", fmt::join(modes, "; "));
  }

  DerivedResult run() {
    stepTimes();
    for (const ModeName& m : kModeNames) busy(m.mode);
    foldBusyPhases();
    for (const ModeName& m : kModeNames) graphed(m.mode);
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
    result_.lead_findings = diagnose(w_, std::move(fired_), result_.findings);
    return std::move(result_);
  }

 private:
  DerivedFigure& add(std::string tag, std::string name, std::string unit, double value) {
    return result_.addFigure(std::move(tag), std::move(name), std::move(unit), value);
  }

  // The figure in the short table, in `row` of the column of its sync mode.
  static DerivedFigure& tabulate(DerivedFigure& f, std::string row, std::string_view mode) {
    f.row = std::move(row);
    f.column = mode;
    return f;
  }

  void stepTimes() {
    for (const ModeName& m : kModeNames) {
      const CaseResult* c = w_.step(m.mode);
      if (!c) continue;
      DerivedFigure& f = tabulate(
          add(fmt::format("step/time/{}", m.mode),
              fmt::format("{}, {} ({})", m.symbol, m.meaning, m.mode), "s", c->across.median),
          "step time (T_c, T_seq, T_ddp, T_1)", m.mode);
      if (m.mode != kSingle) f.per_rank = perRank(rankMedians(*c));
      f.key = {{"figure", typedName("step/time")}, {"mode", typedName(m.mode)}};
    }
  }

  // The GPU's busy share of the step and of each phase (its kernel time over the phase's time,
  // from the profiled steps' detail series), and the step's idle remainder.
  void busy(std::string_view mode) {
    const CaseResult* step = w_.step(mode);
    const CaseResult* busy = w_.find(mode, key::busySeries(key::kWhole));
    if (!step || !busy || step->across.median <= 0) return;
    const double share = std::min(1.0, busy->across.median / step->across.median);
    DerivedFigure& f =
        tabulate(add(fmt::format("step/busy/{}", mode),
                     fmt::format("GPU busy, kernel time / step ({})", mode), "%", share * 100),
                 std::string(kBusyRow), mode);
    const auto steps = rankMedians(*step);
    for (const auto& [rank, median] : rankMedians(*busy)) {
      if (const auto s = steps.find(rank); s != steps.end() && s->second > 0) {
        f.per_rank.emplace_back(rank, std::min(1.0, median / s->second) * 100);
      }
    }
    // The idle time is the step less its busy share: in the results, not in the short table.
    add(fmt::format("step/idle/{}", mode), fmt::format("GPU idle, step - kernel time ({})", mode),
        "s", std::max(0.0, step->across.median - busy->across.median));
    for (const WorkloadCases::PhaseBusy& p : w_.busyPhases(mode)) {
      const std::string_view phase = toString(p.phase);
      tabulate(add(fmt::format("step/busy/{}/{}", mode, phase),
                   fmt::format("GPU busy in {} ({})", phase, mode), "%",
                   std::min(1.0, p.busy / p.time) * 100),
               fmt::format("{}{}", kPhaseRow, phase), mode)
          .note = fmt::format("kernels {} of {}", formatSeconds(p.busy), formatSeconds(p.time));
    }
  }

  // The mode's graphed step beside its eager one (--step-graphs): its time, the gain, and the
  // GPU's busy share of it. Near 100%, the graph took out what the host's launches cost.
  void graphed(std::string_view mode) {
    const CaseResult* graph = w_.graphed(mode, key::kWhole);
    if (!graph || graph->across.median <= 0) return;
    const double seconds = graph->across.median;
    tabulate(add(fmt::format("step/graphed/{}", mode),
                 fmt::format("graphed step, one CUDA graph replay ({})", mode), "s", seconds),
             "graphed step, no launches", mode);
    if (const CaseResult* eager = w_.step(mode)) {
      tabulate(add(fmt::format("step/graph_gain/{}", mode),
                   fmt::format("graph gain, eager step / graphed step ({})", mode), "x",
                   eager->across.median / seconds),
               "graph gain, eager / graphed", mode);
    }
    if (const CaseResult* busy = w_.graphed(mode, key::busySeries(key::kWhole))) {
      tabulate(add(fmt::format("step/graphed/busy/{}", mode),
                   fmt::format("GPU busy, kernel time / graphed step ({})", mode), "%",
                   std::min(1.0, busy->across.median / seconds) * 100),
               "GPU busy in the graphed step", mode)
          .note = fmt::format("kernels {} of {}", formatSeconds(busy->across.median),
                              formatSeconds(seconds));
    }
  }

  // A phase's busy row stays in the short table where the GPU idles there in some mode
  // (under kHostBoundBusy), so that the table points at the phases that hold the step back;
  // every phase's figure stays in the results.
  void foldBusyPhases() {
    std::map<std::string, bool> idles;  // by row: a mode under kHostBoundBusy
    for (const DerivedFigure& f : result_.figures) {
      if (f.row.starts_with(kPhaseRow)) idles[f.row] |= f.value < kHostBoundBusy * 100;
    }
    bool folded = false;
    for (DerivedFigure& f : result_.figures) {
      if (f.row.starts_with(kPhaseRow) && !idles[f.row]) {
        f.row.clear();
        folded = true;
      }
    }
    if (!folded) return;
    const std::string label =
        fmt::format("GPU busy / step, phases under {:.0f}%", kHostBoundBusy * 100);
    for (DerivedFigure& f : result_.figures) {
      if (f.row == kBusyRow) f.row = label;
    }
  }

  void communication(std::string_view mode) {
    const CaseResult* comm = w_.find(mode, key::kComm);
    if (!comm) return;
    tabulate(add(fmt::format("step/comm/{}", mode),
                 fmt::format("T_comm, gradient collectives ({})", mode), "s", comm->across.median),
             "gradient collectives (T_comm)", mode)
        .per_rank = perRank(rankMedians(*comm));
  }

  void exposed(std::string_view mode) {
    const auto exposed = w_.exposedTime(mode);
    if (!exposed) return;
    const CaseResult* synced = w_.step(mode);
    DerivedFigure& f =
        tabulate(add(fmt::format("step/exposed/{}", mode),
                     fmt::format("exposed communication, {} - T_c ({})", symbolOf(mode), mode), "s",
                     *exposed),
                 "exposed communication, step - T_c", mode);
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
    const auto exposed = w_.exposedTime(mode);
    const CaseResult* comm = w_.find(mode, key::kComm);
    // Alone, a rank's collectives are copies of a few microseconds: there is nothing to hide.
    if (!exposed || !comm || comm->across.median <= 0 || worldSize(*comm) < 2) return;
    const double overlap = 1 - *exposed / comm->across.median;
    DerivedFigure& f =
        tabulate(add(fmt::format("step/overlap/{}", mode),
                     fmt::format("overlap, 1 - exposed / T_comm ({})", mode), "%", overlap * 100),
                 "overlap, 1 - exposed / T_comm", mode);
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
      fired_.push_back(
          {longest->second / step, kLateRankWait,
           fmt::format("late rank {}, others wait {} of the step against {}", late,
                       percent(longest->second / step), percent(kLateRankWait)),
           fmt::format(
               "late rank: rank {} reaches the gradient collectives last ({}): the others wait "
               "up to {} per step for it, {} of the step; {}",
               late, mode, formatSeconds(longest->second), percent(longest->second / step),
               w_.onCpu() ? "check its host work, other processes on its cores and its NUMA "
                            "binding"
                          : "check its input pipeline, its SM clock and temperature, other "
                            "processes on its GPU and its CPU/NUMA binding")});
    }
    if (const auto& delay = w_.fieldsOf(*comm).delay) {
      result_.notes.push_back(
          fmt::format("rank {} was made late by {} in every step on purpose "
                      "(--delay-rank, --delay-ms)",
                      delay->rank, formatSeconds(delay->seconds)));
    }
  }

  // The values of `c` on `rank`, one per step; empty when it did not measure the case.
  static std::vector<double> valuesOn(const CaseResult* c, int rank) {
    if (c == nullptr) return {};
    for (const RankResult& r : c->ranks) {
      if (r.rank == rank) return r.measurement.values;
    }
    return {};
  }

  // T_mode - T_c in parts that add up, per rank (derived/StepBreakdown).
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
      // The whole is the exposed communication's row already; alone, a rank waits for no one
      // (its figure, 0, stays in the results).
      const bool alone = b.ranks.size() < 2 && part.field == &StepParts::wait;
      if (part.name[0] != '\0' && !alone) tabulate(f, part.name, mode);
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
    DerivedFigure& f =
        add(fmt::format("step/efficiency/{}", mode),
            fmt::format("weak-scaling efficiency, T_1 / {} ({})", symbolOf(mode), mode), "%",
            one->across.median / many->across.median * 100);
    // Alone, it is the exposed communication's row again: in the results, not the short table.
    if (worldSize(*many) > 1) {
      tabulate(f, "weak-scaling efficiency, T_1 / step", mode).note =
          fmt::format("{} ranks against one, the same batch per rank", worldSize(*many));
    } else {
      f.note = "one rank: what bucketing and the sync calls cost without any peer";
    }
  }

  void throughput() {
    const std::string samples_unit(rates::kSamplesPerSecond.unit);
    const std::string mode = w_.firstMeasured({kOverlap, kSequential});
    if (!mode.empty()) {
      const CaseResult* c = w_.step(mode);
      const auto batch = static_cast<double>(w_.fieldsOf(*c).batch);
      if (c->across.median > 0) {
        add(fmt::format("step/samples_per_s/per_gpu/{}", mode),
            fmt::format("samples/s per rank ({})", mode), samples_unit, batch / c->across.median);
        const int size = worldSize(*c);
        add(fmt::format("step/samples_per_s/total/{}", mode),
            fmt::format("samples/s in total, {} ranks ({})", size, mode), samples_unit,
            size * batch / c->across.median);
      }
    }
    if (const CaseResult* one = w_.step(kSingle)) {
      const auto batch = static_cast<double>(w_.fieldsOf(*one).batch);
      if (one->across.median > 0) {
        add("step/samples_per_s/single", "samples/s on rank 0 alone (single)", samples_unit,
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
      const auto tflops = c.rate(rates::kTflops);
      if (tflops && (!best || *tflops > best->first)) best = {*tflops, c.case_name};
    }
    return best;
  }

  void modelFlops() {
    const CaseResult* compute = w_.step(kNone);
    if (!compute || compute->across.median <= 0) return;
    const auto flop = w_.fieldsOf(*compute).flop_per_step;
    if (flop <= 0) return;  // none counted (an exported model): the step's notes say so
    const double tflops = flop / compute->across.median / rates::kTflops.scale;
    DerivedFigure& f = add("step/tflops/none", "model TFLOP/s at T_c (none)",
                           std::string(rates::kTflops.unit), tflops);
    for (const auto& [rank, median] : rankMedians(*compute)) {
      if (median > 0) f.per_rank.emplace_back(rank, flop / median / rates::kTflops.scale);
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

  const WorkloadCases& w_;
  const std::vector<CaseResult>& cases_;
  DerivedResult result_;
  std::vector<RuleFired> fired_;  // rules the figures fired, for the diagnosis to weigh
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
