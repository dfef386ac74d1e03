// Whether every rank holds the same run plan and binary, judged from their hashes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace splitstep {

// `hashes` and `hosts` are indexed by rank. Empty when every hash equals rank 0's; otherwise a
// one-line message naming the ranks (and hosts) that differ from rank 0.
std::optional<std::string> describePlanMismatch(const std::vector<std::uint64_t>& hashes,
                                                const std::vector<std::string>& hosts);

}  // namespace splitstep
