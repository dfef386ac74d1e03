#include "comm/CollectiveLayout.hpp"

namespace splitstep {

std::string_view toString(Collective collective) {
  switch (collective) {
    case Collective::AllReduce:
      return "allreduce";
    case Collective::ReduceScatter:
      return "reduce_scatter";
    case Collective::AllGather:
      return "allgather";
    case Collective::Broadcast:
      return "broadcast";
  }
  return "?";
}

CollectiveLayout layoutFor(Collective collective, std::uint64_t size, std::size_t element_bytes,
                           int ranks, int rank) {
  CollectiveLayout layout;
  const auto n = static_cast<std::size_t>(ranks);
  const auto r = static_cast<std::size_t>(rank);
  std::size_t count = static_cast<std::size_t>(size / element_bytes);
  switch (collective) {
    case Collective::AllReduce:
    case Collective::Broadcast:
      layout.send = layout.recv = layout.call_count = count;
      break;
    case Collective::ReduceScatter:
      count = count / n * n;
      layout.send = count;
      layout.recv = layout.call_count = count / n;
      layout.recv_offset_in_place = r * layout.recv;  // this rank's block of the send buffer
      break;
    case Collective::AllGather:
      count = count / n * n;
      layout.recv = count;
      layout.send = layout.call_count = count / n;
      layout.send_offset_in_place = r * layout.send;  // this rank's block of the receive buffer
      break;
  }
  if (layout.call_count == 0) return {};
  layout.count = count;
  layout.bytes = static_cast<std::uint64_t>(count) * element_bytes;
  return layout;
}

}  // namespace splitstep
