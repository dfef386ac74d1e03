// A two-rank run context and cases shared by the reporter tests.
#pragma once

#include "analysis/CaseResult.hpp"
#include "meta/RunContext.hpp"

namespace splitstep::testing {

inline RunContext twoRankContext() {
  RunContext context;
  context.versions = {"0.1.0", "abc123", "2.11.0", "13.0", "13.0", "2.28.3", "Open MPI v4.1.6"};
  context.command_line = "splitstep matmul --json out.json";
  context.started_utc = "2026-11-30T05:00:00Z";
  context.plan_hash = "00000000deadbeef";
  context.plan = {{"suites", "matmul"}, {"samples", "2"}};
  context.measure.warmup = 1;
  context.measure.samples = 2;
  context.measure.loops = 1;
  context.backend = "nccl";
  context.ranks = {{0, "nodeA", 0, "cuda:0", "NVIDIA H200"},
                   {1, "nodeA", 1, "cuda:1", "NVIDIA H200"}};
  return context;
}

inline Sample matmulSample(const std::string& dtype, std::vector<double> values) {
  Sample s;
  s.suite = "matmul";
  s.case_name = dtype + " n=8192";
  s.series = "mm";
  s.params = {{"dtype", dtype}};
  s.rates = {{"TFLOP/s", 2.0 * 8192 * 8192 * 8192, 1e12}};
  s.comparison = {"8192", "fp32", dtype == "fp32"};
  Measurement& m = s.measurement;
  m.clock = "device (CUDA events)";
  m.method = "back-to-back";
  m.values = std::move(values);
  m.host_values.assign(m.values.size(), 12e-6);
  m.cold = 45e-3;
  m.loops = 2;
  m.noise = 0.001;
  m.noise_target_met = true;
  m.stop_reason = "noise target met on every rank";
  m.clock_at_start = SmClock{1980, 1980, ""};
  m.clock_at_end = SmClock{1980, 1980, ""};
  return s;
}

// fp32 and bf16 at 8192 on two ranks (bf16: rank 0 medians 1.369 ms, rank 1 1.381 ms), and a
// tf32 case both ranks skipped.
inline std::vector<CaseResult> matmulCases() {
  Sample skipped = matmulSample("tf32", {});
  skipped.notes = {"skipped: for a test"};
  return summarizeCases({{matmulSample("fp32", {21.5e-3, 21.5e-3}),
                          matmulSample("bf16", {1.368e-3, 1.370e-3}), skipped},
                         {matmulSample("fp32", {21.6e-3, 21.6e-3}),
                          matmulSample("bf16", {1.380e-3, 1.382e-3}), skipped}});
}

}  // namespace splitstep::testing
