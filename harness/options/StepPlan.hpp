// The step suite's part of the plan and the enums it is made of (the names users type and
// reports print: common/EnumNames.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/EnumNames.hpp"
#include "models/StepModel.hpp"

namespace splitstep {

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
struct EnumNames<SyncMode> {
  static constexpr std::array values = {
      std::pair{SyncMode::None, std::string_view("none")},
      std::pair{SyncMode::Sequential, std::string_view("sequential")},
      std::pair{SyncMode::Overlap, std::string_view("overlap")},
      std::pair{SyncMode::Single, std::string_view("single")}};
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
struct EnumNames<InputSource> {
  static constexpr std::array values = {
      std::pair{InputSource::Pinned, std::string_view("pinned")},
      std::pair{InputSource::Pageable, std::string_view("pageable")},
      std::pair{InputSource::Device, std::string_view("device")}};
};

// How a step's kernels reach the GPU: launched by the host one by one (eager), or as one CUDA
// graph replay per step (--step-graphs, suites/step/GraphedStep.hpp).
enum class StepLaunch { Eager, Graph };

template <>
struct EnumNames<StepLaunch> {
  static constexpr std::array values = {std::pair{StepLaunch::Eager, std::string_view("eager")},
                                        std::pair{StepLaunch::Graph, std::string_view("graph")}};
};

// --archive-torch: an archive exported by another torch release (major.minor) than the LibTorch
// this splitstep runs is refused (same) or run anyway (any).
enum class ArchiveTorch { Same, Any };

template <>
struct EnumNames<ArchiveTorch> {
  static constexpr std::array values = {std::pair{ArchiveTorch::Same, std::string_view("same")},
                                        std::pair{ArchiveTorch::Any, std::string_view("any")}};
};

struct StepPlan {
  std::vector<const StepModelDescriptor*> models;  // models/StepModels.cpp's, in run order
  // --model-file: the archive whose model (models/Exported.hpp) replaces `models`; empty: none.
  std::string model_file;
  // --batch-file: a file of torch.save holding the exported model's batch, which every rank
  // trains on (models/ExportedBatch.hpp); empty: batches drawn from the recorded shapes.
  std::string batch_file;
  ArchiveTorch archive_torch = ArchiveTorch::Same;
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
  // On a GPU, after each mode's timed steps: a few more under the profiler for the GPU's busy
  // time per phase (suites/step/BusyTime.hpp).
  bool gpu_busy = true;
  // On a GPU, after each mode's eager steps: the same mode again, captured whole as a CUDA graph
  // and timed by its replays (a case of its own, "... graphed").
  bool step_graphs = false;
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

}  // namespace splitstep
