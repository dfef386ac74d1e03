#include "collect/Collector.hpp"

#include <gtest/gtest.h>

#include "collect/SampleCodec.hpp"
#include "common/Watchdog.hpp"

namespace splitstep {
namespace {

// Payloads of different lengths and letters per rank; rank 1 sends nothing at all.
std::string payloadOf(int rank) {
  if (rank == 1) return "";
  return std::string(static_cast<std::size_t>(rank) * 1000 + 3, static_cast<char>('a' + rank));
}

TEST(Collector, RootReceivesEveryRanksPayloadInRankOrder) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Watchdog watchdog(60);
  const std::vector<std::string> gathered = gatherToRoot(payloadOf(rank), MPI_COMM_WORLD, watchdog);
  if (rank != 0) {
    EXPECT_TRUE(gathered.empty());
    return;
  }
  ASSERT_EQ(gathered.size(), static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) EXPECT_EQ(gathered[r], payloadOf(r)) << "rank " << r;
}

TEST(Collector, EncodedSamplesArriveIntactAtRoot) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Sample sample;
  sample.suite = "allreduce";
  sample.case_name = "rank " + std::to_string(rank);
  sample.measurement.values = {static_cast<double>(rank), 0.5};
  Watchdog watchdog(60);
  const auto gathered = gatherToRoot(encodeSamples({sample}), MPI_COMM_WORLD, watchdog);
  for (std::size_t r = 0; r < gathered.size(); ++r) {
    const auto decoded = decodeSamples(gathered[r]);
    ASSERT_EQ(decoded.size(), 1u);
    EXPECT_EQ(decoded[0].case_name, "rank " + std::to_string(r));
    EXPECT_EQ(decoded[0].measurement.values, (std::vector<double>{static_cast<double>(r), 0.5}));
  }
}

TEST(Collector, RootGivesUpOnARankThatNeverSends) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // A communicator of its own, left behind: the gather on it never completes at the root.
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  Watchdog watchdog(0.3);
  if (rank == size - 1) return;  // the rank that stalled
  if (rank == 0) {
    EXPECT_THROW(gatherToRoot("payload", comm, watchdog), TimeoutError);
  } else {
    EXPECT_NO_THROW(gatherToRoot("payload", comm, watchdog));  // a sender need not wait
  }
}

}  // namespace
}  // namespace splitstep
