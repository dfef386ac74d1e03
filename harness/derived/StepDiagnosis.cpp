#include "derived/StepDiagnosis.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "common/Units.hpp"
#include "derived/StepAnalysis.hpp"
#include "stats/MedianInterval.hpp"
#include "stats/Statistics.hpp"

namespace splitstep::step_analysis {
namespace {

// The GPU idles waiting for launches: it is busy well below the whole step while the host takes
// about as long to launch the step as the device to run it.
void hostBound(const WorkloadCases& w, std::string_view mode, std::vector<std::string>& findings) {
  namespace key = step_keys;
  const CaseResult* step = w.step(mode);
  const CaseResult* busy = w.find(mode, key::busySeries(key::kWhole));
  if (!step || !busy || step->across.median <= 0) return;
  std::vector<double> hosts;
  for (const RankResult& r : step->ranks) {
    if (r.host_summary) hosts.push_back(r.host_summary->median);
  }
  if (hosts.empty()) return;
  const double device = step->across.median;
  const double host = quantile(hosts, 0.5);
  const double share = busy->across.median / device;
  const std::vector<WorkloadCases::PhaseBusy> phases = w.busyPhases(mode);
  double launch_idle = 0;
  for (const WorkloadCases::PhaseBusy& p : phases) {
    if (p.phase != Phase::Data && p.phase != Phase::Sync) launch_idle += p.time - p.busy;
  }
  // The GPU can wait for launches no longer than the host spent launching.
  const bool waits_for_launches = launch_idle / device > 1 - kHostBoundBusy && host >= launch_idle;
  if (share >= kHostBoundBusy || (host / device <= kHostBoundHost && !waits_for_launches)) return;
  std::vector<std::string> idle;
  for (const WorkloadCases::PhaseBusy& p : phases) {
    if ((p.time - p.busy) / device > kIdlePhaseShare) {
      idle.push_back(fmt::format("{} ({} busy, idle {})", toString(p.phase),
                                 percent(p.busy / p.time), formatSeconds(p.time - p.busy)));
    }
  }
  // Where the graphed step was measured, what the graph removed; else how to measure it.
  std::string graph = "; a CUDA-graph step removes the launches (--step-graphs on measures it)";
  if (const CaseResult* graphed = w.graphed(mode, key::kWhole);
      graphed && graphed->across.median > 0) {
    graph = fmt::format("; the graphed step, without the launches, takes {} ({:.2f}x faster)",
                        formatSeconds(graphed->across.median), device / graphed->across.median);
  }
  findings.push_back(fmt::format(
      "host-bound: the GPU is busy {} of the step and idles {} ({}), while the host takes {} "
      "to launch a step the GPU runs in {}: the step's time depends on the CPU that launches "
      "it{}{}; in training, CUDA graphs (torch.cuda.graph, torch.compile "
      "mode=\"reduce-overhead\"), a larger batch per GPU, fewer and fused kernels (a fused "
      "optimizer) or a faster host core do the same",
      percent(share), formatSeconds(device - busy->across.median), mode, formatSeconds(host),
      formatSeconds(device), idle.empty() ? "" : fmt::format(", most in {}", fmt::join(idle, ", ")),
      graph));
}

void communicationBound(const WorkloadCases& w, std::vector<RuleFired>& fired) {
  const std::string mode = w.firstMeasured({kOverlap, kSequential});
  if (mode.empty()) return;
  const auto exposed = w.exposedTime(mode);
  const double step = w.step(mode)->across.median;
  if (!exposed || step <= 0 || *exposed / step <= kCommunicationBoundShare) return;
  const std::string remedies =
      mode == kOverlap
          ? "use larger buckets, compress gradients (bf16/fp16 or PowerSGD), or a faster link"
          : "overlap the reduction with backward (mode overlap), use larger buckets, compress "
            "gradients (bf16/fp16 or PowerSGD), or a faster link";
  fired.push_back(
      {*exposed / step, kCommunicationBoundShare,
       fmt::format("communication bound, {} of the step against {}", percent(*exposed / step),
                   percent(kCommunicationBoundShare)),
       fmt::format("communication bound: gradient communication adds {} that computation does "
                   "not hide, {} of the step ({}): {}",
                   formatSeconds(*exposed), percent(*exposed / step), mode, remedies)});
}

// Ranks whose compute step (mode none) is more than kStragglerExcess over the median rank's.
void stragglers(const WorkloadCases& w, std::vector<RuleFired>& fired) {
  const CaseResult* compute = w.step(kNone);
  if (!compute || compute->ranks.size() < 2 || compute->across.median <= 0) return;
  const double median = compute->across.median;
  for (const auto& [rank, time] : rankMedians(*compute)) {
    if (time / median - 1 > kStragglerExcess) {
      fired.push_back(
          {time / median, 1 + kStragglerExcess,
           fmt::format("straggler rank {}, {} over the median rank against {}", rank,
                       percent(time / median - 1), percent(kStragglerExcess)),
           fmt::format(
               "straggler: rank {} computes {} slower than the median rank (T_c {} against {}): "
               "every synchronised step waits for it; {}",
               rank, percent(time / median - 1), formatSeconds(time), formatSeconds(median),
               w.onCpu()
                   ? "check its CPU frequency, other processes on its cores and its NUMA binding"
                   : "check its SM clock and temperature, other processes on its GPU, and its "
                     "CPU/NUMA binding")});
    }
  }
}

std::string nothingFired(const WorkloadCases& w, std::string_view mode) {
  const auto phases = w.phases(mode);
  if (phases.empty()) {
    return fmt::format("no bottleneck rule fired; no phase of the {} step was measured", mode);
  }
  const CaseResult* largest = *std::max_element(
      phases.begin(), phases.end(),
      [](const CaseResult* a, const CaseResult* b) { return *a->share < *b->share; });
  return fmt::format("no bottleneck rule fired: the largest phase is {} at {} of the step ({})",
                     largest->series, percent(*largest->share), mode);
}

// The measured step whose median is least certain: the furthest its 95% interval reaches from
// it, or the furthest its samples spread (noise, std/mean), whichever is larger.
struct Uncertainty {
  std::string_view mode;
  int rank = -1;
  double share = 0;     // the larger of the two, over the median
  bool spread = false;  // the samples' spread, not the interval, is the larger

