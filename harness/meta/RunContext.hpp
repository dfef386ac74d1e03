// Everything about a run that is not a measurement, gathered in one place for the reporters.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/TypedValue.hpp"
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

// Where rank 0's run went, in wall seconds: from the start of the run to its first suite (plan
// agreement, device, communicators), each suite (its cases' Measurer phases are in their
// samples; the rest is buffers, set-up and checks), and gathering every rank's samples.
struct RunWallTimes {
  double start_up = 0;
  std::vector<std::pair<std::string, double>> suites;
  double gather = 0;
};

struct RunContext {
  Versions versions;
  std::string command_line;
  std::string started_utc;  // ISO 8601
  std::string plan_hash;
  TypedFields plan;
  MeasureSettings measure;
  std::string backend;  // the communicators the collectives ran on ("nccl,mpi"); empty: none
  std::vector<std::string> notes;  // about the whole run (a backend that could not run, ...)
  std::vector<RankInfo> ranks;
  RunWallTimes wall;
  JobInfo job;
  // Rank 0's NCCL_*, UCX_*, OMPI_* and CUDA_* variables (launchEnvironment), and the ranks whose
  // own differ from them.
  EnvironmentList environment;
  std::vector<int> environment_differs;
  std::vector<RankLink> gpu_links;  // between the ranks of each node (linksBetweenRanks)
  // The results file's catalogue: each suite of the run with the family of its cases
  // (harness/cases/CaseCatalogue.hpp), and every collective this build knows.
  std::vector<std::pair<std::string, std::string>> suite_families;
  std::vector<std::string> collectives;
};

// Versions of splitstep and of every library it runs on, read from the libraries at run time
// where they can say (a header's version may differ from the library loaded).
Versions collectVersions();

// Now, as "2026-11-30T05:01:13Z".
std::string utcNow();

}  // namespace splitstep
