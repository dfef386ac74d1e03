// The validated, immutable description of one run: what every rank must agree on.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/EnumNames.hpp"
#include "measure/MeasureSettings.hpp"
#include "models/StepModel.hpp"

namespace splitstep {

enum class DeviceKind { Auto, Cuda, Cpu };
enum class MatmulDtype { Fp32, Tf32, Fp16, Bf16 };
enum class CollectiveDtype { Fp32, Bf16, Fp16 };
enum class Placement { OutOfPlace, InPlace };
enum class Backend { Nccl, Mpi };
// fp32: fp32 throughout (TF32 off); bf16: autocast to bf16 over fp32 weights; fp16: autocast to
// fp16 over fp32 weights with dynamic loss scaling.
enum class StepPrecision { Fp32, Bf16, Fp16 };
enum class StepOptimizer { Sgd, AdamW };
// torch.optim's implementations: a loop over tensors (foreach=False), the _foreach_ kernels
// (foreach=True, PyTorch's default on GPUs) or one fused kernel (fused=True).
enum class OptimizerImpl { Loop, Foreach, Fused };
// none: no gradient sync (T_c); sequential: bucketed allreduce after backward (T_seq);
// overlap: DDP-style, buckets reduced during backward (T_ddp); single: rank 0 alone (T_1).
enum class SyncMode { None, Sequential, Overlap, Single };
// Test only: a deliberate gradient-sync fault, so that tests prove the correctness check catches
// it. dropped-bucket: the last bucket is never reduced; sum: gradients summed, not averaged;
// stale: one rank reduces its first bucket without packing this step's gradients into it;
// reordered: one rank reduces its buckets in reverse order; skipped-step: one rank skips its
// optimizer step (as when only its loss scaler saw an overflow).
enum class SyncFault {
  None,
  DroppedBucket,
  SumNotMean,
  StaleGradient,
  ReorderedBuckets,
  SkippedStep
};
// The step phase a delayed rank (--delay-rank) spends its delay in.
enum class DelayPhase { Data, Forward, Backward, Optimizer };
// Where each step's batch comes from: pinned or pageable host memory (copied every step), or
// already on the device (no copy: the data phase is empty).
enum class InputSource { Pinned, Pageable, Device };
// How the groups of --groups take turns: one group at a time, alone on its links, or every
// group at once (a round of disjoint groups at a time, where groups share ranks).
enum class GroupMode { Sequential, Concurrent };

// The names users type and reports print (common/EnumNames.hpp).
template <>
struct EnumNames<DeviceKind> {
  static constexpr std::array values = {std::pair{DeviceKind::Auto, std::string_view("auto")},
                                        std::pair{DeviceKind::Cuda, std::string_view("cuda")},
                                        std::pair{DeviceKind::Cpu, std::string_view("cpu")}};
};
template <>
struct EnumNames<MatmulDtype> {
  static constexpr std::array values = {std::pair{MatmulDtype::Fp32, std::string_view("fp32")},
                                        std::pair{MatmulDtype::Tf32, std::string_view("tf32")},
                                        std::pair{MatmulDtype::Fp16, std::string_view("fp16")},
                                        std::pair{MatmulDtype::Bf16, std::string_view("bf16")}};
};
template <>
struct EnumNames<CollectiveDtype> {
  static constexpr std::array values = {std::pair{CollectiveDtype::Fp32, std::string_view("fp32")},
                                        std::pair{CollectiveDtype::Bf16, std::string_view("bf16")},
                                        std::pair{CollectiveDtype::Fp16, std::string_view("fp16")}};
};
template <>
struct EnumNames<Placement> {
  static constexpr std::array values = {std::pair{Placement::OutOfPlace, std::string_view("out")},
                                        std::pair{Placement::InPlace, std::string_view("in")}};
};
template <>
struct EnumNames<Backend> {
  static constexpr std::array values = {std::pair{Backend::Nccl, std::string_view("nccl")},
                                        std::pair{Backend::Mpi, std::string_view("mpi")}};
};
template <>
struct EnumNames<StepPrecision> {
  static constexpr std::array values = {std::pair{StepPrecision::Fp32, std::string_view("fp32")},
                                        std::pair{StepPrecision::Bf16, std::string_view("bf16")},
                                        std::pair{StepPrecision::Fp16, std::string_view("fp16")}};
};
template <>
struct EnumNames<StepOptimizer> {
  static constexpr std::array values = {std::pair{StepOptimizer::Sgd, std::string_view("sgd")},
                                        std::pair{StepOptimizer::AdamW, std::string_view("adamw")}};
};
template <>
struct EnumNames<OptimizerImpl> {
  static constexpr std::array values = {
      std::pair{OptimizerImpl::Loop, std::string_view("loop")},
      std::pair{OptimizerImpl::Foreach, std::string_view("foreach")},
      std::pair{OptimizerImpl::Fused, std::string_view("fused")}};
};
template <>
struct EnumNames<SyncFault> {
  static constexpr std::array values = {
      std::pair{SyncFault::None, std::string_view("none")},
      std::pair{SyncFault::DroppedBucket, std::string_view("dropped-bucket")},
      std::pair{SyncFault::SumNotMean, std::string_view("sum")},
      std::pair{SyncFault::StaleGradient, std::string_view("stale")},
      std::pair{SyncFault::ReorderedBuckets, std::string_view("reordered")},
      std::pair{SyncFault::SkippedStep, std::string_view("skipped-step")}};
};
template <>
struct EnumNames<DelayPhase> {
  static constexpr std::array values = {
      std::pair{DelayPhase::Data, std::string_view("data")},
      std::pair{DelayPhase::Forward, std::string_view("forward")},
      std::pair{DelayPhase::Backward, std::string_view("backward")},
      std::pair{DelayPhase::Optimizer, std::string_view("optimizer")}};
};
template <>
struct EnumNames<SyncMode> {
  static constexpr std::array values = {
      std::pair{SyncMode::None, std::string_view("none")},
      std::pair{SyncMode::Sequential, std::string_view("sequential")},
      std::pair{SyncMode::Overlap, std::string_view("overlap")},
      std::pair{SyncMode::Single, std::string_view("single")}};
};
template <>
struct EnumNames<InputSource> {
  static constexpr std::array values = {
      std::pair{InputSource::Pinned, std::string_view("pinned")},
      std::pair{InputSource::Pageable, std::string_view("pageable")},
      std::pair{InputSource::Device, std::string_view("device")}};
};

template <>
struct EnumNames<GroupMode> {
  static constexpr std::array values = {
      std::pair{GroupMode::Sequential, std::string_view("sequential")},
      std::pair{GroupMode::Concurrent, std::string_view("concurrent")}};
};

// C (m x n) = A (m x k) B (k x n).
struct MatmulShape {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;

