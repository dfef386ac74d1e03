// How one call of a collective lays out its buffers (nccl-tests' definitions).
#pragma once

#include <cstddef>
#include <cstdint>

namespace splitstep {

// Reduce-scatter and allgather (and the other collectives in blocks) split the larger buffer
// into one block per rank, so their element count is rounded down to a multiple of the ranks.
struct CollectiveLayout {
  std::size_t count = 0;       // elements of the larger buffer
  std::size_t send = 0;        // elements each rank sends
  std::size_t recv = 0;        // elements each rank receives
  std::size_t call_count = 0;  // the count argument of the NCCL call
  std::uint64_t bytes = 0;     // count * element size: what algbw and busbw count

  // Element offsets of the two buffers inside one allocation, when the collective runs in
  // place (the send buffer is part of the receive buffer, or the other way round).
  std::size_t send_offset_in_place = 0;
  std::size_t recv_offset_in_place = 0;

  // Elements of the one allocation that holds both buffers.
  std::size_t allocation(bool in_place) const {
    return in_place ? (send > recv ? send : recv) : send + recv;
  }
};

}  // namespace splitstep
