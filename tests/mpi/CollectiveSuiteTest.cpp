// Every collective suite across real ranks on the CPU backend (MPI on host buffers): each case
// it should time is timed and its check examines every element of the result and finds none
// wrong, on every rank that holds a result; and a result that is wrong is caught.
#include "suites/CollectiveSuite.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <mpi.h>
#include <stdexcept>

#include <memory>
#include <string>

#include "CollectingSink.hpp"
#include "cases/CollectiveCase.hpp"
#include "cluster/MpiAgreement.hpp"
#include "comm/Collective.hpp"
#include "comm/MpiCommunicator.hpp"

namespace splitstep {
namespace {

// Sizes with one element per rank and less (8 B over four ranks), blocks that are not a
// multiple of 16 elements, and blocks of many 16s.
CollectivesPlan smallPlan() {
  CollectivesPlan plan;
  plan.bytes = {8, 1000, 65536};
  plan.dtypes = {CollectiveDtype::Fp32};
  plan.placements = {Placement::OutOfPlace, Placement::InPlace};
  plan.backends = {Backend::Mpi};
  return plan;
}

MeasureSettings quick() {
  MeasureSettings settings;
  settings.warmup = 1;
  settings.loops = 1;
  settings.samples = 3;
  return settings;
}

struct Ranks {
  Ranks() : device(openDevice({false, 0}, watchdog)), agreement(MPI_COMM_WORLD, watchdog) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
  SuiteContext context(Communicator* comm) {
    return {*device, {comm}, agreement, watchdog, sink, quick(), rank, size};
  }

  Watchdog watchdog{60};
  testing::CollectingSink sink;
  std::unique_ptr<Device> device;
  MpiAgreement agreement;
  int rank = 0;
  int size = 1;
};

CollectiveCase fieldsOf(const Sample& s) {
  const auto fields = CollectiveCase::decode(s.fields);
  if (!fields) throw std::runtime_error("not a collective case: " + s.case_name);
  return *fields;
}

bool inPlace(const Sample& s) { return fieldsOf(s).inPlace(); }

// Why the suite must skip `s` on MPI, or empty where it must time it.
std::string expectedSkip(const CollectiveDescriptor& c, const Sample& s, int ranks) {
  if (c.rank_count_refusal != nullptr && !c.rank_count_refusal(ranks).empty()) {
    return fmt::format("skipped: {} ({} ranks)", c.rank_count_refusal(ranks), ranks);
  }
  const CollectiveLayout layout = layoutFor(c, fieldsOf(s).size, 4, ranks, 0);
  if (layout.count == 0) return "skipped: too small for one element per rank";
  if (inPlace(s) && !c.in_place_refusal.empty())
    return "skipped: " + std::string(c.in_place_refusal);
  if (inPlace(s) && !c.mpi_in_place_refusal.empty()) {
    return "skipped: " + std::string(c.mpi_in_place_refusal);
  }
  return {};
}

TEST(CollectiveSuite, EveryCollectiveIsCheckedOnEveryRankThatHoldsAResult) {
  Ranks ranks;
  MpiCommunicator mpi(MPI_COMM_WORLD, ranks.watchdog, false);
  for (const CollectiveDescriptor* c : collectives()) {
    SCOPED_TRACE(std::string(c->name));
    CollectiveSuite(*c, smallPlan()).run(ranks.context(&mpi));
    // Each case is published once measured and checked, on its own.
    EXPECT_EQ(ranks.sink.batches.size(), 6u);
    const std::vector<Sample> samples = ranks.sink.take();
    ASSERT_EQ(samples.size(), 6u);  // three sizes, two placements
    int timed = 0;
    for (const Sample& s : samples) {
      SCOPED_TRACE(s.case_name);
      const std::string skip = expectedSkip(*c, s, ranks.size);
      if (!skip.empty()) {
        EXPECT_TRUE(s.measurement.values.empty());
        ASSERT_EQ(s.notes.size(), 1u);
        EXPECT_EQ(s.notes.front(), skip);
        continue;
      }
      ++timed;
      EXPECT_EQ(s.measurement.values.size(), 3u);
      ASSERT_EQ(s.checks.size(), 1u);
      const Check& check = s.checks.front();
      EXPECT_EQ(check.wrong, 0u);
      const CollectiveLayout layout = layoutFor(*c, fieldsOf(s).size, 4, ranks.size, ranks.rank);
      if (c->result_at_root_only && ranks.rank != 0) {
        EXPECT_EQ(check.checked, 0u);  // nothing defined to check off the root
      } else {
        EXPECT_EQ(check.checked, layout.recv);  // every element of the result
      }
      EXPECT_EQ(fieldsOf(s).bytes, layout.bytes);
      EXPECT_EQ(fieldsOf(s).collective, c->name);
    }
    EXPECT_GE(timed, 2);  // at least 1000 B and 64 KiB out of place
  }
}

// MPI underneath, for a test communicator to change one thing of: host buffers, no groups.
class ForwardingCommunicator : public Communicator {
 public:
  explicit ForwardingCommunicator(Communicator& real) : real_(real) {}
  std::string backend() const override { return real_.backend(); }
  int rank() const override { return real_.rank(); }
  int size() const override { return real_.size(); }
  bool usesDeviceBuffers() const override { return false; }
  bool supports(const CollectiveDescriptor& collective, DataType type, bool in_place,
                std::string& why_not) const override {
    return real_.supports(collective, type, in_place, why_not);
  }
  void run(const CollectiveDescriptor& collective, const void* send, void* recv, std::size_t count,
           DataType type, cudaStream_t stream) override {
    real_.run(collective, send, recv, count, type, stream);
  }
  std::unique_ptr<Communicator> split(std::optional<int>) override {
    throw std::logic_error("a test communicator runs without groups");
  }

