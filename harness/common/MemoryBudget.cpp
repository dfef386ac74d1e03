#include "common/MemoryBudget.hpp"

#include <fmt/format.h>

#include "common/Units.hpp"

namespace splitstep {
namespace {

std::optional<std::string> exceeds(std::uint64_t need, std::optional<std::uint64_t> available,
                                   const char* kind) {
  if (!available) return std::nullopt;
  const auto usable = static_cast<std::uint64_t>(MemoryBudget::usable(*available));
  if (need <= usable) return std::nullopt;
  return fmt::format("needs {} of {} memory per rank, more than the {} of {} free that may be used",
                     formatBytesApprox(static_cast<double>(need)), kind,
                     formatBytesApprox(static_cast<double>(usable)),
                     formatBytesApprox(static_cast<double>(*available)));
}

}  // namespace

std::optional<std::string> MemoryBudget::shortfall(const Footprint& need) const {
  if (auto device = exceeds(need.device, device_free, "device")) return device;
  return exceeds(need.host, host_available, "host (MemAvailable)");
}

}  // namespace splitstep
