// The collective suites' part of the plan and the enums it is made of (the names users type
// and reports print: common/EnumNames.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/EnumNames.hpp"

namespace splitstep {

enum class CollectiveDtype { Fp32, Bf16, Fp16 };
enum class Placement { OutOfPlace, InPlace };
enum class Backend { Nccl, Mpi };
// How the groups of --groups take turns: one group at a time, alone on its links, or every
// group at once (a round of disjoint groups at a time, where groups share ranks).
enum class GroupMode { Sequential, Concurrent };

template <>
struct EnumNames<CollectiveDtype> {
  static constexpr std::array values = {std::pair{CollectiveDtype::Fp32, std::string_view("fp32")},
                                        std::pair{CollectiveDtype::Bf16, std::string_view("bf16")},
                                        std::pair{CollectiveDtype::Fp16, std::string_view("fp16")}};
};

template <>
struct EnumNames<Placement> {
  static constexpr std::array values = {std::pair{Placement::OutOfPlace, std::string_view("out")},
                                        std::pair{Placement::InPlace, std::string_view("in")}};
};

template <>
struct EnumNames<Backend> {
  static constexpr std::array values = {std::pair{Backend::Nccl, std::string_view("nccl")},
                                        std::pair{Backend::Mpi, std::string_view("mpi")}};
};

template <>
struct EnumNames<GroupMode> {
  static constexpr std::array values = {
      std::pair{GroupMode::Sequential, std::string_view("sequential")},
      std::pair{GroupMode::Concurrent, std::string_view("concurrent")}};
};

// --groups: which ranks run each collective together. all: every rank (no groups); pairs: every
// pair of ranks; nodes: the ranks of each node; size: consecutive ranks, `size` at a time; list:
// the groups as given. Resolved against the launch (world size, nodes) by cluster/RankGroups.
enum class GroupKind { All, Pairs, Nodes, Size, List };
struct GroupSpec {
  GroupKind kind = GroupKind::All;
  int size = 0;                        // kind Size
  std::vector<std::vector<int>> list;  // kind List: each group's ranks, ascending
  bool operator==(const GroupSpec&) const = default;
};

struct CollectivesPlan {
  std::vector<std::uint64_t> bytes;  // message sizes (nccl-tests' "size"), multiples of 4
  std::vector<CollectiveDtype> dtypes;
  std::vector<Placement> placements;
  std::vector<Backend> backends;  // empty: NCCL on GPUs, MPI on CPUs
  bool check = true;              // verify every element after the timed samples
  // The host waits for each call to complete before it issues the next (nccl-tests -z): a
  // call's time then holds its launch and the wait, as a training loop that synchronises sees.
  bool blocking = false;
  // Seconds of wall time for each collective's cases, spread over them (0: none): a case's share
  // is what is left, over the cases left (StoppingRule's sweepShare).
  double sweep_time = 0;
  GroupSpec groups;
  GroupMode group_mode = GroupMode::Sequential;
  // Test only: this rank sleeps `slow_seconds` on the host before each timed collective call, a
  // slow GPU or link that the group analysis must flag.
  int slow_rank = -1;
  double slow_seconds = 0;
  // Test only: this rank overwrites the first element of each case's result before its check,
  // the wrong result the exit status must report (fp32 cases: a value no pattern holds).
  int spoil_rank = -1;
  // NCCL runs with splitstep's profiler plugin, which tells the algorithm, protocol and channels
  // NCCL chose for each case (comm/NcclCallReader.hpp).
  bool nccl_algorithms = false;
};

}  // namespace splitstep
