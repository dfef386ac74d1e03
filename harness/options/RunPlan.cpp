#include "options/RunPlan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace splitstep {

std::string_view toString(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::Auto:
      return "auto";
    case DeviceKind::Cuda:
      return "cuda";
    case DeviceKind::Cpu:
      return "cpu";
  }
  return "?";
}

std::string_view toString(MatmulDtype dtype) {
  switch (dtype) {
    case MatmulDtype::Fp32:
      return "fp32";
    case MatmulDtype::Tf32:
      return "tf32";
    case MatmulDtype::Fp16:
      return "fp16";
    case MatmulDtype::Bf16:
      return "bf16";
  }
  return "?";
}

std::string_view toString(CollectiveDtype dtype) {
  switch (dtype) {
    case CollectiveDtype::Fp32:
      return "fp32";
    case CollectiveDtype::Bf16:
      return "bf16";
    case CollectiveDtype::Fp16:
      return "fp16";
  }
  return "?";
}

std::string_view toString(Placement placement) {
  return placement == Placement::InPlace ? "in" : "out";
}

std::string_view toString(Backend backend) { return backend == Backend::Nccl ? "nccl" : "mpi"; }

std::string_view toString(StepModel model) {
  switch (model) {
    case StepModel::Mlp:
      return "mlp";
    case StepModel::Transformer:
      return "transformer";
    case StepModel::Cnn:
      return "cnn";
  }
  return "?";
}

std::string_view toString(StepPrecision precision) {
  switch (precision) {
    case StepPrecision::Fp32:
      return "fp32";
    case StepPrecision::Bf16:
      return "bf16";
    case StepPrecision::Fp16:
      return "fp16";
  }
  return "?";
}

std::string_view toString(StepOptimizer optimizer) {
  switch (optimizer) {
    case StepOptimizer::Sgd:
      return "sgd";
    case StepOptimizer::AdamW:
      return "adamw";
  }
  return "?";
}

std::string_view toString(SyncMode mode) {
  switch (mode) {
    case SyncMode::None:
      return "none";
    case SyncMode::Sequential:
      return "sequential";
    case SyncMode::Overlap:
      return "overlap";
    case SyncMode::Single:
      return "single";
  }
  return "?";
}

std::string_view toString(InputSource source) {
  switch (source) {
    case InputSource::Pinned:
      return "pinned";
    case InputSource::Pageable:
      return "pageable";
    case InputSource::Device:
      return "device";
  }
  return "?";
}

std::string toString(const MatmulShape& shape) {
  if (shape.m == shape.n && shape.n == shape.k) return std::to_string(shape.n);
  return fmt::format("{}x{}x{}", shape.m, shape.n, shape.k);
}

std::vector<std::pair<std::string, std::string>> RunPlan::entries() const {
  std::vector<std::string> shape_names;
  for (const MatmulShape& shape : matmul.shapes) shape_names.push_back(toString(shape));
  auto names = [](const auto& values) {
    std::vector<std::string> out;
    for (const auto& v : values) out.emplace_back(toString(v));
    return fmt::format("{}", fmt::join(out, ","));
  };
  auto flag = [](bool on) { return std::string(on ? "true" : "false"); };
  // Durations in seconds and noise as a fraction, with every digit a double holds: the text is
  // hashed, so equal plans must print equally and different ones differently.
  auto number = [](double value) { return fmt::format("{}", value); };
  // Buckets in MiB, as the options take them: bytes / 2^20 is exact in a double.
  auto mib = [](std::uint64_t bytes) {
    return fmt::format("{}", static_cast<double>(bytes) / (1 << 20));
  };
  auto on = [](bool value) { return std::string(value ? "on" : "off"); };
  // One option, --check, sets both; a plan built otherwise may differ, and must hash differently.
  const std::string check =
      collectives.check == step.check
          ? on(step.check)
          : fmt::format("collectives {}, step {}", on(collectives.check), on(step.check));
  return {
      {"suites", fmt::format("{}", fmt::join(suites, ","))},
      {"config", config_file},
      {"device", std::string(toString(launch.device))},
      {"allow-gpu-sharing", flag(launch.allow_gpu_sharing)},
      {"warmup", std::to_string(measure.warmup)},
      {"warmup-time", number(measure.warmup_time)},
      {"loops", std::to_string(measure.loops)},
      {"min-sample-time", number(measure.min_sample_time)},
      {"samples", std::to_string(measure.samples)},
      {"min-samples", std::to_string(measure.min_samples)},
      {"min-time", number(measure.min_time)},
      {"max-noise", number(measure.max_noise)},
      {"max-time", number(measure.max_time)},
      {"queued-start", flag(measure.queued_start)},
      {"l2-flush", flag(measure.l2_flush)},
      {"cuda-graph", flag(measure.cuda_graph)},
      {"matmul-sizes", fmt::format("{}", fmt::join(shape_names, ","))},
      {"matmul-dtypes", names(matmul.dtypes)},
      {"membw-bytes", fmt::format("{}", fmt::join(membw.bytes, ","))},
      {"bytes", fmt::format("{}", fmt::join(collectives.bytes, ","))},
      {"collective-dtypes", names(collectives.dtypes)},
      {"placement", names(collectives.placements)},
      {"backend", collectives.backends.empty() ? "auto" : names(collectives.backends)},
      {"check", check},
      {"test-stall-rank", std::to_string(collectives.stall_rank)},
      {"step-models", names(step.models)},
      {"precision", names(step.precisions)},
      {"sync-modes", names(step.modes)},
      {"optimizer", std::string(toString(step.optimizer))},
      {"lr", number(step.learning_rate)},
      {"momentum", number(step.momentum)},
      {"input", std::string(toString(step.input))},
      {"non-blocking", on(step.non_blocking)},
      {"host-work-ms", number(step.host_work * 1000)},
      {"bucket-mb", mib(step.bucket_bytes)},
      {"first-bucket-mb", mib(step.first_bucket_bytes)},
      {"mlp-layers", std::to_string(step.mlp.layers)},
      {"mlp-width", std::to_string(step.mlp.width)},
      {"mlp-batch", std::to_string(step.mlp.batch)},
      {"transformer-layers", std::to_string(step.transformer.layers)},
      {"transformer-width", std::to_string(step.transformer.width)},
      {"transformer-heads", std::to_string(step.transformer.heads)},
      {"transformer-seq", std::to_string(step.transformer.seq)},
      {"transformer-batch", std::to_string(step.transformer.batch)},
      {"cnn-blocks", std::to_string(step.cnn.blocks)},
      {"cnn-channels", std::to_string(step.cnn.channels)},
      {"cnn-image", std::to_string(step.cnn.image)},
      {"cnn-batch", std::to_string(step.cnn.batch)},
      {"timeout", number(launch.timeout)},
      {"json", output.json_path},
  };
}

std::uint64_t planHash(const RunPlan& plan, std::string_view build_id) {
  std::uint64_t hash = 14695981039346656037ull;
  auto mix = [&hash](std::string_view text) {
    for (unsigned char c : text) {
      hash ^= c;
      hash *= 1099511628211ull;
    }
    hash ^= 0xff;  // separator, so ("ab","c") and ("a","bc") differ
    hash *= 1099511628211ull;
  };
  mix(build_id);
  for (const auto& [key, value] : plan.entries()) {
    mix(key);
    mix(value);
  }
  return hash;
}

}  // namespace splitstep
