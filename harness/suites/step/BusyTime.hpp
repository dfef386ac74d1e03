// How long the GPU was busy in each phase of a step: the union of the device intervals of the
// kernels, copies and memsets the host launched during the phase, on any stream. Read from a few
// profiled steps (suites/step/TorchProfile.hpp), after the timed ones. Pure (no LibTorch), so
// that the attribution is tested alone.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "common/StepKeys.hpp"

namespace splitstep {

// The name of the profiler scope a training step records around `phase` (in --torch-profile's
// traces too): "splitstep phase forward".
std::string phaseScope(Phase phase);

// A phase of one profiled step, as its scope lay on the host's clock (ns).
struct ProfiledPhase {
  Phase phase = Phase::Data;
  std::uint64_t start = 0;
  std::uint64_t end = 0;
};

// A launch on the host (a CUDA runtime or driver call) and the device work it queued, paired by
// CUPTI's correlation id; on the profiler's one clock (ns).
struct ProfiledLaunch {
  std::uint64_t correlation = 0;
  std::uint64_t start = 0;
};
struct ProfiledWork {
  std::uint64_t correlation = 0;
  std::uint64_t start = 0;
  std::uint64_t end = 0;
};

// One profiled step: the seconds the GPU was busy in each phase (0 for a phase not run) and in
// the whole step (the union over its phases, so work of two phases that overlapped counts once).
struct StepBusy {
  std::array<double, kPhases.size()> phases{};
  double step = 0;
};

// The scope a graphed step records around each replay: "splitstep graph replay".
std::string replayScope();

// A profiled scope on the host's clock (ns), as ProfiledPhase without a phase.
struct ProfiledScope {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
};

// The seconds the GPU was busy for each scope, in the scopes' order: the union of the work
// launched inside it. A CUDA graph's kernels all carry its launch's correlation, so a replay's
// work is what its one launch queued.
std::vector<double> busyPerScope(const std::vector<ProfiledScope>& scopes,
                                 const std::vector<ProfiledLaunch>& launches,
                                 const std::vector<ProfiledWork>& work);

// One StepBusy per step, in order; a step begins at each data phase (every step has one). Work
// whose launch lies outside every phase (between steps, or another thread's) is left out.
std::vector<StepBusy> busyTimes(const std::vector<ProfiledPhase>& phases,
                                const std::vector<ProfiledLaunch>& launches,
                                const std::vector<ProfiledWork>& work);

}  // namespace splitstep
