#include "suites/MembwSpace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

#include "common/Units.hpp"

namespace splitstep {
namespace {

constexpr std::array<std::string_view, 4> kHostCopies = {"h2d pinned", "h2d pageable", "d2h pinned",
                                                         "d2h pageable"};

// What each kind of case moves, in the order they run: the host<->device copies are cases on
// the CPU too, skipped.
std::vector<std::string> kinds(bool on_gpu) {
  std::vector<std::string> kinds = {"copy", "triad"};
  if (on_gpu) kinds.emplace_back("memcpy d2d");
  kinds.insert(kinds.end(), kHostCopies.begin(), kHostCopies.end());
  return kinds;
}

// On a GPU: three device arrays, then one device array with a pinned and a pageable host copy.
// On the CPU: three host arrays.
Footprint footprint(std::uint64_t bytes, bool on_gpu) {
  return on_gpu ? Footprint{3 * bytes, 2 * bytes} : Footprint{0, 3 * bytes};
}

}  // namespace

MembwSpace::MembwSpace(const MembwPlan& plan, bool on_gpu, const MemoryBudget& budget)
    : on_gpu_(on_gpu), budget_(budget) {
  for (std::uint64_t bytes : plan.bytes) {
    for (std::string& kind : kinds(on_gpu)) cases_.push_back({std::move(kind), bytes});
  }
}

std::vector<std::span<const MembwCase>> MembwSpace::sizes() const {
  return blocksOf(cases_,
                  [](const MembwCase& a, const MembwCase& b) { return a.bytes == b.bytes; });
}

std::optional<Skip> MembwSpace::whyNot(const MembwCase& c) const {
  if (const auto why = budget_.shortfall(footprint(c.bytes, on_gpu_))) return Skip{*why, true};
  if (!on_gpu_ && std::find(kHostCopies.begin(), kHostCopies.end(), c.kind) != kHostCopies.end()) {
    return Skip{"host<->device copies need a CUDA device"};
  }
  return std::nullopt;
}

std::optional<std::string> MembwSpace::refusal() const {
  const auto blocked = noneWithinLimits(cases_, [this](const MembwCase& c) { return whyNot(c); });
  if (!blocked) return std::nullopt;
  return fmt::format("--membw-bytes: no size fits on these ranks; {} per array {}",
                     formatBytes(blocked->first->bytes), blocked->reason);
}

std::string MembwSpace::name(const MembwCase& c) {
  return fmt::format("{} {}", c.kind, formatBytes(c.bytes));
}

}  // namespace splitstep
