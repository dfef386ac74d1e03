#include "meta/RunContext.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <mpi.h>
#include <nccl.h>
#include <torch/version.h>

#include <ctime>

#include "meta/BuildInfo.hpp"

namespace splitstep {
namespace {

std::string cudaVersionText(int code) {
  return fmt::format("{}.{}", code / 1000, code % 1000 / 10);
}

}  // namespace

Versions collectVersions() {
  Versions v;
  v.splitstep = splitstepVersion();
  v.git_revision = gitRevision();
  v.libtorch = TORCH_VERSION;
  int runtime = 0;
  v.cuda_runtime = cudaRuntimeGetVersion(&runtime) == cudaSuccess ? cudaVersionText(runtime) : "?";
  int driver = 0;
  v.cuda_driver =
      cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0 ? cudaVersionText(driver) : "none";
  int nccl = 0;
  v.nccl = ncclGetVersion(&nccl) == ncclSuccess
               ? fmt::format("{}.{}.{}", nccl / 10000, nccl / 100 % 100, nccl % 100)
               : "?";
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(mpi, &length);
  v.mpi = std::string(mpi, static_cast<std::size_t>(length));
  v.mpi = v.mpi.substr(0, v.mpi.find_first_of(",\n"));  // "Open MPI v4.1.4, package: ..."
  return v;
}

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace splitstep