 private:
  Communicator& real_;
};

// Then one element of every result spoiled with a value the check pattern never holds: what a
// collective that writes the wrong thing looks like.
class SpoilingCommunicator final : public ForwardingCommunicator {
 public:
  using ForwardingCommunicator::ForwardingCommunicator;
  void run(const CollectiveDescriptor& collective, const void* send, void* recv, std::size_t count,
           DataType type, cudaStream_t stream) override {
    ForwardingCommunicator::run(collective, send, recv, count, type, stream);
    static_cast<float*>(recv)[0] = -1.0f;
  }
};

// Telling a choice for each call as NCCL's profiler plugin does: the LL protocol below 1000
// elements, SIMPLE above, and at exactly 1000 every fourth call on TREE.
class TellingCommunicator final : public ForwardingCommunicator {
 public:
  using ForwardingCommunicator::ForwardingCommunicator;
  void run(const CollectiveDescriptor& collective, const void* send, void* recv, std::size_t count,
           DataType type, cudaStream_t stream) override {
    ForwardingCommunicator::run(collective, send, recv, count, type, stream);
    if (count < 1000) {
      calls_.push_back({"RING", "LL", 2});
    } else if (count > 1000 || calls_.size() % 4 != 0) {
      calls_.push_back({"RING", "SIMPLE", 4});
    } else {
      calls_.push_back({"TREE", "SIMPLE", 4});
    }
  }
  std::uint64_t callMark() const override { return calls_.size(); }
  std::vector<ChoiceCount> choicesSince(std::uint64_t mark) const override {
    return countChoices(std::vector<AlgorithmChoice>(
        calls_.begin() + static_cast<std::ptrdiff_t>(mark), calls_.end()));
  }

