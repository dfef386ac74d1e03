// Memory a case needs, estimated before anything is allocated, against what every rank can
// spare: a case that cannot fit is skipped with a note, and a suite none of whose cases fits is
// refused at start (exit 2), instead of growing until the kernel kills the job.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace splitstep {

// Bytes one rank needs at once.
struct Footprint {
  std::uint64_t device = 0;
  std::uint64_t host = 0;
};

// The least over ranks, agreed at start, so that every rank decides alike without another
// collective. Empty where unknown (no GPU; no /proc/meminfo).
struct MemoryBudget {
  // Of what is free, this share may be asked for: allocators, libraries and fragmentation need
  // the rest.
  static constexpr double kUsable = 0.9;
  // The bytes of `available` that may be asked for.
  static double usable(std::uint64_t available) { return kUsable * static_cast<double>(available); }

  std::optional<std::uint64_t> device_free;     // free device memory
  std::optional<std::uint64_t> host_available;  // MemAvailable over the node's ranks

  // Why `need` does not fit, e.g. "needs 48.0 GiB of host (MemAvailable) memory per rank, more
  // than the 10.1 GiB of 11.2 GiB free that may be used" (formatBytesApprox); empty when it fits
  // or nothing is known.
  std::optional<std::string> shortfall(const Footprint& need) const;
};

}  // namespace splitstep
