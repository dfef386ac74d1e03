// The cases of a collective suite, in the order run() reports them, and why each is skipped or
// the suite refused: against backends that say what they support and count, without MPI or a
// GPU.
#include "suites/CollectiveSpace.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "FakeCommunicator.hpp"

namespace splitstep {
namespace {

using testing::FakeCommunicator;

CollectivesPlan plan(std::vector<std::uint64_t> bytes) {
  CollectivesPlan p;
  p.bytes = std::move(bytes);
  p.dtypes = {CollectiveDtype::Fp32, CollectiveDtype::Bf16};
  p.placements = {Placement::OutOfPlace, Placement::InPlace};
  return p;
}

std::vector<std::string> namesOf(const CollectiveSpace& space) {
  std::vector<std::string> names;
  for (const CollectiveSpace::Case& c : space.cases()) names.push_back(space.name(c));
  return names;
}

TEST(CollectiveSpace, CasesRunByDtypePlacementSizeAndBackend) {
  FakeCommunicator nccl("nccl", true);
  FakeCommunicator mpi("mpi", false);
  const CollectiveSpace space(allReduce(), plan({8, 1024}), {&nccl, &mpi}, {}, 4, {});
  EXPECT_EQ(namesOf(space),
            (std::vector<std::string>{
                "nccl fp32 8 B", "mpi fp32 8 B", "nccl fp32 1 KiB", "mpi fp32 1 KiB",
                "nccl fp32 8 B in place", "mpi fp32 8 B in place", "nccl fp32 1 KiB in place",
                "mpi fp32 1 KiB in place", "nccl bf16 8 B", "mpi bf16 8 B", "nccl bf16 1 KiB",
                "mpi bf16 1 KiB", "nccl bf16 8 B in place", "mpi bf16 8 B in place",
                "nccl bf16 1 KiB in place", "mpi bf16 1 KiB in place"}));
  // Without groups each call is a case of its own, of every rank.
  EXPECT_EQ(space.calls().size(), 16u);
  const CollectiveSpace::Case& c = space.cases()[3];
  EXPECT_EQ(c.backend, 1u);
  EXPECT_EQ(c.ranks, 4);
  EXPECT_EQ(c.fields.bytes, 1024u);
  EXPECT_EQ(c.fields.count, 256u);
  EXPECT_EQ(c.fields.buffers, BufferKind::Host);
  EXPECT_EQ(c.fields.group, std::nullopt);
}

TEST(CollectiveSpace, TheGroupsOfARoundAreCasesOfOneCall) {
  FakeCommunicator nccl("nccl", true);
  CollectivesPlan p = plan({1024});
  p.dtypes = {CollectiveDtype::Fp32};
  p.placements = {Placement::OutOfPlace};
  RankGroups groups{{{0, 1}, {2, 3}, {0, 2}}, {{0, 1}, {2}}, GroupMode::Concurrent};
  const CollectiveSpace space(allReduce(), p, {&nccl}, groups, 4, {});
  EXPECT_EQ(namesOf(space),
            (std::vector<std::string>{"nccl fp32 1 KiB group 0,1", "nccl fp32 1 KiB group 2,3",
                                      "nccl fp32 1 KiB group 0,2"}));
  const auto calls = space.calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].size(), 2u);
  EXPECT_EQ(calls[1].size(), 1u);
  const CollectiveSpace::Case& last = space.cases().back();
  EXPECT_EQ(last.round, 1u);
  EXPECT_EQ(last.group, 0u);  // the first group of its round
  EXPECT_EQ(last.ranks, 2);
  EXPECT_EQ(last.fields.group, (CaseGroup{{0, 2}, 2, GroupMode::Concurrent}));
  EXPECT_EQ(last.fields.count, 256u);
}

const CollectiveDescriptor& named(std::string_view name) {
  const CollectiveDescriptor* collective = findCollective(name);
  if (collective == nullptr) throw std::logic_error("no collective " + std::string(name));
  return *collective;
}

