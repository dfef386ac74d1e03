// The case schema of every collective suite (allreduce, alltoall, ...): what a case is, encoded
// to typed fields by the suite and decoded by the analyses, in this one unit.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "cases/CaseFamily.hpp"
#include "comm/AlgorithmChoice.hpp"
#include "common/EnumNames.hpp"
#include "options/CollectivesPlan.hpp"

namespace splitstep {

// Where a call's buffers live: the device's memory (NCCL, CUDA-aware MPI) or the host's.
enum class BufferKind { Device, Host };

template <>
struct EnumNames<BufferKind> {
  static constexpr std::array values = {std::pair{BufferKind::Device, std::string_view("device")},
                                        std::pair{BufferKind::Host, std::string_view("host")}};
};

// The ranks that ran a case together under --groups, and which of the groups it was.
struct CaseGroup {
  IntegerList ranks;
  std::int64_t index = 0;  // its place in --groups
  GroupMode mode = GroupMode::Sequential;

  bool operator==(const CaseGroup&) const = default;
};

struct CollectiveCase {
  std::string backend;     // the communicator's: "nccl" | "mpi"
  std::string collective;  // its descriptor's name: "allreduce", ...
  CollectiveDtype dtype = CollectiveDtype::Fp32;
  Placement placement = Placement::OutOfPlace;
  std::uint64_t size = 0;   // the size asked for (--bytes)
  std::uint64_t bytes = 0;  // nccl-tests' size: what algbw divides by
  std::uint64_t count = 0;  // elements per rank, as nccl-tests counts them
  BufferKind buffers = BufferKind::Device;
  std::optional<CaseGroup> group;  // with --groups only
  // What NCCL chose for most of the case's calls, as it told splitstep's profiler plugin; unset
  // where it told nothing (MPI, one rank, --nccl-algorithms off).
  std::optional<AlgorithmChoice> nccl = std::nullopt;

  bool operator==(const CollectiveCase&) const = default;

  bool inPlace() const { return placement == Placement::InPlace; }
  // What names the case for people, its group aside: "nccl fp32 1 MiB in place". The case's
  // name is this and, with --groups, its group; analyses that set groups side by side name
  // them with this, never by taking the name apart.
  std::string label() const;

  CaseFields encode() const;
  // nullopt where `fields` are not a collective case's (another family, a field missing).
  static std::optional<CollectiveCase> decode(const CaseFields& fields);
  static const CaseFamily& family();
};

}  // namespace splitstep