  bool operator==(const MatmulShape&) const = default;
};

std::string toString(const MatmulShape& shape);  // "8192" when square, else "MxNxK"

struct MatmulPlan {
  std::vector<MatmulShape> shapes;
  std::vector<MatmulDtype> dtypes;
};

struct MembwPlan {
  std::vector<std::uint64_t> bytes;  // size of each array
};

// --groups: which ranks run each collective together. all: every rank (no groups); pairs: every
// pair of ranks; nodes: the ranks of each node; size: consecutive ranks, `size` at a time; list:
// the groups as given. Resolved against the launch (world size, nodes) by cluster/RankGroups.
enum class GroupKind { All, Pairs, Nodes, Size, List };
struct GroupSpec {
  GroupKind kind = GroupKind::All;
  int size = 0;                        // kind Size
  std::vector<std::vector<int>> list;  // kind List: each group's ranks, ascending
  bool operator==(const GroupSpec&) const = default;
};

std::string toString(const GroupSpec& spec);  // "all", "pairs", "nodes", "size:4", "0,1;2,3"

struct CollectivesPlan {
  std::vector<std::uint64_t> bytes;  // message sizes (nccl-tests' "size"), multiples of 4
  std::vector<CollectiveDtype> dtypes;
  std::vector<Placement> placements;
  std::vector<Backend> backends;  // empty: NCCL on GPUs, MPI on CPUs
  bool check = true;              // verify every element after the timed samples
  GroupSpec groups;
  GroupMode group_mode = GroupMode::Sequential;
  // Test only: this rank sleeps `slow_seconds` on the host before each timed collective call, a
  // slow GPU or link that the group analysis must flag.
  int slow_rank = -1;
  double slow_seconds = 0;
};

struct StepPlan {
  std::vector<const StepModelDescriptor*> models;  // models/StepModels.cpp's, in run order
  std::vector<StepPrecision> precisions;
  std::vector<SyncMode> modes;
  StepOptimizer optimizer = StepOptimizer::Sgd;
  OptimizerImpl optimizer_impl = OptimizerImpl::Foreach;
  double learning_rate = 0.01;
  double momentum = 0;  // SGD only
  InputSource input = InputSource::Pinned;
  bool non_blocking = true;  // host-to-device copy queued without waiting for it
  double host_work = 0;      // seconds of host work per batch, before its copy
  std::uint64_t bucket_bytes = 25ull << 20;
  std::uint64_t first_bucket_bytes = 1ull << 20;
  bool check = true;  // after the timed samples: ranks identical, equal to a one-process step
  // A straggler on purpose: rank `delay_rank` (-1: none) spends `delay` seconds of host time at
  // the start of `delay_phase` in every step.
  int delay_rank = -1;
  double delay = 0;
  DelayPhase delay_phase = DelayPhase::Data;
  // Test only: a deliberate sync fault, on every rank or on `fault_rank` alone.
  SyncFault fault = SyncFault::None;
  int fault_rank = 1;
  // Where to write a LibTorch profiler (Kineto) trace of a few steps of every mode and rank;
  // empty: none.
  std::string torch_profile_dir;
  StepShape shape;  // every model's shape options
};

// Where the analysis projects the collectives and the step to more ranks: nodes of
// `gpus_per_node` ranks joined by the measured link, and a network between nodes
// (docs/metrics.md, "Projection").
struct ProjectionPlan {
  std::vector<int> ranks;
  int gpus_per_node = 8;
  double internode_bandwidth = 50e9;        // bytes/s per rank
  std::optional<double> internode_latency;  // seconds per message; empty: the measured link's
};

struct LaunchPlan {
  DeviceKind device = DeviceKind::Auto;
  bool allow_gpu_sharing = false;
  double timeout = 300;  // seconds any wait on another rank may last
  // Tests of the fault handling only: rank `stall_rank` stops (sleeps without answering) once
  // `stall_after` cases have been gathered.
  int stall_rank = -1;
  int stall_after = 0;
};

struct OutputPlan {
  std::string json_path;   // empty: no JSON file
  std::string csv_path;    // empty: no CSV file
  std::string trace_path;  // empty: no trace
  bool quiet = false;      // no progress line on a terminal's stderr
};

// GPU telemetry read on a thread of each rank while cases run (telemetry/TelemetrySampler).
struct TelemetryPlan {
  bool enabled = true;
  double interval = 0.02;  // seconds between readings
};

struct RunPlan {
  std::vector<std::string> suites;
  MeasureSettings measure;
  MatmulPlan matmul;
  MembwPlan membw;
  CollectivesPlan collectives;
  StepPlan step;
  ProjectionPlan projection;
  LaunchPlan launch;
  OutputPlan output;
  TelemetryPlan telemetry;
  std::string config_file;  // empty when none was read

  // Every setting as (option name, canonical value), in a fixed order: the text that is hashed,
  // written to the JSON report and shown to users.
  std::vector<std::pair<std::string, std::string>> entries() const;
};

// FNV-1a over the plan's entries and `build_id` (version and revision): equal exactly when two
// ranks would run the same workload with the same binary.
std::uint64_t planHash(const RunPlan& plan, std::string_view build_id);

}  // namespace splitstep