TEST(CollectiveSpace, WhyNotSaysWhatEachSkipSays) {
  FakeCommunicator nccl("nccl", true, 300);
  // 8 B: 2 fp32 elements, none per rank of four; bf16 8 B: one each, but nccl here has no bf16.
  const CollectiveSpace scatter(named("reduce_scatter"), plan({8, 1024}), {&nccl}, {}, 4, {});
  const auto skip = [&](std::size_t i) { return scatter.whyNot(scatter.cases()[i]); };
  EXPECT_EQ(skip(0)->reason, "too small for one element per rank");
  EXPECT_FALSE(skip(0)->beyond_limit);
  EXPECT_EQ(skip(1), std::nullopt);
  EXPECT_EQ(skip(4)->reason, "nccl has no bf16");
  EXPECT_FALSE(skip(4)->beyond_limit);

  const CollectiveSpace alltoall(named("alltoall"), plan({1024}), {&nccl}, {}, 4, {});
  const auto in_place = alltoall.whyNot(alltoall.cases()[1]);
  EXPECT_EQ(in_place->reason, std::string(named("alltoall").in_place_refusal));
  EXPECT_FALSE(in_place->beyond_limit);

  // 2 KiB of fp32: 512 elements in one allreduce call, past the 300 nccl counts here.
  const MemoryBudget small{2000, std::nullopt};
  const CollectiveSpace allreduce(allReduce(), plan({1024, 2048}), {&nccl}, {}, 4, small);
  const auto beyond = allreduce.whyNot(allreduce.cases()[1]);
  EXPECT_EQ(beyond->reason, "512 elements per call, more than nccl counts in one call (300)");
  EXPECT_TRUE(beyond->beyond_limit);
  // Out of place, 1 KiB in and 1 KiB out on the device: past 0.9 x 2000 B; in place, 1 KiB fits.
  const auto out_of_place = allreduce.whyNot(allreduce.cases()[0]);
  EXPECT_EQ(out_of_place->reason, "buffers " + *small.shortfall({2048, 0}));
  EXPECT_TRUE(out_of_place->beyond_limit);
  EXPECT_EQ(allreduce.whyNot(allreduce.cases()[2]), std::nullopt);
}

// A hypercube pairs ranks that differ in one bit: three ranks, or a group of three, skip it,
// naming the count; nothing in the way of a larger case, so the suite is not refused.
TEST(CollectiveSpace, ARankCountTheCollectiveCannotRunOnSkipsItsCases) {
  FakeCommunicator nccl("nccl", true);
  CollectivesPlan p = plan({1024});
  p.dtypes = {CollectiveDtype::Fp32};
  const CollectiveSpace three(named("hypercube"), p, {&nccl}, {}, 3, {});
  for (const CollectiveSpace::Case& c : three.cases()) {
    const auto skip = three.whyNot(c);
    ASSERT_TRUE(skip);
    EXPECT_EQ(skip->reason, "a hypercube needs a power-of-two number of ranks (3 ranks)");
    EXPECT_FALSE(skip->beyond_limit);
  }
  EXPECT_EQ(three.refusal(), std::nullopt);
  const CollectiveSpace four(named("hypercube"), p, {&nccl}, {}, 4, {});
  EXPECT_EQ(four.whyNot(four.cases()[0]), std::nullopt);
  // The in-place case too: the send block already sits at the rank's offset.
  EXPECT_EQ(four.whyNot(four.cases()[1]), std::nullopt);
  RankGroups groups{{{0, 1}, {1, 2, 3}}, {{0}, {1}}, GroupMode::Concurrent};
  p.placements = {Placement::OutOfPlace};
  const CollectiveSpace grouped(named("hypercube"), p, {&nccl}, groups, 4, {});
  EXPECT_EQ(grouped.whyNot(grouped.cases()[0]), std::nullopt);
  EXPECT_EQ(grouped.whyNot(grouped.cases()[1])->reason,
            "a hypercube needs a power-of-two number of ranks (3 ranks)");
}

TEST(CollectiveSpace, RefusedOnlyWhereEveryCaseIsSkippedAndOneIsBeyondALimit) {
  FakeCommunicator mpi("mpi", false, 100);
  // Every case beyond mpi's count or without bf16: refused, naming the first beyond a limit.
  const CollectiveSpace beyond(allReduce(), plan({1024}), {&mpi}, {}, 2, {});
  EXPECT_EQ(beyond.refusal(),
            "--bytes: no allreduce case fits on these ranks; mpi fp32 1 KiB: 256 elements per "
            "call, more than mpi counts in one call (100)");
  // One case within the limits: the others are skipped as the run goes.
  const CollectiveSpace one_fits(allReduce(), plan({8, 1024}), {&mpi}, {}, 2, {});
  EXPECT_EQ(one_fits.refusal(), std::nullopt);
  // Nothing beyond a limit, every case skipped all the same: each skip says why.
  CollectivesPlan tiny = plan({8});
  tiny.dtypes = {CollectiveDtype::Bf16};
  const CollectiveSpace none_runs(allReduce(), tiny, {&mpi}, {}, 2, {});
  EXPECT_EQ(none_runs.refusal(), std::nullopt);
}

}  // namespace
}  // namespace splitstep