 private:
  std::vector<AlgorithmChoice> calls_;
};

// Each case carries the choice of most of its own calls, and a note where they differed; a
// communicator that tells nothing leaves the fields without any.
TEST(CollectiveSuite, EachCaseCarriesTheChoiceOfItsOwnCalls) {
  Ranks ranks;
  MpiCommunicator mpi(MPI_COMM_WORLD, ranks.watchdog, false);
  TellingCommunicator telling(mpi);
  CollectivesPlan plan = smallPlan();
  plan.bytes = {400, 4000, 40000};  // 100, 1000 and 10000 fp32 elements
  plan.placements = {Placement::OutOfPlace};
  CollectiveSuite(*findCollective("allreduce"), plan).run(ranks.context(&telling));
  const std::vector<Sample> samples = ranks.sink.take();
  ASSERT_EQ(samples.size(), 3u);
  const std::vector<AlgorithmChoice> expected = {
      {"RING", "LL", 2}, {"RING", "SIMPLE", 4}, {"RING", "SIMPLE", 4}};
  for (std::size_t i = 0; i < samples.size(); ++i) {
    SCOPED_TRACE(samples[i].case_name);
    ASSERT_EQ(samples[i].measurement.values.size(), 3u);
    EXPECT_EQ(fieldsOf(samples[i]).nccl, expected[i]);
  }
  EXPECT_TRUE(samples[0].notes.empty());
  ASSERT_EQ(samples[1].notes.size(), 1u);
  EXPECT_NE(samples[1].notes[0].find("NCCL chose differently among the case's last "),
            std::string::npos);
  EXPECT_NE(samples[1].notes[0].find("RING/SIMPLE on 4 channels for "), std::string::npos);
  EXPECT_NE(samples[1].notes[0].find(", TREE/SIMPLE on 4 channels for "), std::string::npos);
  EXPECT_TRUE(samples[2].notes.empty());

  CollectiveSuite(*findCollective("allreduce"), plan).run(ranks.context(&mpi));
  for (const Sample& s : ranks.sink.take()) {
    EXPECT_FALSE(fieldsOf(s).nccl) << s.case_name;
    EXPECT_FALSE(s.fields.values.contains("nccl_algorithm")) << s.case_name;
  }
}

// --blocking: the host waits for each call; every case is still timed and checked.
TEST(CollectiveSuite, BlockingCallsAreTimedAndChecked) {
  Ranks ranks;
  MpiCommunicator mpi(MPI_COMM_WORLD, ranks.watchdog, false);
  CollectivesPlan plan = smallPlan();
  plan.blocking = true;
  CollectiveSuite(*findCollective("allreduce"), plan).run(ranks.context(&mpi));
  const std::vector<Sample> samples = ranks.sink.take();
  ASSERT_EQ(samples.size(), 6u);
  for (const Sample& s : samples) {
    SCOPED_TRACE(s.case_name);
    ASSERT_EQ(s.measurement.values.size(), 3u);
    ASSERT_EQ(s.checks.size(), 1u);
    EXPECT_EQ(s.checks.front().wrong, 0u);
  }
}

TEST(CollectiveSuite, AWrongResultIsCaught) {
  Ranks ranks;
  MpiCommunicator mpi(MPI_COMM_WORLD, ranks.watchdog, false);
  SpoilingCommunicator spoiling(mpi);
  CollectivesPlan plan = smallPlan();
  plan.bytes = {1000};
  plan.placements = {Placement::OutOfPlace};
  for (const CollectiveDescriptor* c : collectives()) {
    SCOPED_TRACE(std::string(c->name));
    CollectiveSuite(*c, plan).run(ranks.context(&spoiling));
    const std::vector<Sample> samples = ranks.sink.take();
    ASSERT_EQ(samples.size(), 1u);
    ASSERT_EQ(samples[0].checks.size(), 1u);
    const Check& check = samples[0].checks.front();
    if (c->result_at_root_only && ranks.rank != 0) {
      EXPECT_EQ(check.checked, 0u);
    } else {
      EXPECT_EQ(check.wrong, 1u);
    }
  }
}

}  // namespace
}  // namespace splitstep
