// splitstep's NCCL profiler plugin, loaded as NCCL loads it (dlopen, then its ncclProfiler_v5)
// and driven through NCCL's entry points with the descriptors NCCL 2.28 fills in
// (src/plugin/profiler.cc), then read back through NcclCallReader as the harness reads it.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/types.h>

#include <cstdlib>
#include <string>

#include "comm/NcclCallReader.hpp"
// clang-format off
#include "comm/profiler/nccl/err.h"
#include "comm/profiler/nccl/profiler.h"
// clang-format on

namespace splitstep {
namespace {

void ignoreLog(ncclDebugLogLevel, unsigned long, const char*, int, const char*, ...) {}

class NcclProfilerPlugin : public ::testing::Test {
 protected:
  void SetUp() override {
    handle_ = dlopen(SPLITSTEP_NCCL_PROFILER, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle_, nullptr) << dlerror();
    plugin_ = static_cast<ncclProfiler_v5_t*>(dlsym(handle_, "ncclProfiler_v5"));
    ASSERT_NE(plugin_, nullptr);
    // NCCL's call at communicator creation: commHash, name, nodes, ranks, rank, its logger.
    ASSERT_EQ(plugin_->init(&context_, 0x5eedULL, &mask_, "world", 1, 2, 0, ignoreLog),
              ncclSuccess);
    reader_ = NcclCallReader::ofLoaded(SPLITSTEP_NCCL_PROFILER);
    ASSERT_NE(reader_, nullptr);
  }
  void TearDown() override {
    if (plugin_ != nullptr) {
      EXPECT_EQ(plugin_->finalize(context_), ncclSuccess);
    }
    reader_.reset();
    if (handle_ != nullptr) dlclose(handle_);
  }

  // An event NCCL starts, with the handle variable NCCL passes still holding an old value.
  void* start(ncclProfilerEventDescr_v5_t descr) {
    void* handle = &descr;
    EXPECT_EQ(plugin_->startEvent(context_, &handle, &descr), ncclSuccess);
    return handle;
  }

  // What NCCL starts for one ncclAllReduce: the group API, collective API and group events,
  // then the collective (ncclProfilerStartTaskEvents), each with its parent.
  void allReduce(const char* algo, const char* proto, std::uint8_t channels) {
    ncclProfilerEventDescr_v5_t group_api{};
    group_api.type = ncclProfileGroupApi;
    group_api.groupApi.groupDepth = 1;
    EXPECT_EQ(start(group_api), nullptr);
    ncclProfilerEventDescr_v5_t coll_api{};
    coll_api.type = ncclProfileCollApi;
    coll_api.collApi.func = "AllReduce";
    coll_api.collApi.count = 1024;
    coll_api.collApi.datatype = "ncclFloat32";
    EXPECT_EQ(start(coll_api), nullptr);
    ncclProfilerEventDescr_v5_t group{};
    group.type = ncclProfileGroup;
    EXPECT_EQ(start(group), nullptr);
    ncclProfilerEventDescr_v5_t coll{};
    coll.type = ncclProfileColl;
    coll.rank = 0;
    coll.coll.seqNumber = 7;
    coll.coll.func = "AllReduce";
    coll.coll.count = 1024;
    coll.coll.datatype = "ncclFloat32";
    coll.coll.nChannels = channels;
    coll.coll.nWarps = 16;
    coll.coll.algo = algo;
    coll.coll.proto = proto;
    EXPECT_EQ(start(coll), nullptr);
  }

