#include "suites/CollectiveSpace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "common/Units.hpp"

namespace splitstep {

DataType toDataType(CollectiveDtype dtype) {
  switch (dtype) {
    case CollectiveDtype::Fp32:
      return DataType::Float32;
    case CollectiveDtype::Bf16:
      return DataType::BFloat16;
    case CollectiveDtype::Fp16:
      return DataType::Float16;
  }
  throw std::invalid_argument("unknown dtype");
}

namespace {

// Why a call of `layout` on `comm` is beyond a limit: more elements than the backend counts, or
// buffers larger than the agreed budget; empty when it is within them.
std::optional<std::string> beyondLimits(const CollectiveLayout& layout, std::size_t bytes,
                                        const Communicator& comm, const MemoryBudget& budget) {
  if (layout.call_count > comm.maxCount()) {
    return fmt::format("{} elements per call, more than {} counts in one call ({})",
                       layout.call_count, comm.backend(), comm.maxCount());
  }
  const Footprint need = comm.usesDeviceBuffers() ? Footprint{bytes, 0} : Footprint{0, bytes};
  if (auto why = budget.shortfall(need)) return "buffers " + *why;
  return std::nullopt;
}

// One round's groups: positions in RankGroups::groups; none (every rank together) without
// --groups.
std::vector<std::vector<std::optional<std::size_t>>> roundsOf(const RankGroups& groups) {
  if (groups.groups.empty()) return {{std::nullopt}};
  std::vector<std::vector<std::optional<std::size_t>>> rounds;
  for (const std::vector<std::size_t>& round : groups.rounds) {
    rounds.emplace_back(round.begin(), round.end());
  }
  return rounds;
}

}  // namespace

CollectiveSpace::CollectiveSpace(const CollectiveDescriptor& collective,
                                 const CollectivesPlan& plan,
                                 const std::vector<Communicator*>& communicators,
                                 const RankGroups& groups, int world_size,
                                 const MemoryBudget& budget)
    : collective_(collective), communicators_(communicators), groups_(groups), budget_(budget) {
  const auto rounds = roundsOf(groups);
  std::size_t call = 0;
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    for (CollectiveDtype dtype : plan.dtypes) {
      for (Placement placement : plan.placements) {
        for (std::uint64_t size : plan.bytes) {
          for (std::size_t b = 0; b < communicators.size(); ++b, ++call) {
            const Communicator& world = *communicators[b];
            for (std::size_t g = 0; g < rounds[r].size(); ++g) {
              const std::optional<std::size_t> index = rounds[r][g];
              Case c{{std::string(world.backend()),
                      std::string(collective.name),
                      dtype,
                      placement,
                      size,
                      0,
                      0,
                      world.usesDeviceBuffers() ? BufferKind::Device : BufferKind::Host,
                      {}},
                     r,
                     call,
                     g,
                     b,
                     world_size};
              if (index) {
                const std::vector<int>& ranks = groups.groups.at(*index);
                c.fields.group = CaseGroup{IntegerList(ranks.begin(), ranks.end()),
                                           static_cast<std::int64_t>(*index), groups.mode};
                c.ranks = static_cast<int>(ranks.size());
              }
              // Counts and sizes are alike on every rank of the group; only offsets differ.
              const CollectiveLayout first = layout(c, 0);
              c.fields.bytes = first.bytes;
              c.fields.count = first.count;
              cases_.push_back(std::move(c));
            }
          }
        }
      }
    }
  }
}

std::vector<std::span<const CollectiveSpace::Case>> CollectiveSpace::calls() const {
  return blocksOf(cases_, [](const Case& a, const Case& b) { return a.call == b.call; });
}

CollectiveLayout CollectiveSpace::layout(const Case& c, int group_rank) const {
  return layoutFor(collective_, c.fields.size, elementBytes(toDataType(c.fields.dtype)), c.ranks,
                   group_rank);
}

std::size_t CollectiveSpace::largestAllocation(const Case& c) const {
  // A root may hold more than the others: every rank decides from the same figure.
  const std::size_t element = elementBytes(toDataType(c.fields.dtype));
  std::size_t largest = 0;
  for (int r = 0; r < c.ranks; ++r) {
    largest = std::max(
        largest,
        layoutFor(collective_, c.fields.size, element, c.ranks, r).allocation(c.fields.inPlace()));
  }
  return largest * element;
}

std::optional<Skip> CollectiveSpace::whyNot(const Case& c) const {
  const CollectiveLayout call = layout(c, 0);
  if (collective_.rank_count_refusal != nullptr) {
    const std::string_view why = collective_.rank_count_refusal(c.ranks);
    if (!why.empty()) return Skip{fmt::format("{} ({} ranks)", why, c.ranks)};
  }
  if (call.count == 0) return Skip{"too small for one element per rank"};
  const bool in_place = c.fields.inPlace();
  if (in_place && !collective_.in_place_refusal.empty()) {
    return Skip{std::string(collective_.in_place_refusal)};
  }
  // What the backend supports, and where its buffers live, is the same for the world's
  // communicator as for its groups'.
  const Communicator& comm = *communicators_.at(c.backend);
  std::string why_not;
  if (!comm.supports(collective_, toDataType(c.fields.dtype), in_place, why_not)) {
    return Skip{why_not};
  }
  if (auto limit = beyondLimits(call, largestAllocation(c), comm, budget_)) {
    return Skip{std::move(*limit), true};
  }
  return std::nullopt;
}

std::optional<std::string> CollectiveSpace::refusal() const {
  const auto blocked = noneWithinLimits(cases_, [this](const Case& c) { return whyNot(c); });
  if (!blocked) return std::nullopt;
  const CollectiveCase& first = blocked->first->fields;
  return fmt::format("--bytes: no {} case fits on these ranks; {} {} {}: {}", collective_.name,
                     first.backend, toString(first.dtype), formatBytes(first.size),
                     blocked->reason);
}

std::string CollectiveSpace::name(const Case& c) const {
  std::string name = c.fields.label();
  if (c.fields.group) name += " group " + groupName(groups_.groups.at(c.fields.group->index));
  return name;
}

}  // namespace splitstep
