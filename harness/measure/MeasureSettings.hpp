// How the Measurer runs a case: warm-up, loops per sample, the stopping rule, timing aids.
#pragma once

#include <limits>

namespace splitstep {

struct MeasureSettings {
  int warmup = 3;          // untimed executions after the cold one
  double warmup_time = 0;  // then more, until this many seconds of warm-up (0: none)
  int loops = 0;           // executions per sample; 0: autorange
  // Autorange: a sample lasts at least this (and 1000x the timer's overhead).
  double min_sample_time = 2e-3;
  int samples = 0;  // fixed sample count; 0: the stopping rule decides
  // Stopping rule: at least this many samples, so that the start-up transient's guard has four
  // batches to judge (StoppingRule's kTransientBatch). A floor in samples costs what the case
  // does: 40 ms of 2 ms samples for a quiet case of microseconds.
  int min_samples = 20;
  // And before the median's interval or a stable noise may end a case (not the noise target):
  // this many seconds of timed samples, for the interval assumes them independent and a level
  // that wanders over a few hundred milliseconds looks settled over a shorter stretch.
  double min_time = 0.5;
  double ci_target = 0.005;   // until the median's 95% interval reaches at most this from it,
  double max_noise = 0.005;   // or std/mean of the samples is at most this, or the noise is stable;
  double max_time = 15;       // but stop after this many seconds of wall time per case
  bool queued_start = false;  // hold the stream with a spin kernel while a sample is queued
  bool l2_flush = false;      // clear the L2 cache before every sample (one loop per sample)
  bool cuda_graph = false;    // capture the body as a CUDA graph and time its replays
  // Set by suites, not by users: samples of at most this many executions get a head start, their
  // first execution queued behind a stream hold and the rest launched as the host goes. A sample
  // of a few long executions, timed from an idle stream, holds a launch whose share is the
  // host's, not the work's: one in 1-64 executions of a 2 ms sample. The rest are launched as
  // eager callers (DDP, nccl-tests) launch them, and no launch queue can fill behind the hold.
  int head_start_up_to = 0;
  // Set by suites whose body is a collective, not by users: ranks meet at a host barrier
  // before every sample, so that one rank's late start is not timed as transfer time.
  bool align_ranks = false;
  // Set by suites, not by users: a start-up transient at the start of sampling is left out of
  // the samples (StoppingRule's transientLength). Off where other series are recorded sample by
  // sample beside the samples (the step's phases), which leaving samples out would misalign.
  bool trim_transient = true;
  // Set by a sweep with --sweep-time, not by users: this case's share of the sweep's budget,
  // seconds of wall time from the start of sampling, after which it stops on the budget
  // (StopRule::SweepTime) once it has min_samples and an interval; the same on every rank.
  double sweep_share = std::numeric_limits<double>::infinity();
};

}  // namespace splitstep
