#include "cluster/LaunchCheck.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>

namespace splitstep {
namespace {

std::optional<std::string> readEnv(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

std::optional<int> asCount(const std::optional<std::string>& text) {
  if (!text || text->empty()) return std::nullopt;
  int value = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size() || value < 1) return std::nullopt;
  return value;
}

}  // namespace

LauncherEnvironment LauncherEnvironment::fromProcess() {
  return {readEnv("OMPI_COMM_WORLD_SIZE"), readEnv("SLURM_STEP_NUM_TASKS"),
          readEnv("SLURM_NTASKS")};
}

std::optional<std::string> checkLaunchSize(const LauncherEnvironment& env, int world_size) {
  struct Source {
    const std::optional<std::string>& value;
    const char* name;
  };
  for (const Source& source : {Source{env.ompi_comm_world_size, "OMPI_COMM_WORLD_SIZE"},
                               Source{env.slurm_step_num_tasks, "SLURM_STEP_NUM_TASKS"},
                               Source{env.slurm_ntasks, "SLURM_NTASKS"}}) {
    const std::optional<int> launched = asCount(source.value);
    if (!launched) continue;
    if (*launched == world_size) return std::nullopt;
    return fmt::format(
        "the launcher started {} processes ({}={}) but the MPI world has {} rank(s): each "
        "process is a world of its own; use the mpirun that matches the MPI splitstep was built "
        "with, or srun --mpi=pmix",
        *launched, source.name, *source.value, world_size);
  }
  return std::nullopt;
}

}  // namespace splitstep
