#include "derived/CollectiveAnalysis.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "cases/CollectiveCase.hpp"
#include "cases/Rates.hpp"
#include "cases/StepCase.hpp"
#include "comm/Collective.hpp"
#include "common/StepKeys.hpp"
#include "common/Units.hpp"
#include "derived/CollectiveModel.hpp"
#include "derived/StepProjection.hpp"
#include "options/StepPlan.hpp"

namespace splitstep {
namespace {

namespace key = step_keys;

constexpr std::string_view kBackward = toString(Phase::Backward);

std::string gbPerSecond(double bytes_per_second) {
  return fmt::format("{:.1f} GB/s", bytes_per_second / 1e9);
}

// One collective, backend, dtype and placement: the median time per size across ranks.
struct Sweep {
  const CollectiveDescriptor* collective = nullptr;
  std::string backend;
  CollectiveDtype dtype = CollectiveDtype::Fp32;
  bool in_place = false;
  int ranks = 0;
  std::vector<TimedSize> points;

  bool holds(const CollectiveCase& c, const CollectiveDescriptor* d) const {
    return d == collective && c.backend == backend && c.dtype == dtype && c.inPlace() == in_place;
  }
  std::string key() const {
    return fmt::format("{}/{}/{}/{}", collective->name, backend, toString(dtype),
                       in_place ? "in" : "out");
  }
  std::string subject() const {
    return fmt::format("{} {}{}", backend, toString(dtype), in_place ? " in place" : "");
  }
  // The sweep's part of a figure's key: what key() spells, typed.
  TypedFields fields() const {
    return {{"collective", typedName(collective->name)},
            {"backend", typedName(backend)},
            {"dtype", typedName(toString(dtype))},
            {"placement", typedName(in_place ? "in" : "out")}};
  }
  bool fits() const {
    std::set<double> sizes;
    for (const TimedSize& p : points) sizes.insert(p.bytes);
    return sizes.size() >= kMinSegmentPoints;
  }
};

std::vector<Sweep> sweepsOf(const std::vector<CaseResult>& cases) {
  std::vector<Sweep> sweeps;
  for (const CaseResult& c : cases) {
    const auto fields = CollectiveCase::decode(c.fields);
    const CollectiveDescriptor* d = fields ? findCollective(fields->collective) : nullptr;
    if (d == nullptr || c.skipped() || c.across.median <= 0) continue;
    auto s = std::find_if(sweeps.begin(), sweeps.end(),
                          [&](const Sweep& known) { return known.holds(*fields, d); });
    if (s == sweeps.end()) {
      s = sweeps.insert(sweeps.end(),
                        Sweep{d, fields->backend, fields->dtype, fields->inPlace(), 0, {}});
    }
    s->points.push_back({static_cast<double>(fields->bytes), c.across.median});
    s->ranks = std::max(s->ranks, static_cast<int>(c.ranks.size()));
  }
  return sweeps;
}

// Nodes of plan.gpus_per_node ranks; the network's link between them.
ClusterShape shapeOf(const ProjectionPlan& plan) {
  // Without a network latency of its own, the measured link's bounds it (max with 0).
  return {plan.gpus_per_node,
          {plan.internode_latency.value_or(0), 1 / plan.internode_bandwidth, 0}};
}

std::string placeOf(int ranks, const ProjectionPlan& plan) {
  if (ranks <= plan.gpus_per_node) return "one node";
  return fmt::format("{} nodes", (ranks + plan.gpus_per_node - 1) / plan.gpus_per_node);
}

std::string networkAssumption(const ProjectionPlan& plan) {
  return fmt::format(
      "ranks sit in nodes of {} joined by the measured link; a collective over more ranks is "
      "bounded by the slowest link in its path, the network's {} per rank and {} per message",
      plan.gpus_per_node, gbPerSecond(plan.internode_bandwidth),
      plan.internode_latency ? formatSeconds(*plan.internode_latency)
                             : "the measured link's latency (--project-internode-latency "
                               "sets the network's)");
}

std::string oneRankAssumption() {
  return "one rank measured: no data crossed a link, so there is no link to project to more "
         "ranks from; run on two or more ranks";
}

// The time of one call of `bytes` on `ranks` ranks: the model itself at the rank count it was
// fitted at, else projected with the collective's fastest algorithm.
std::optional<ProjectedTime> timeAt(const Sweep& sweep, const LatencyBandwidthModel& model,
                                    double bytes, int ranks, const ProjectionPlan& plan) {
  if (ranks == sweep.ranks) return ProjectedTime{nullptr, model.predict(bytes), nullptr, 0};
  const auto link = linkCostOf(model, bytes, sweep.collective->algorithms.front(), sweep.ranks);
  if (!link) return std::nullopt;
  return fastestAlgorithm(sweep.collective->algorithms, boundingLink(*link, shapeOf(plan), ranks),
                          ranks, bytes);
}

class Figures {
 public:
  Figures(std::string suite, std::string subject, std::string title) {
    result_.suite = std::move(suite);
    result_.subject = std::move(subject);
    result_.title = std::move(title);
  }
  DerivedFigure& add(std::string tag, std::string name, std::string unit, double value) {
    return result_.addFigure(std::move(tag), std::move(name), std::move(unit), value);
  }
  void assume(std::string assumption) { result_.assumptions.push_back(std::move(assumption)); }
  void find(std::string finding) { result_.findings.push_back(std::move(finding)); }
  DerivedResult take() { return std::move(result_); }

