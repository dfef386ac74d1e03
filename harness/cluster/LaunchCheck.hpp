// Detects the "N copies of a world of size 1" launch mistake from what the launcher exported.
#pragma once

#include <optional>
#include <string>

namespace splitstep {

struct LauncherEnvironment {
  std::optional<std::string> ompi_comm_world_size;  // OMPI_COMM_WORLD_SIZE (Open MPI's mpirun)
  std::optional<std::string> slurm_step_num_tasks;  // SLURM_STEP_NUM_TASKS (srun, this step)
  std::optional<std::string> slurm_ntasks;          // SLURM_NTASKS (the allocation)

  static LauncherEnvironment fromProcess();
};

// An error message when the launcher started a different number of processes than the MPI world
// holds; empty when they agree or nothing says how many were launched. mpirun's own count is
// preferred to Slurm's, because mpirun inside an allocation may rightly start fewer ranks than
// the allocation's SLURM_NTASKS.
std::optional<std::string> checkLaunchSize(const LauncherEnvironment& env, int world_size);

}  // namespace splitstep
