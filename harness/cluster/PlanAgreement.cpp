#include "cluster/PlanAgreement.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace splitstep {

std::optional<std::string> describePlanMismatch(const std::vector<std::uint64_t>& hashes,
                                                const std::vector<std::string>& hosts) {
  std::vector<std::string> differing;
  for (std::size_t r = 1; r < hashes.size(); ++r) {
    if (hashes[r] != hashes[0]) differing.push_back(fmt::format("{} ({})", r, hosts.at(r)));
  }
  if (differing.empty()) return std::nullopt;
  return fmt::format(
      "run plan or binary differs between ranks: rank(s) {} differ from rank 0 ({}); start every "
      "rank with the same splitstep, options and config file",
      fmt::join(differing, ", "), hosts.at(0));
}

}  // namespace splitstep
