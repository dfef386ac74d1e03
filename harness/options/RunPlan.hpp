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
enum class CollectiveDtype { Fp32, Bf16, Fp16 };
enum class Placement { OutOfPlace, InPlace };
enum class Backend { Nccl, Mpi };

std::string_view toString(DeviceKind kind);
std::string_view toString(MatmulDtype dtype);
std::string_view toString(CollectiveDtype dtype);
std::string_view toString(Placement placement);  // "out", "in"
std::string_view toString(Backend backend);

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

struct CollectivesPlan {
  std::vector<std::uint64_t> bytes;  // message sizes (nccl-tests' "size"), multiples of 4
  std::vector<CollectiveDtype> dtypes;
  std::vector<Placement> placements;
  std::vector<Backend> backends;  // empty: NCCL on GPUs, MPI on CPUs
  bool check = true;              // verify every element after the timed samples
  int stall_rank = -1;            // test only: this rank stalls before its first collective
};

struct LaunchPlan {
  DeviceKind device = DeviceKind::Auto;
  bool allow_gpu_sharing = false;
  double timeout = 300;  // seconds any wait on another rank may last
};

struct OutputPlan {
  std::string json_path;  // empty: no JSON file
};

struct RunPlan {
  std::vector<std::string> suites;
  MeasureSettings measure;
  MatmulPlan matmul;
  MembwPlan membw;
  CollectivesPlan collectives;
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
