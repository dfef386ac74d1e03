#include "analysis/StepDiagnosis.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/StepAnalysis.hpp"
#include "common/Units.hpp"

namespace splitstep::step_analysis {
namespace {

void communicationBound(const WorkloadCases& w, std::vector<std::string>& findings) {
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
  findings.push_back(
      fmt::format("communication bound: gradient communication adds {} that computation does "
                  "not hide, {} of the step ({}): {}",
                  formatSeconds(*exposed), percent(*exposed / step), mode, remedies));
}

// Ranks whose compute step (mode none) is more than kStragglerExcess over the median rank's.
void stragglers(const WorkloadCases& w, std::vector<std::string>& findings) {
  const CaseResult* compute = w.step(kNone);
  if (!compute || compute->ranks.size() < 2 || compute->across.median <= 0) return;
  const double median = compute->across.median;
  for (const auto& [rank, time] : rankMedians(*compute)) {
    if (time / median - 1 > kStragglerExcess) {
      findings.push_back(fmt::format(
          "straggler: rank {} computes {} slower than the median rank (T_c {} against {}): "
          "every synchronised step waits for it; {}",
          rank, percent(time / median - 1), formatSeconds(time), formatSeconds(median),
          w.onCpu() ? "check its CPU frequency, other processes on its cores and its NUMA binding"
                    : "check its SM clock and temperature, other processes on its GPU, and its "
                      "CPU/NUMA binding"));
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

}  // namespace

void diagnose(const WorkloadCases& w, std::vector<std::string>& findings) {
  const std::string mode = w.firstMeasured({kOverlap, kSequential, kNone, kSingle});
  if (mode.empty()) return;

  if (const CaseResult* data = w.find(mode, kPhaseData);
      data && data->share && *data->share > kInputBoundShare) {
    findings.push_back(fmt::format(
        "input bound: loading/copying the batch takes {} of the step ({}): pin host memory, "
        "use more loader workers, a faster format, or prefetch the next batch",
        percent(*data->share), mode));
  }

  communicationBound(w, findings);
  stragglers(w, findings);

  if (const CaseResult* optimizer = w.find(mode, kPhaseOptimizer);
      optimizer && optimizer->share && *optimizer->share > kOptimizerHeavyShare) {
    findings.push_back(fmt::format(
        "optimizer heavy: the optimizer step takes {} of the step ({}): use a fused or foreach "
        "optimizer implementation, fewer parameters, or a larger batch per step to spread its "
        "cost",
        percent(*optimizer->share), mode));
  }

  const CaseResult* forward = w.find(mode, kPhaseForward);
  const CaseResult* backward = w.find(mode, kPhaseBackward);
  if (forward && backward && forward->across.median > 0 &&
      backward->across.median / forward->across.median > kBackwardOverForward) {
    findings.push_back(fmt::format(
        "backward heavy: the backward pass takes {:.2f}x the forward pass ({}; about 2x is "
        "usual): look for recomputation (activation checkpointing), unfused layers or costly "
        "gradient hooks",
        backward->across.median / forward->across.median, mode));
  }

  const CaseResult* synced = w.find(kOverlap, kPhaseBackward);
  const CaseResult* alone = w.find(kNone, kPhaseBackward);
  if (synced && alone && alone->across.median > 0 &&
      synced->across.median / alone->across.median - 1 > kSyncSlowsBackward) {
    findings.push_back(fmt::format(
        "gradient sync slows the backward pass by {} ({} with overlap, {} without sync): it "
        "packs every gradient into its bucket, and {}",
        percent(synced->across.median / alone->across.median - 1),
        formatSeconds(synced->across.median), formatSeconds(alone->across.median),
        w.onCpu() ? "the collectives run on the host inside backward's gradient hooks, on the "
                    "cores backward uses; fewer, larger buckets cost fewer calls"
                  : "the collectives' kernels compete with the backward kernels for SMs, memory "
                    "bandwidth and power; fewer NCCL channels (NCCL_MAX_NCHANNELS) or fewer, "
                    "larger buckets leave more to compute"));
  }

  if (findings.empty()) findings.push_back(nothingFired(w, mode));
}

}  // namespace splitstep::step_analysis
