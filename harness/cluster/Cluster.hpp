// The MPI job as splitstep sees it: ranks, nodes, hosts, and start-up agreement.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace splitstep {

// Start-up refused on every rank (bad options, mismatched plans, no device...). Exit status 2;
// `shouldPrint()` is true on exactly one rank so that the job prints the reason once.
class StartupRefused : public std::runtime_error {
 public:
  StartupRefused(const std::string& message, bool should_print)
      : std::runtime_error(message), should_print_(should_print) {}
  bool shouldPrint() const { return should_print_; }

 private:
  bool should_print_;
};

class Cluster {
 public:
  explicit Cluster(MPI_Comm parent);
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int localRank() const { return local_rank_; }
  int localSize() const { return local_size_; }
  const std::string& host() const { return hosts_[rank_]; }
  const std::vector<std::string>& hosts() const { return hosts_; }
  // Process ids by rank: with the host, what names a rank that stopped answering.
  const std::vector<long>& pids() const { return pids_; }
  MPI_Comm comm() const { return comm_; }

  // Collective. Returns when no rank passed an error; otherwise throws StartupRefused on every
  // rank, carrying the lowest failing rank's message (printed by that rank). Every rank reaches
  // the same exchange, so a failure on one rank leaves no other rank waiting.
  void requireAllOk(const std::optional<std::string>& error) const;

  // Collective: `value` from every rank, indexed by rank.
  std::vector<std::uint64_t> allgather(std::uint64_t value) const;

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  int local_size_ = 1;
  std::vector<std::string> hosts_;
  std::vector<long> pids_;
};

}  // namespace splitstep
