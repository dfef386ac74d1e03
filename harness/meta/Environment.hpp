// The job and the environment a run happened in: the batch job, and the variables of the
// libraries that decide how ranks talk to each other (NCCL_*, UCX_*, OMPI_*, CUDA_*).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace splitstep {

// NAME=value pairs, sorted by name.
using EnvironmentList = std::vector<std::pair<std::string, std::string>>;

// The batch job around the run; an empty scheduler where there is none.
struct JobInfo {
  std::string scheduler;  // "slurm"
  std::string id;         // SLURM_JOB_ID
  std::string node_list;  // SLURM_JOB_NODELIST, as Slurm compresses it: "node[01-04]"
};

// This process's environment.
EnvironmentList processEnvironment();

JobInfo jobInfo(const EnvironmentList& environment);

// The NCCL_*, UCX_*, OMPI_* and CUDA_* variables of `environment`, without those Open MPI's
// launcher sets to tell each process its own rank or its node's daemon and directories
// (OMPI_COMM_WORLD_RANK, OMPI_MCA_orte_local_daemon_uri, ...): what is left is what every rank
// of a consistently launched job shares.
EnvironmentList launchEnvironment(const EnvironmentList& environment);

// FNV-1a over the names and values: equal lists hash equally on every rank.
std::uint64_t environmentHash(const EnvironmentList& environment);

}  // namespace splitstep
