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
  context.plan = {{"suites", "matmul"}, {"iters", "2"}};
  context.measure = {.warmup = 1, .samples = 2, .loops = 1};
  context.backend = "nccl";
  context.ranks = {{0, "nodeA", 0, "cuda:0", "NVIDIA H200"},
                   {1, "nodeA", 1, "cuda:1", "NVIDIA H200"}};
  return context;
}

inline std::vector<CaseResult> matmulCases() {
  Sample r0;
  r0.suite = "matmul";
  r0.case_name = "bf16 n=8192";
  r0.series = "mm";
  r0.clock = "device (CUDA events)";
  r0.params = {{"dtype", "bf16"}};
  r0.rates = {{"TFLOP/s", 2.0 * 8192 * 8192 * 8192, 1e12}};
  r0.values = {1.368e-3, 1.370e-3};
  Sample r1 = r0;
  r1.values = {1.380e-3, 1.382e-3};
  Sample skipped = r0;
  skipped.case_name = "tf32 n=8192";
  skipped.values.clear();
  skipped.notes = {"skipped: for a test"};
  return summarizeCases({{r0, skipped}, {r1, skipped}});
}

}  // namespace splitstep::testing
