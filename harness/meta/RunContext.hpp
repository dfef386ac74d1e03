// Everything about a run that is not a measurement, gathered in one place for the reporters.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "measure/MeasureSettings.hpp"
#include "meta/Environment.hpp"
#include "meta/RankInfo.hpp"
#include "meta/RankLinks.hpp"

namespace splitstep {

struct Versions {
  std::string splitstep;
  std::string git_revision;
  std::string libtorch;
  std::string cuda_runtime;
  std::string cuda_driver;  // "none" where no driver is installed
  std::string nccl;
  std::string mpi;
};

struct RunContext {
  Versions versions;
  std::string command_line;
  std::string started_utc;  // ISO 8601
  std::string plan_hash;
  std::vector<std::pair<std::string, std::string>> plan;
  MeasureSettings measure;
  std::string backend;  // the communicators the collectives ran on ("nccl,mpi"); empty: none
  std::vector<std::string> notes;  // about the whole run (a backend that could not run, ...)
  std::vector<RankInfo> ranks;
  JobInfo job;
  // Rank 0's NCCL_*, UCX_*, OMPI_* and CUDA_* variables (launchEnvironment), and the ranks whose
  // own differ from them.
  EnvironmentList environment;
  std::vector<int> environment_differs;
  std::vector<RankLink> gpu_links;  // between the ranks of each node (linksBetweenRanks)
};

// Versions of splitstep and of every library it runs on, read from the libraries at run time
// where they can say (a header's version may differ from the library loaded).
Versions collectVersions();

// Now, as "2026-11-30T05:01:13Z".
std::string utcNow();

}  // namespace splitstep
