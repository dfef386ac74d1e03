#include "collect/Collector.hpp"

#include <limits>
#include <numeric>
#include <stdexcept>

#include "cluster/ClockSync.hpp"
#include "cluster/MpiWait.hpp"

namespace splitstep {

std::vector<std::string> gatherToRoot(const std::string& payload, MPI_Comm comm,
                                      Watchdog& watchdog) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (payload.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw std::length_error("payload over 2 GiB cannot be gathered");
  }
  int length = static_cast<int>(payload.size());
  std::vector<int> lengths(rank == 0 ? static_cast<std::size_t>(size) : 0);
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Igather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm, &request);
  waitForRequest(watchdog, request, "the other ranks to send the lengths of their results");

  std::vector<int> offsets(lengths.size());
  std::vector<char> buffer;
  if (rank == 0) {
    std::exclusive_scan(lengths.begin(), lengths.end(), offsets.begin(), 0);
    buffer.resize(static_cast<std::size_t>(offsets.back() + lengths.back()));
  }
  MPI_Igatherv(payload.data(), length, MPI_CHAR, buffer.data(), lengths.data(), offsets.data(),
               MPI_CHAR, 0, comm, &request);
  waitForRequest(watchdog, request, "the other ranks to send their results");

  std::vector<std::string> payloads;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    payloads.emplace_back(buffer.data() + offsets[r], static_cast<std::size_t>(lengths[r]));
  }
  return payloads;
}

std::vector<RankTimeline> gatherTimelines(const Timeline& timeline,
                                          std::vector<TelemetryReading> readings,
                                          const ClockOffset& at_start, MPI_Comm comm,
                                          Watchdog& watchdog) {
  const ClockOffset at_end = measureClockOffset(comm, watchdog);
  std::vector<RankTimeline> timelines;
  for (const std::string& payload :
       gatherToRoot(encodeTimeline(rankTimeline(timeline, std::move(readings), at_start, at_end)),
                    comm, watchdog)) {
    timelines.push_back(decodeTimeline(payload));
  }
  return timelines;
}

}  // namespace splitstep
