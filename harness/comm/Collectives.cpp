#include <algorithm>
#include <array>
#include <stdexcept>

#include "comm/Collective.hpp"

namespace splitstep {

// One file each, under comm/collectives/.
extern const CollectiveDescriptor kAllReduce;
extern const CollectiveDescriptor kReduceScatter;
extern const CollectiveDescriptor kAllGather;
extern const CollectiveDescriptor kBroadcast;
extern const CollectiveDescriptor kAllToAll;
extern const CollectiveDescriptor kSendRecv;
extern const CollectiveDescriptor kReduce;
extern const CollectiveDescriptor kGather;
extern const CollectiveDescriptor kScatter;
extern const CollectiveDescriptor kHypercube;

namespace {

constexpr std::array kCollectives = {&kAllReduce, &kReduceScatter, &kAllGather, &kBroadcast,
                                     &kAllToAll,  &kSendRecv,      &kReduce,    &kGather,
                                     &kScatter,   &kHypercube};

}  // namespace

std::span<const CollectiveDescriptor* const> collectives() { return kCollectives; }

const CollectiveDescriptor* findCollective(std::string_view name) {
  const auto it = std::find_if(kCollectives.begin(), kCollectives.end(),
                               [name](const CollectiveDescriptor* c) { return c->name == name; });
  return it == kCollectives.end() ? nullptr : *it;
}

const CollectiveDescriptor& allReduce() { return kAllReduce; }
const CollectiveDescriptor& broadcast() { return kBroadcast; }

std::optional<double> busBandwidthFactor(const CollectiveDescriptor& collective, int ranks) {
  if (ranks < 1) throw std::invalid_argument("rank count must be positive");
  if (ranks == 1) return std::nullopt;
  return collective.bus_factor(ranks);
}

CollectiveLayout layoutFor(const CollectiveDescriptor& collective, std::uint64_t size,
                           std::size_t element_bytes, int ranks, int rank) {
  CollectiveLayout layout =
      collective.layout(static_cast<std::size_t>(size / element_bytes),
                        static_cast<std::size_t>(ranks), static_cast<std::size_t>(rank));
  if (layout.call_count == 0) return {};
  layout.bytes = static_cast<std::uint64_t>(layout.count) * element_bytes;
  return layout;
}

}  // namespace splitstep
