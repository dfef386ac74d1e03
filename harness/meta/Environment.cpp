#include "meta/Environment.hpp"

#include <algorithm>
#include <array>
#include <string_view>

extern char** environ;

namespace splitstep {
namespace {

constexpr std::array kPrefixes = {std::string_view("NCCL_"), std::string_view("UCX_"),
                                  std::string_view("OMPI_"), std::string_view("CUDA_")};

// Set by Open MPI's launcher for each process (its rank) or each node (its daemon, its session
// directories, how many ranks it holds): they differ between ranks of any correct job.
constexpr std::array kPerProcess = {std::string_view("OMPI_COMM_WORLD_RANK"),
                                    std::string_view("OMPI_COMM_WORLD_LOCAL_RANK"),
                                    std::string_view("OMPI_COMM_WORLD_NODE_RANK"),
                                    std::string_view("OMPI_COMM_WORLD_LOCAL_SIZE"),
                                    std::string_view("OMPI_MCA_ess_base_vpid"),
                                    std::string_view("OMPI_MCA_orte_ess_node_rank"),
                                    std::string_view("OMPI_MCA_orte_local_daemon_uri"),
                                    std::string_view("OMPI_MCA_orte_jobfam_session_dir"),
                                    std::string_view("OMPI_MCA_orte_top_session_dir"),
                                    std::string_view("OMPI_FILE_LOCATION")};

std::string lookup(const EnvironmentList& environment, std::string_view name) {
  for (const auto& [key, value] : environment) {
    if (key == name) return value;
  }
  return {};
}

}  // namespace

EnvironmentList processEnvironment() {
  EnvironmentList list;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    list.emplace_back(std::string(text.substr(0, equals)), std::string(text.substr(equals + 1)));
  }
  std::sort(list.begin(), list.end());
  return list;
}

JobInfo jobInfo(const EnvironmentList& environment) {
  const std::string id = lookup(environment, "SLURM_JOB_ID");
  if (id.empty()) return {};
  return {"slurm", id, lookup(environment, "SLURM_JOB_NODELIST")};
}

EnvironmentList launchEnvironment(const EnvironmentList& environment) {
  EnvironmentList list;
  for (const auto& [name, value] : environment) {
    const std::string_view n(name);
    const bool ours = std::any_of(kPrefixes.begin(), kPrefixes.end(),
                                  [n](std::string_view p) { return n.starts_with(p); });
    const bool per_process =
        std::find(kPerProcess.begin(), kPerProcess.end(), n) != kPerProcess.end();
    if (ours && !per_process) list.emplace_back(name, value);
  }
  std::sort(list.begin(), list.end());
  return list;
}

std::uint64_t environmentHash(const EnvironmentList& environment) {
  std::uint64_t hash = 14695981039346656037ull;
  const auto mix = [&hash](std::string_view text) {
    for (unsigned char c : text) {
      hash ^= c;
      hash *= 1099511628211ull;
    }
    hash ^= 0xff;  // separator, so ("ab","c") and ("a","bc") differ
    hash *= 1099511628211ull;
  };
  for (const auto& [name, value] : environment) {
    mix(name);
    mix(value);
  }
  return hash;
}

}  // namespace splitstep
