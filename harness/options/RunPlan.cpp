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

std::vector<std::pair<std::string, std::string>> RunPlan::entries() const {
  std::vector<std::string> dtype_names;
  for (MatmulDtype d : matmul.dtypes) dtype_names.emplace_back(toString(d));
  return {
      {"suites", fmt::format("{}", fmt::join(suites, ","))},
      {"config", config_file},
      {"device", std::string(toString(launch.device))},
      {"allow-gpu-sharing", launch.allow_gpu_sharing ? "true" : "false"},
      {"warmup", std::to_string(measure.warmup)},
      {"iters", std::to_string(measure.samples)},
      {"loops", std::to_string(measure.loops)},
      {"matmul-sizes", fmt::format("{}", fmt::join(matmul.sizes, ","))},
      {"matmul-dtypes", fmt::format("{}", fmt::join(dtype_names, ","))},
      {"allreduce-bytes", fmt::format("{}", fmt::join(allreduce.bytes, ","))},
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