  // How the finding that holds rules back names it, and what would narrow it: more samples
  // narrow an interval, but not a spread.
  std::string said() const {
    return spread ? fmt::format(
                        "{} by which rank {}'s {} steps spread (noise, std/mean): give "
                        "each rank a quiet GPU and core (more samples narrow the "
                        "interval, not the spread)",
                        percent(share), rank, mode)
                  : fmt::format(
                        "{} that the 95% interval of rank {}'s median {} step reaches "
                        "from it: give each case more samples (--samples, --min-time, "
                        "--max-time), or each rank a quiet GPU and core",
                        percent(share), rank, mode);
  }
};

Uncertainty leastCertainStep(const WorkloadCases& w) {
  Uncertainty least;
  for (const ModeName& m : kModeNames) {
    const CaseResult* step = w.step(m.mode);
    if (!step) continue;
    for (const RankResult& r : step->ranks) {
      const double reach = relativeReach(r.median_ci, r.summary.median);
      const double spread = r.measurement.noise;
      if (std::max(reach, spread) > least.share) {
        least = {m.mode, r.rank, std::max(reach, spread), spread > reach};
      }
    }
  }
  return least;
}

// The findings of the rules in `fired` that clear their bounds by more than the uncertainty,
// and one finding for those held back. That one goes first, before host-bound's too: the
// console shows only the first findings, and a reader must learn that the step was too noisy to
// judge before reading what was judged of it.
// Returns whether it held a rule back.
bool weigh(const WorkloadCases& w, const std::vector<RuleFired>& fired,
           std::vector<std::string>& findings) {
  const Uncertainty least = leastCertainStep(w);
  const double noise = least.share > kDiagnosisNoise ? least.share : 0;
  std::vector<std::string> held;
  for (const RuleFired& rule : fired) {
    if (rule.figure > rule.bound * (1 + noise)) {
      findings.push_back(rule.finding);
    } else {
      held.push_back(rule.measured);
    }
  }
  if (held.empty()) return false;
  findings.insert(
      findings.begin(),
      fmt::format("too noisy to judge: {}; {} clear{} {} by less than the {}",
                  fmt::join(held, "; "), held.size() == 1 ? "it" : "they",
                  held.size() == 1 ? "s" : "",
                  held.size() == 1 ? "its threshold" : "their thresholds", least.said()));
  return true;
}

}  // namespace

std::size_t diagnose(const WorkloadCases& w, std::vector<RuleFired> fired,
                     std::vector<std::string>& findings) {
  const std::string mode = w.firstMeasured({kOverlap, kSequential, kNone, kSingle});
  if (mode.empty()) return 1;

  hostBound(w, mode, findings);

  if (const CaseResult* data = w.find(mode, kPhaseData);
      data && data->share && *data->share > kInputBoundShare) {
    fired.push_back(
        {*data->share, kInputBoundShare,
         fmt::format("input bound, {} of the step against {}", percent(*data->share),
                     percent(kInputBoundShare)),
         fmt::format(
             "input bound: loading/copying the batch takes {} of the step ({}): pin host memory, "
             "use more loader workers, a faster format, or prefetch the next batch",
             percent(*data->share), mode)});
  }

  communicationBound(w, fired);
  stragglers(w, fired);

  if (const CaseResult* optimizer = w.find(mode, kPhaseOptimizer);
      optimizer && optimizer->share && *optimizer->share > kOptimizerHeavyShare) {
    fired.push_back(
        {*optimizer->share, kOptimizerHeavyShare,
         fmt::format("optimizer heavy, {} of the step against {}", percent(*optimizer->share),
                     percent(kOptimizerHeavyShare)),
         fmt::format("optimizer heavy: the optimizer step takes {} of the step ({}): use a fused "
                     "or foreach optimizer implementation, fewer parameters, or a larger batch "
                     "per step to spread its cost",
                     percent(*optimizer->share), mode)});
  }

  const CaseResult* forward = w.find(mode, kPhaseForward);
  const CaseResult* backward = w.find(mode, kPhaseBackward);
  if (forward && backward && forward->across.median > 0 &&
      backward->across.median / forward->across.median > kBackwardOverForward) {
    const double ratio = backward->across.median / forward->across.median;
    fired.push_back(
        {ratio, kBackwardOverForward,
         fmt::format("backward heavy, {:.2f}x the forward pass against {:.2f}x", ratio,
                     kBackwardOverForward),
         fmt::format("backward heavy: the backward pass takes {:.2f}x the forward pass ({}; "
                     "about 2x is usual): look for recomputation (activation checkpointing), "
                     "unfused layers or costly gradient hooks",
                     ratio, mode)});
  }

  const CaseResult* synced = w.find(kOverlap, kPhaseBackward);
  const CaseResult* alone = w.find(kNone, kPhaseBackward);
  if (synced && alone && alone->across.median > 0 &&
      synced->across.median / alone->across.median - 1 > kSyncSlowsBackward) {
    const double ratio = synced->across.median / alone->across.median;
    fired.push_back(
        {ratio, 1 + kSyncSlowsBackward,
         fmt::format("gradient sync slows backward, by {} against {}", percent(ratio - 1),
                     percent(kSyncSlowsBackward)),
         fmt::format(
             "gradient sync slows the backward pass by {} ({} with overlap, {} without sync): "
             "it packs every gradient into its bucket, and {}",
             percent(ratio - 1), formatSeconds(synced->across.median),
             formatSeconds(alone->across.median),
             w.onCpu() ? "the collectives run on the host inside backward's gradient hooks, on "
                         "the cores backward uses; fewer, larger buckets cost fewer calls"
                       : "the collectives' kernels compete with the backward kernels for SMs, "
                         "memory bandwidth and power; fewer NCCL channels (NCCL_MAX_NCHANNELS) "
                         "or fewer, larger buckets leave more to compute")});
  }

  // The noise hold-back leads, and host-bound, judged whatever the noise, stands beside it.
  const bool held = weigh(w, fired, findings);
  if (findings.empty()) findings.push_back(nothingFired(w, mode));
  return held && findings.size() > 1 ? 2 : 1;
}

}  // namespace splitstep::step_analysis