  void* handle_ = nullptr;
  ncclProfiler_v5_t* plugin_ = nullptr;
  void* context_ = nullptr;
  int mask_ = 0;
  std::shared_ptr<const NcclCallReader> reader_;
};

TEST_F(NcclProfilerPlugin, AsksForTheCollectiveEventsAlone) {
  EXPECT_NE(context_, nullptr);
  EXPECT_EQ(mask_, ncclProfileColl);
  EXPECT_EQ(std::string(plugin_->name), "splitstep");
}

TEST_F(NcclProfilerPlugin, KeepsWhatNcclChoseForEachCollective) {
  const std::uint64_t before = reader_->recorded();
  allReduce("RING", "SIMPLE", 24);
  allReduce("NVLS", "LL128", 16);
  ASSERT_EQ(reader_->recorded(), before + 2);
  const std::vector<AlgorithmChoice> expected = {{"RING", "SIMPLE", 24}, {"NVLS", "LL128", 16}};
  EXPECT_EQ(reader_->since(before), expected);
  EXPECT_EQ(reader_->since(before + 1), std::vector<AlgorithmChoice>{expected[1]});
  EXPECT_TRUE(reader_->since(before + 2).empty());
}

TEST_F(NcclProfilerPlugin, StopAndStateCallsChangeNothing) {
  // NCCL makes them only for a handle it was given; the plugin returns none.
  const std::uint64_t before = reader_->recorded();
  EXPECT_EQ(plugin_->stopEvent(nullptr), ncclSuccess);
  EXPECT_EQ(plugin_->recordEventState(nullptr, ncclProfilerEndGroupApiStart, nullptr), ncclSuccess);
  EXPECT_EQ(reader_->recorded(), before);
}

TEST_F(NcclProfilerPlugin, HoldsTheLastCallsOnly) {
  const std::uint64_t before = reader_->recorded();
  const std::size_t extra = 5;
  for (std::size_t i = 0; i < kSplitstepNcclCallsHeld + extra; ++i) {
    allReduce("TREE", "LL", static_cast<std::uint8_t>(i % 200));
  }
  const std::vector<AlgorithmChoice> held = reader_->since(before);
  ASSERT_EQ(held.size(), kSplitstepNcclCallsHeld);
  EXPECT_EQ(held.front().channels, static_cast<std::int64_t>(extra % 200));
  EXPECT_EQ(held.back().channels,
            static_cast<std::int64_t>((kSplitstepNcclCallsHeld + extra - 1) % 200));
}

TEST_F(NcclProfilerPlugin, CutsNamesLongerThanItsFields) {
  const std::uint64_t before = reader_->recorded();
  allReduce("AN_ALGORITHM_NAME_OF_FORTY_CHARACTERS_XX", nullptr, 1);
  const std::vector<AlgorithmChoice> calls = reader_->since(before);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].algorithm, "AN_ALGORITHM_NAME_OF_FO");
  EXPECT_EQ(calls[0].protocol, "");
}

TEST(NcclCallReader, FindsNoPluginThatIsNotLoaded) {
  EXPECT_EQ(NcclCallReader::ofLoaded("/nonexistent/libnccl-profiler-splitstep.so"), nullptr);
  // Loaded, but not the plugin: it has no readers.
  EXPECT_EQ(NcclCallReader::ofLoaded("libc.so.6"), nullptr);
}

TEST(NcclCallReader, CountsChoicesTheMostFrequentFirst) {
  const AlgorithmChoice ring{"RING", "SIMPLE", 24};
  const AlgorithmChoice tree{"TREE", "LL", 24};
  const AlgorithmChoice ring_ll{"RING", "LL", 24};
  EXPECT_TRUE(countChoices({}).empty());
  const std::vector<ChoiceCount> expected = {{tree, 2}, {ring, 1}, {ring_ll, 1}};
  EXPECT_EQ(countChoices({ring, tree, ring_ll, tree}), expected);
}

// The environment NCCL reads, set and put back around each test.
class NcclProfilerRequest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* set = std::getenv("NCCL_PROFILER_PLUGIN")) saved_ = set;
    unsetenv("NCCL_PROFILER_PLUGIN");
  }
  void TearDown() override {
    if (saved_) {
      setenv("NCCL_PROFILER_PLUGIN", saved_->c_str(), 1);
    } else {
      unsetenv("NCCL_PROFILER_PLUGIN");
    }
  }
  static std::string current() {
    const char* set = std::getenv("NCCL_PROFILER_PLUGIN");
    return set ? set : "(unset)";
  }
  std::optional<std::string> saved_;
};

TEST_F(NcclProfilerRequest, NamesThePluginToNccl) {
  EXPECT_EQ(requestNcclProfiler(SPLITSTEP_NCCL_PROFILER), std::nullopt);
  EXPECT_EQ(current(), SPLITSTEP_NCCL_PROFILER);
  // Asked again (a second run in one process), it stays.
  EXPECT_EQ(requestNcclProfiler(SPLITSTEP_NCCL_PROFILER), std::nullopt);
}

TEST_F(NcclProfilerRequest, LeavesTheUsersOwnProfiler) {
  setenv("NCCL_PROFILER_PLUGIN", "inspector", 1);
  EXPECT_EQ(requestNcclProfiler(SPLITSTEP_NCCL_PROFILER),
            "NCCL's algorithms are not shown: NCCL_PROFILER_PLUGIN names another plugin "
            "(inspector)");
  EXPECT_EQ(current(), "inspector");
}

TEST_F(NcclProfilerRequest, SaysWhereThePluginIsMissing) {
  EXPECT_EQ(requestNcclProfiler("/nonexistent/libnccl-profiler-splitstep.so"),
            "NCCL's algorithms are not shown: its profiler plugin "
            "/nonexistent/libnccl-profiler-splitstep.so is missing");
  EXPECT_EQ(current(), "(unset)");
}

}  // namespace
}  // namespace splitstep
