#include "cluster/Cluster.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include <unistd.h>

namespace splitstep {
namespace {

void mpiCheck(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(fmt::format("{} failed: {}", call, std::string(text, length)));
}

}  // namespace

Cluster::Cluster(MPI_Comm parent) {
  mpiCheck(MPI_Comm_dup(parent, &comm_), "MPI_Comm_dup");
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);

  MPI_Comm node = MPI_COMM_NULL;
  mpiCheck(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node),
           "MPI_Comm_split_type");
  MPI_Comm_rank(node, &local_rank_);
  MPI_Comm_size(node, &local_size_);
  MPI_Comm_free(&node);

  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  std::vector<char> all(static_cast<std::size_t>(size_) * MPI_MAX_PROCESSOR_NAME);
  mpiCheck(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
                         MPI_CHAR, comm_),
           "MPI_Allgather(host names)");
  for (int r = 0; r < size_; ++r) {
    const char* entry = all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME;
    hosts_.emplace_back(entry, strnlen(entry, MPI_MAX_PROCESSOR_NAME));
  }
  const long pid = getpid();
  pids_.resize(static_cast<std::size_t>(size_));
  mpiCheck(MPI_Allgather(&pid, 1, MPI_LONG, pids_.data(), 1, MPI_LONG, comm_),
           "MPI_Allgather(process ids)");
}

Cluster::~Cluster() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void Cluster::requireAllOk(const std::optional<std::string>& error) const {
  const int failed = error.has_value() ? 1 : 0;
  std::vector<int> flags(static_cast<std::size_t>(size_));
  mpiCheck(MPI_Allgather(&failed, 1, MPI_INT, flags.data(), 1, MPI_INT, comm_),
           "MPI_Allgather(start-up status)");
  const auto first = std::find(flags.begin(), flags.end(), 1);
  if (first == flags.end()) return;
  const int reporter = static_cast<int>(first - flags.begin());
  const bool everyone = std::count(flags.begin(), flags.end(), 1) == size_;
  if (rank_ != reporter) throw StartupRefused(fmt::format("refused on rank {}", reporter), false);
  // Say where only when ranks disagree: a bad option fails everywhere, a missing file may not.
  throw StartupRefused(everyone ? *error : fmt::format("{} (rank {} on {})", *error, rank_, host()),
                       true);
}

std::vector<std::uint64_t> Cluster::allgather(std::uint64_t value) const {
  std::vector<std::uint64_t> values(static_cast<std::size_t>(size_));
  mpiCheck(MPI_Allgather(&value, 1, MPI_UINT64_T, values.data(), 1, MPI_UINT64_T, comm_),
           "MPI_Allgather");
  return values;
}

}  // namespace splitstep
