// The validated, immutable description of one run: what every rank must agree on.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "measure/MeasureSettings.hpp"

namespace splitstep {

enum class DeviceKind { Auto, Cuda, Cpu };
enum class MatmulDtype { Fp32, Tf32, Fp16, Bf16 };

std::string_view toString(DeviceKind kind);
std::string_view toString(MatmulDtype dtype);

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

struct AllreducePlan {
  std::vector<std::uint64_t> bytes;  // message sizes in bytes, fp32 elements
};

struct LaunchPlan {
  DeviceKind device = DeviceKind::Auto;
  bool allow_gpu_sharing = false;
};

struct OutputPlan {
  std::string json_path;  // empty: no JSON file
};

struct RunPlan {
  std::vector<std::string> suites;
  MeasureSettings measure;
  MatmulPlan matmul;
  MembwPlan membw;
  AllreducePlan allreduce;
  LaunchPlan launch;
  OutputPlan output;
  std::string config_file;  // empty when none was read

  // Every setting as (option name, canonical value), in a fixed order: the text that is hashed,
  // written to the JSON report and shown to users.
  std::vector<std::pair<std::string, std::string>> entries() const;
};

// FNV-1a over the plan's entries and `build_id` (version and revision): equal exactly when two
// ranks would run the same workload with the same binary.
std::uint64_t planHash(const RunPlan& plan, std::string_view build_id);

}  // namespace splitstep
