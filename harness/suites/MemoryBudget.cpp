#include "suites/MemoryBudget.hpp"

#include <fmt/format.h>

namespace splitstep {
namespace {

std::optional<std::string> exceeds(std::uint64_t need, std::optional<std::uint64_t> available,
                                   const char* kind) {
  if (!available) return std::nullopt;
  const auto usable =
      static_cast<std::uint64_t>(MemoryBudget::kUsable * static_cast<double>(*available));
  if (need <= usable) return std::nullopt;
  return fmt::format("needs {} of {} memory per rank, more than the {} of {} free that may be used",
                     formatEstimate(need), kind, formatEstimate(usable),
                     formatEstimate(*available));
}

}  // namespace

std::optional<std::string> MemoryBudget::shortfall(const Footprint& need) const {
  if (auto device = exceeds(need.device, device_free, "device")) return device;
  return exceeds(need.host, host_available, "host (MemAvailable)");
}

std::string formatEstimate(std::uint64_t bytes) {
  const auto b = static_cast<double>(bytes);
  if (bytes >= (1ull << 30)) return fmt::format("{:.1f} GiB", b / (1ull << 30));
  if (bytes >= (1ull << 20)) return fmt::format("{:.1f} MiB", b / (1ull << 20));
  if (bytes >= (1ull << 10)) return fmt::format("{:.1f} KiB", b / (1ull << 10));
  return fmt::format("{} B", bytes);
}

}  // namespace splitstep