 private:
  DerivedResult result_;
};

void fitFigures(Figures& f, const Sweep& sweep, const LatencyBandwidthModel& m) {
  const std::string tag = "collective/fit/" + sweep.key();
  const auto bus = busBandwidthFactor(*sweep.collective, sweep.ranks);
  for (std::size_t i = 0; i < m.segments.size(); ++i) {
    const LineFit& s = m.segments[i];
    const std::string range =
        m.segments.size() == 1
            ? ""
            : fmt::format(", {} to {}",
                          formatBytes(static_cast<std::uint64_t>(m.points[s.first].bytes)),
                          formatBytes(static_cast<std::uint64_t>(m.points[s.last].bytes)));
    // Above the first segment bandwidth still grows with size: the line's intercept there is
    // no latency.
    f.add(fmt::format("{}/{}/alpha", tag, i + 1),
          fmt::format("α, {}{}", i == 0 ? "latency" : "intercept", range), "s", s.alpha);
    if (s.beta > 0) {
      DerivedFigure& bw =
          f.add(fmt::format("{}/{}/bandwidth", tag, i + 1), fmt::format("1/β, bandwidth{}", range),
                std::string(rates::kAlgbw.unit), 1 / s.beta / rates::kAlgbw.scale);
      if (bus) bw.note = fmt::format("busbw {}", gbPerSecond(*bus / s.beta));
    }
    if (i > 0) {
      f.add(fmt::format("{}/breakpoint/{}", tag, i), fmt::format("protocol change {}", i), "B",
            m.points[s.first].bytes)
          .note = fmt::format("segment {} starts here; segment {} ended at {}", i + 1, i,
                              formatBytes(static_cast<std::uint64_t>(m.points[s.first - 1].bytes)));
    }
  }
  DerivedFigure& r2 = f.add(tag + "/r2", "R², of log time", "%", m.r2 * 100);
  r2.note = fmt::format("residuals: rms {:.1f}%, largest {:.1f}%; {} of {} sizes beyond {:g}%",
                        m.rms_residual * 100, m.largest_residual * 100, m.outside, m.points.size(),
                        kModelTolerance * 100);
  if (m.valid_to > 0) {
    f.add(tag + "/valid_from", fmt::format("holds within {:g}% from", kModelTolerance * 100), "B",
          m.valid_from);
    f.add(tag + "/valid_to", fmt::format("holds within {:g}% up to", kModelTolerance * 100), "B",
          m.valid_to);
  }
}

void projectionFigures(Figures& f, const Sweep& sweep, const LatencyBandwidthModel& m,
                       const ProjectionPlan& plan) {
  const double bytes = m.points.back().bytes;
  if (const double miss = std::abs(m.residuals.back()); miss > kModelTolerance) {
    f.find(
        fmt::format("the model misses the largest size, {}, by {:.0f}%: the projections of it "
                    "carry that error",
                    formatBytes(static_cast<std::uint64_t>(bytes)), miss * 100));
  }
  const AlgorithmCost& measured = sweep.collective->algorithms.front();
  const auto link = linkCostOf(m, bytes, measured, sweep.ranks);
  if (!link) {
    f.assume(oneRankAssumption());
    return;
  }
  for (int ranks : plan.ranks) {
    const ProjectedTime p = *timeAt(sweep, m, bytes, ranks, plan);
    const std::string tag = fmt::format("collective/projection/{}/N={}", sweep.key(), ranks);
    const std::string where = fmt::format("N={} ({})", ranks, placeOf(ranks, plan));
    DerivedFigure& time =
        f.add(tag + "/time",
              fmt::format("{}: time of {}", where, formatBytes(static_cast<std::uint64_t>(bytes))),
              "s", p.seconds);
    time.key = {{"figure", typedName("collective/projection/time")}};
    for (auto& field : sweep.fields()) time.key.push_back(std::move(field));
    time.key.emplace_back("ranks", typedInteger(ranks));
    if (p.algorithm == nullptr) {
      time.note = "the fitted model: the measured rank count";
    } else {
      time.note = p.runner_up == nullptr
                      ? std::string(p.algorithm->name)
                      : fmt::format("{}; {} {}", p.algorithm->name, p.runner_up->name,
                                    formatSeconds(p.runner_up_seconds));
    }
    f.add(tag + "/busbw", where + ": busbw", std::string(rates::kBusbw.unit),
          bytes * sweep.collective->bus_factor(ranks) / p.seconds / rates::kBusbw.scale);
  }
  f.assume(fmt::format(
      "the {} measured ranks ran the {} algorithm: one link's latency {} per message (the first "
      "segment's α) and bandwidth {} (the segment of {})",
      sweep.ranks, measured.name, formatSeconds(link->alpha), gbPerSecond(1 / link->beta),
      formatBytes(static_cast<std::uint64_t>(bytes))));
  std::vector<std::string_view> names;
  for (const AlgorithmCost& a : sweep.collective->algorithms) names.push_back(a.name);
  f.assume(fmt::format(
      "at each N the fastest of {} (docs/metrics.md); the model's per-call overhead beyond the "
      "latency ({}) stays the same at every N",
      fmt::join(names, ", "), formatSeconds(link->overhead)));
  f.assume(networkAssumption(plan));
}

// A projected step time's key: the rank count and the mode whose measured step time
// (step/time/<mode>) it stands beside.
TypedFields stepProjectionKey(int ranks, SyncMode mode) {
  return {{"figure", typedName("step/projection")},
          {"ranks", typedInteger(ranks)},
          {"mode", typedName(toString(mode))}};
}

// The fp32 allreduce sweep the step's gradients follow: NCCL before MPI, in place before not.
const Sweep* gradientSweep(const std::vector<Sweep>& sweeps) {
  const Sweep* best = nullptr;
  auto rank = [](const Sweep& s) { return (s.backend == "nccl" ? 2 : 0) + (s.in_place ? 1 : 0); };
  for (const Sweep& s : sweeps) {
    if (s.collective != &allReduce() || s.dtype != CollectiveDtype::Fp32 || !s.fits()) continue;
    if (best == nullptr || rank(s) > rank(*best)) best = &s;
  }
  return best;
}

// The measured cases of one step workload that the projection reads.
struct StepWorkload {
  std::string model;
  StepPrecision precision = StepPrecision::Fp32;
  const CaseResult* compute = nullptr;   // mode none, the whole step
  const CaseResult* backward = nullptr;  // mode none, its backward phase
  const CaseResult* sequential = nullptr;
  const CaseResult* overlap = nullptr;
  std::vector<double> buckets;  // bytes, in launch order
};

std::vector<StepWorkload> stepWorkloads(const std::vector<CaseResult>& cases) {
  std::vector<StepWorkload> workloads;
  for (const CaseResult& c : cases) {
    const auto fields = StepCase::decode(c.fields);
    if (!fields || c.skipped()) continue;
    auto w = std::find_if(workloads.begin(), workloads.end(), [&](const StepWorkload& known) {
      return known.model == fields->model && known.precision == fields->precision;
    });
    if (w == workloads.end()) {
      w = workloads.emplace(workloads.end());
      w->model = fields->model;
      w->precision = fields->precision;
    }
    const SyncMode mode = fields->mode;
    const bool whole = c.series == key::kWhole;
    if (mode == SyncMode::None && whole) w->compute = &c;
    if (mode == SyncMode::None && c.series == kBackward) w->backward = &c;
    if (mode == SyncMode::Sequential && whole) w->sequential = &c;
    if (mode == SyncMode::Overlap && whole) w->overlap = &c;
    if (w->buckets.empty() && fields->buckets) {
      w->buckets.assign(fields->buckets->bytes.begin(), fields->buckets->bytes.end());
    }
  }
  return workloads;
}

DerivedResult stepProjection(const StepWorkload& w, const Sweep& sweep,
                             const LatencyBandwidthModel& m, const ProjectionPlan& plan) {
  Figures f(std::string(key::kSuite), w.model + " " + std::string(toString(w.precision)),
            "projected from the allreduce model");
  const double compute = w.compute->across.median;
  // T_ddp needs the backward phase of the compute step.
  const bool overlaps = w.backward != nullptr;
  const double backward = overlaps ? w.backward->across.median : 0;
  // Each bucket's allreduce time on `ranks` ranks; empty where it cannot be projected.
  auto bucketTimes = [&](int ranks) -> std::optional<std::vector<double>> {
    std::vector<double> seconds;
    for (double bytes : w.buckets) {
      const auto t = timeAt(sweep, m, bytes, ranks, plan);
      if (!t) return std::nullopt;
      seconds.push_back(t->seconds);
    }
    return seconds;
  };

  const std::vector<double> measured = *bucketTimes(sweep.ranks);
  const std::string at = fmt::format("at {} rank{}", sweep.ranks, sweep.ranks == 1 ? "" : "s");
  // The prediction at the measured rank count against the step measured there.
  auto check = [&](std::string_view symbol, std::string_view mode, double predicted,
                   double actual) {
    f.add(fmt::format("step/projection/check/{}", symbol),
          fmt::format("{} predicted {} ({})", symbol, at, mode), "s", predicted)
        .note = fmt::format("measured {}", formatSeconds(actual));
    f.add(fmt::format("step/projection/check/{}_ratio", symbol),
          fmt::format("predicted / measured {} {} ({})", symbol, at, mode), "%",
          predicted / actual * 100);
  };
  if (w.sequential != nullptr && w.sequential->across.median > 0) {
    check("T_seq", "sequential", sequentialStepTime(compute, measured),
          w.sequential->across.median);
  }
  if (overlaps && w.overlap != nullptr && w.overlap->across.median > 0) {
    check("T_ddp", "overlap", overlappedStepTime(compute, backward, w.buckets, measured),
          w.overlap->across.median);
  }

  if (sweep.ranks < 2) {
    f.assume(oneRankAssumption());
  } else {
    for (int ranks : plan.ranks) {
      const std::vector<double> seconds = *bucketTimes(ranks);
      const std::string where = fmt::format("N={} ({})", ranks, placeOf(ranks, plan));
      const double sequential = sequentialStepTime(compute, seconds);
      DerivedFigure& projected_sequential = f.add(fmt::format("step/projection/N={}/T_seq", ranks),
                                                  "T_seq " + where, "s", sequential);
      projected_sequential.note =
          fmt::format("efficiency T_c / T_seq {:.1f}%", compute / sequential * 100);
      projected_sequential.key = stepProjectionKey(ranks, SyncMode::Sequential);
      if (overlaps) {
        const double overlapped = overlappedStepTime(compute, backward, w.buckets, seconds);
        DerivedFigure& projected_overlap = f.add(fmt::format("step/projection/N={}/T_ddp", ranks),
                                                 "T_ddp " + where, "s", overlapped);
        projected_overlap.note =
            fmt::format("efficiency T_c / T_ddp {:.1f}%", compute / overlapped * 100);
        projected_overlap.key = stepProjectionKey(ranks, SyncMode::Overlap);
      }
    }
  }

  f.assume(fmt::format("T_c ({}, mode none) is the same at every N: the same batch per rank",
                       formatSeconds(compute)));
  f.assume(fmt::format(
      "each of the {} bucket{} is allreduced in the time the model of this run's {} {} {} "
      "allreduce gives (fitted at {} rank{}; elsewhere projected as that allreduce is)",
      w.buckets.size(), w.buckets.size() == 1 ? "" : "s", sweep.backend, toString(sweep.dtype),
      sweep.in_place ? "in-place" : "out-of-place", sweep.ranks, sweep.ranks == 1 ? "" : "s"));
  f.assume(
      "T_seq = T_c + the buckets' allreduces one after another; copying gradients into and out "
      "of the buckets is not counted");
  if (overlaps) {
    f.assume(fmt::format(
        "T_ddp: backward ({}) produces the gradients at a constant rate, each bucket is reduced "
        "once full and the one before it is done, and the reductions do not slow backward",
        formatSeconds(backward)));
  }
  if (sweep.ranks >= 2) f.assume(networkAssumption(plan));
  return f.take();
}

}  // namespace

std::vector<DerivedResult> deriveCollectiveFigures(const std::vector<CaseResult>& cases,
                                                   const ProjectionPlan& projection) {
  std::vector<DerivedResult> results;
  for (const Sweep& sweep : sweepsOf(cases)) {
    if (!sweep.fits()) continue;
    const LatencyBandwidthModel model = fitLatencyBandwidth(sweep.points);
    Figures f(std::string(sweep.collective->name), sweep.subject(),
              "latency-bandwidth model and projection");
    fitFigures(f, sweep, model);
    projectionFigures(f, sweep, model, projection);
    results.push_back(f.take());
  }
  return results;
}

std::vector<DerivedResult> deriveStepProjection(const std::vector<CaseResult>& cases,
                                                const ProjectionPlan& projection) {
  const std::vector<Sweep> sweeps = sweepsOf(cases);
  const Sweep* sweep = gradientSweep(sweeps);
  if (sweep == nullptr) return {};
  const LatencyBandwidthModel model = fitLatencyBandwidth(sweep->points);
  std::vector<DerivedResult> results;
  for (const StepWorkload& w : stepWorkloads(cases)) {
    if (w.compute == nullptr || w.buckets.empty()) continue;
    results.push_back(stepProjection(w, *sweep, model, projection));
  }
  return results;
}

}  // namespace splitstep
