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

// The layouts several collectives share, each a descriptor's `layout`: a call whose larger
// buffer holds `count` elements, on `ranks` ranks, seen from `rank`.

// The whole buffer sent and received (allreduce, broadcast, reduce, sendrecv).
inline CollectiveLayout wholeBufferLayout(std::size_t count, std::size_t, std::size_t) {
  return {.count = count, .send = count, .recv = count, .call_count = count};
}

// One block sent, one block of every rank received (allgather, gather). In place, the send block
// already sits at this rank's offset of the receive buffer.
inline CollectiveLayout gatherLayout(std::size_t count, std::size_t ranks, std::size_t rank) {
  const std::size_t block = count / ranks;
  return {.count = block * ranks,
          .send = block,
          .recv = block * ranks,
          .call_count = block,
          .send_offset_in_place = rank * block};
}

// One block for every rank sent, one block received (reduce_scatter, scatter). In place, this
// rank's block of the send buffer is its receive buffer.
inline CollectiveLayout scatterLayout(std::size_t count, std::size_t ranks, std::size_t rank) {
  const std::size_t block = count / ranks;
  return {.count = block * ranks,
          .send = block * ranks,
          .recv = block,
          .call_count = block,
          .recv_offset_in_place = rank * block};
}

}  // namespace splitstep
