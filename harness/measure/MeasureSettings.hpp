// How the Measurer runs a case: warm-up, loops per sample, the stopping rule, timing aids.
#pragma once

namespace splitstep {

struct MeasureSettings {
  int warmup = 3;          // untimed executions after the cold one
  double warmup_time = 0;  // then more, until this many seconds of warm-up (0: none)
  int loops = 0;           // executions per sample; 0: autorange
  double min_sample_time =
      2e-3;                   // autorange: a sample lasts at least this (and 1000x timer overhead)
  int samples = 0;            // fixed sample count; 0: the stopping rule decides
  int min_samples = 10;       // stopping rule: at least this many samples,
  double min_time = 0.5;      // and this many seconds of timed samples,
  double ci_target = 0.005;   // until the median's 95% interval reaches at most this from it,
  double max_noise = 0.005;   // or std/mean of the samples is at most this, or the noise is stable;
  double max_time = 15;       // but stop after this many seconds of wall time per case
  bool queued_start = false;  // hold the stream with a spin kernel while a sample is queued
  bool l2_flush = false;      // clear the L2 cache before every sample (one loop per sample)
  bool cuda_graph = false;    // capture the body as a CUDA graph and time its replays
  // Set by suites whose body is a collective, not by users: ranks meet at a host barrier
  // before every sample, so that one rank's late start is not timed as transfer time.
  bool align_ranks = false;
  // Set by suites, not by users: a start-up transient at the start of sampling is left out of
  // the samples (StoppingRule's transientLength). Off where other series are recorded sample by
  // sample beside the samples (the step's phases), which leaving samples out would misalign.
  bool trim_transient = true;
};

}  // namespace splitstep
