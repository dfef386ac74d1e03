// A two-rank run context, cases and derived figures shared by the reporter and analysis tests.
#pragma once

#include "cases/MatmulCase.hpp"
#include "cases/StepCase.hpp"
#include "derived/CaseResult.hpp"
#include "derived/Derived.hpp"
#include "meta/RankLinks.hpp"
#include "meta/RunContext.hpp"

namespace splitstep::testing {

inline RunContext twoRankContext() {
  RunContext context;
  context.versions = {"0.1.0", "abc123", "2.11.0", "13.0", "13.0", "2.28.3", "Open MPI v4.1.6"};
  context.command_line = "splitstep matmul --json out.json";
  context.started_utc = "2026-11-30T05:00:00Z";
  context.plan_hash = "00000000deadbeef";
  context.plan = {{"suites", typedList({typedName("matmul")})}, {"samples", typedInteger(2)}};
  context.measure.warmup = 1;
  context.measure.samples = 2;
  context.measure.loops = 1;
  context.backend = "nccl";
  context.ranks = {{0, "nodeA", 0, "cuda:0", "NVIDIA H200"},
                   {1, "nodeA", 1, "cuda:1", "NVIDIA H200"}};
  context.wall = {2.5, {{"matmul", 12.25}}, 0.125};
  // CUDA_VISIBLE_DEVICES=1,0: cuda:0 is the GPU at 3b:00.0.
  context.ranks[0].pci_bus_id = "0000:3b:00.0";
  context.ranks[0].uuid = "GPU-22222222-2222-2222-2222-222222222222";
  context.ranks[1].pci_bus_id = "0000:19:00.0";
  context.ranks[1].uuid = "GPU-11111111-1111-1111-1111-111111111111";
  context.ranks[0].gpu_links = {{context.ranks[1].uuid, "NVLink"}};
  context.ranks[1].gpu_links = {{context.ranks[0].uuid, "NVLink"}};
  context.gpu_links = linksBetweenRanks(context.ranks);
  context.environment = {
      {"CUDA_VISIBLE_DEVICES", "1,0"}, {"NCCL_DEBUG", "WARN"}, {"OMPI_MCA_btl", "^openib"}};
  return context;
}

// The same two ranks on two nodes, nodeA and nodeB.
inline RunContext twoNodeContext() {
  RunContext context = twoRankContext();
  context.ranks[1].host = "nodeB";
  context.ranks[1].local_rank = 0;
  context.ranks[1].node_index = 1;
  context.gpu_links = linksBetweenRanks(context.ranks);
  return context;
}

inline Sample matmulSample(const std::string& dtype, std::vector<double> values) {
  Sample s;
  s.suite = "matmul";
  s.case_name = dtype + " n=8192";
  s.series = "mm";
  s.fields = MatmulCase{*enumFromString<MatmulDtype>(dtype), {8192, 8192, 8192}, {}}.encode();
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
  m.stop_rule = StopRule::NoiseTarget;
  m.stop_reason = "noise target met (std/mean 0.10%)";
  m.wall = {45e-3, 5e-3, 10e-3, 0.5};
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

// One rank's sample of the step suite: series "step" (the whole step) or one of its phases
// ("data", "forward", ..., "comm"), of case "<model> <precision> <mode>" on two ranks with a
// batch of 64 and 3.03e12 FLOP per step.
inline Sample stepSample(const std::string& model, const std::string& precision,
                         const std::string& mode, const std::string& series,
                         std::vector<double> values) {
  Sample s;
  s.suite = "step";
  s.case_name = model + " " + precision + " " + mode;
  s.series = series;
  s.part_of = series == "step" ? "" : "step";
  StepCase fields;
  fields.model = model;
  fields.precision = *enumFromString<StepPrecision>(precision);
  fields.mode = *enumFromString<SyncMode>(mode);
  fields.batch = 64;
  fields.flop_per_step = 3.03e12;
  fields.world_size = 2;
  fields.parameters = 134217728;
  fields.on_cuda = true;
  s.fields = fields.encode();
  if (series == "step") s.rates = {{"samples/s", 64, 1}, {"TFLOP/s", 3.03e12, 1e12}};
  Measurement& m = s.measurement;
  m.clock = "device (CUDA events)";
  m.method = "back-to-back";
  m.values = std::move(values);
  // As the step suite records them: host times for the whole step, none for its phases.
  if (series == "step") m.host_values.assign(m.values.size(), 20e-6);
  m.cold = 0.1;
  m.loops = 1;
  m.noise = 0.01;
  m.noise_target_met = true;
  m.stop_rule = StopRule::NoiseTarget;
  m.stop_reason = "noise target met (std/mean 1.00%)";
  return s;
}

// "mlp bf16 overlap" on two ranks, its phases reported before the whole: forward 3 ms (24.8% of
// the 12.1 ms step), backward 5.4 ms (44.6%), comm 5 ms (41.3%, overlapping the others); step
// 12.0 ms on rank 0 and 12.2 ms on rank 1.
inline std::vector<CaseResult> stepCases() {
  const auto both = [](const std::string& series, std::vector<double> r0, std::vector<double> r1) {
    return std::pair{stepSample("mlp", "bf16", "overlap", series, std::move(r0)),
                     stepSample("mlp", "bf16", "overlap", series, std::move(r1))};
  };
  const auto forward = both("forward", {3e-3, 3e-3}, {3e-3, 3e-3});
  const auto backward = both("backward", {5.4e-3, 5.4e-3}, {5.4e-3, 5.4e-3});
  const auto comm = both("comm", {5e-3, 5e-3}, {5e-3, 5e-3});
  const auto step = both("step", {12e-3, 12e-3}, {12.2e-3, 12.2e-3});
  return summarizeCases({{forward.first, backward.first, comm.first, step.first},
                         {forward.second, backward.second, comm.second, step.second}});
}

// Derived figures of "mlp bf16" as the step analysis would report them.
inline DerivedResult stepDerived() {
  DerivedResult d;
  d.suite = "step";
  d.subject = "mlp bf16";
  d.title = "where the step time goes";
  d.figures = {{"step/time/none",
                "T_c, no gradient sync (none)",
                "s",
                10.1e-3,
                {{0, 10e-3}, {1, 10.2e-3}},
                ""},
               {"step/overlap/overlap", "overlap, 1 - exposed / T_comm (overlap)", "%", 60, {}, ""},
               {"step/samples_per_s/per_gpu/overlap",
                "samples/s per GPU (overlap)",
                "samples/s",
                5289.256,
                {},
                ""},
               {"step/tflops/none",
                "model TFLOP/s at T_c (none)",
                "TFLOP/s",
                300,
                {},
                "run matmul with --matmul-dtypes bf16 in the same job for the compute ceiling"},
               {"step/slowest_rank/overlap",
                "slowest rank (overlap step)",
                "rank",
                1,
                {},
                "median 1.7% above the fastest rank's"}};
  d.findings = {
      "no bottleneck rule fired: the largest phase is backward at 44.6% of the step "
      "(overlap)"};
  return d;
}

}  // namespace splitstep::testing
