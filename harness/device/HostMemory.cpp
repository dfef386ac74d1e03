#include "device/HostMemory.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "common/MemoryBudget.hpp"
#include "common/Units.hpp"
#include "device/FreeMemory.hpp"

namespace splitstep {

std::optional<std::string> ranksRefusal(const NodeMemory& node, std::string_view host) {
  const double usable = MemoryBudget::usable(node.total());
  if (static_cast<double>(node.base) <= usable) return std::nullopt;
  const std::uint64_t each = node.base / static_cast<std::uint64_t>(node.ranks);
  const auto fit = static_cast<std::uint64_t>(usable / static_cast<double>(each));
  return fmt::format(
      "host memory: {} rank{} on {} take{} {} before any case ({} each, LibTorch and MPI), more "
      "than the {} of {} that may be used there (MemAvailable {} and the {} the ranks hold); {}",
      node.ranks, node.ranks == 1 ? "" : "s", host, node.ranks == 1 ? "s" : "",
      formatBytesApprox(static_cast<double>(node.base)),
      formatBytesApprox(static_cast<double>(each)), formatBytesApprox(usable),
      formatBytesApprox(static_cast<double>(node.total())),
      formatBytesApprox(static_cast<double>(node.available)),
      formatBytesApprox(static_cast<double>(node.held)),
      fit == 0 ? std::string("no rank fits")
               : fmt::format("{} rank{} fit{}", fit, fit == 1 ? "" : "s", fit == 1 ? "s" : ""));
}

std::uint64_t caseShare(const NodeMemory& node) {
  const double base = static_cast<double>(node.base) / MemoryBudget::kUsable;
  const double total = static_cast<double>(node.total());
  if (base >= total) return 0;
  return static_cast<std::uint64_t>((total - base) / node.ranks);
}

std::optional<std::uint64_t> heldHostMemory() {
  std::ifstream file("/proc/self/status");
  if (!file) return std::nullopt;
  std::ostringstream text;
  text << file.rdbuf();
  return parseRssAnon(text.str());
}

std::optional<std::uint64_t> parseRssAnon(std::string_view status) {
  return parseProcKibibytes(status, "RssAnon");
}

}  // namespace splitstep
