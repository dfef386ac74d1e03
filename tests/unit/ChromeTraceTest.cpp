#include "report/ChromeTrace.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace splitstep {
namespace {

std::vector<RankInfo> twoRanks() {
  return {{0, "nodeA", 0, "cuda:0", "NVIDIA H200"}, {1, "nodeB", 0, "cuda:0", "NVIDIA H200"}};
}

// Rank r's step: a case on the host, a sample with two phases on the working stream, a bucket
// on the communication stream, and two telemetry readings; rank 1 starts 1 ms later.
RankTimeline stepTimeline(int rank) {
  const double t = 100 + 1e-3 * rank;
  RankTimeline timeline;
  const std::string label = "step mlp bf16 overlap";
  timeline.spans = {
      {Track::Host, "case", label, label, {t, t + 0.1}},
      {Track::Host, "measure", "samples", label, {t + 0.01, t + 0.09}},
      {Track::Work, "sample", label, label, {t + 0.02, t + 0.07}},
      {Track::Work, "phase", "forward", label, {t + 0.021, t + 0.03}},
      {Track::Work, "phase", "backward", label, {t + 0.03, t + 0.06}},
      {Track::Comm, "collective", "allreduce bucket 0 (1 MiB)", label, {t + 0.04, t + 0.05}}};
  TelemetryReading first;
  first.time = t + 0.03;
  first.set(TelemetryQuantity::SmClock, 1500);
  first.set(TelemetryQuantity::Power, 690);
  first.clock_limits = 0x4;  // power cap
  TelemetryReading second = first;
  second.time = t + 0.05;
  second.clock_limits = 0;
  timeline.readings = {first, second};
  timeline.clock_offset = rank == 0 ? 0 : 12.5;
  timeline.clock_uncertainty = rank == 0 ? 0 : 3e-6;
  return timeline;
}

nlohmann::json twoRankTrace() {
  // Written and read back as a file would be: what a viewer parses.
  const nlohmann::json trace =
      chromeTrace(twoRanks(), {stepTimeline(0), stepTimeline(1)}, "splitstep step --trace t.json");
  return nlohmann::json::parse(trace.dump());
}

TEST(ChromeTrace, EveryEventHasTheFieldsViewersNeed) {
  const nlohmann::json trace = twoRankTrace();
  ASSERT_TRUE(trace.contains("traceEvents"));
  ASSERT_TRUE(trace["traceEvents"].is_array());
  ASSERT_FALSE(trace["traceEvents"].empty());
  for (const nlohmann::json& event : trace["traceEvents"]) {
    for (const char* field : {"ph", "ts", "pid", "tid", "name"}) {
      EXPECT_TRUE(event.contains(field)) << field << " missing in " << event.dump();
    }
    const std::string ph = event["ph"];
    EXPECT_TRUE(ph == "X" || ph == "C" || ph == "M") << ph;
    EXPECT_GE(event["ts"].get<double>(), 0) << event.dump();
    if (ph == "X") {
      EXPECT_GE(event["dur"].get<double>(), 0) << event.dump();
    }
    if (ph == "C") {
      EXPECT_TRUE(event["args"].is_object()) << event.dump();
    }
  }
}

TEST(ChromeTrace, MetadataNamesAProcessPerRankAndAThreadPerTrack) {
  const nlohmann::json trace = twoRankTrace();
  std::map<int, std::string> processes;
  std::set<std::pair<int, std::string>> threads;
  std::set<std::pair<int, int>> used;  // (pid, tid) of the spans
  for (const nlohmann::json& event : trace["traceEvents"]) {
    if (event["ph"] == "M" && event["name"] == "process_name") {
      processes[event["pid"]] = event["args"]["name"];
    } else if (event["ph"] == "M" && event["name"] == "thread_name") {
      threads.insert({event["pid"].get<int>(), event["args"]["name"].get<std::string>()});
    } else if (event["ph"] == "X") {
      used.insert({event["pid"].get<int>(), event["tid"].get<int>()});
    }
  }
  EXPECT_EQ(processes, (std::map<int, std::string>{{0, "rank 0 nodeA cuda:0 NVIDIA H200"},
                                                   {1, "rank 1 nodeB cuda:0 NVIDIA H200"}}));
  for (int pid : {0, 1}) {
    for (const char* track : {"host", "working stream", "communication stream"}) {
      EXPECT_TRUE(threads.count({pid, track})) << pid << " " << track;
    }
  }
  // The host, working stream and communication stream each hold spans on both ranks.
  EXPECT_EQ(used, (std::set<std::pair<int, int>>{{0, 1}, {0, 2}, {0, 3}, {1, 1}, {1, 2}, {1, 3}}));
}

TEST(ChromeTrace, TimesAreMicrosecondsFromTheEarliestEventOnOneClock) {
  const nlohmann::json trace = twoRankTrace();
  double earliest = 1e300;
  double rank1_case = -1;
  double rank1_backward = -1;
  double rank1_backward_dur = -1;
  for (const nlohmann::json& event : trace["traceEvents"]) {
    if (event["ph"] == "M") continue;
    earliest = std::min(earliest, event["ts"].get<double>());
    if (event["pid"] == 1 && event["name"] == "step mlp bf16 overlap" && event["tid"] == 1) {
      rank1_case = event["ts"];
    }
    if (event["pid"] == 1 && event["name"] == "backward") {
      rank1_backward = event["ts"];
      rank1_backward_dur = event["dur"];
      EXPECT_EQ(event["cat"], "phase");
      EXPECT_EQ(event["args"]["case"], "step mlp bf16 overlap");
    }
  }
  EXPECT_DOUBLE_EQ(earliest, 0);                    // rank 0's case
  EXPECT_NEAR(rank1_case, 1000, 1e-6);              // 1 ms later
  EXPECT_NEAR(rank1_backward, 1000 + 30000, 1e-6);  // 30 ms into it
  EXPECT_NEAR(rank1_backward_dur, 30000, 1e-6);
  const nlohmann::json& alignment = trace["otherData"]["clock_alignment"];
  ASSERT_EQ(alignment.size(), 2u);
  EXPECT_DOUBLE_EQ(alignment[1]["offset_s"].get<double>(), 12.5);
  EXPECT_DOUBLE_EQ(alignment[1]["uncertainty_s"].get<double>(), 3e-6);
  EXPECT_EQ(trace["otherData"]["schema"], kTraceSchema);
}

TEST(ChromeTrace, TelemetryReadingsAreCountersOfTheirRank) {
  const nlohmann::json trace = twoRankTrace();
  std::map<std::pair<int, std::string>, std::vector<nlohmann::json>> counters;
  for (const nlohmann::json& event : trace["traceEvents"]) {
    if (event["ph"] == "C") counters[{event["pid"], event["name"]}].push_back(event["args"]);
  }
  for (int pid : {0, 1}) {
    ASSERT_EQ((counters[{pid, "SM clock (MHz)"}].size()), 2u);
    EXPECT_EQ((counters[{pid, "SM clock (MHz)"}][0]["value"]), 1500);
    EXPECT_EQ((counters[{pid, "power (W)"}][1]["value"]), 690);
    // Only the limits seen in the run become series: here the power cap alone.
    const auto& limits = counters[{pid, "clock limited by"}];
    ASSERT_EQ(limits.size(), 2u);
    EXPECT_EQ(limits[0], (nlohmann::json{{"power cap", 1}}));
    EXPECT_EQ(limits[1], (nlohmann::json{{"power cap", 0}}));
  }
  EXPECT_EQ(counters.count({0, "temperature (C)"}), 0u);  // never read
}

TEST(ChromeTrace, OneTimelinePerRankIsRequired) {
  EXPECT_THROW(chromeTrace(twoRanks(), {stepTimeline(0)}, ""), std::invalid_argument);
}

}  // namespace
}  // namespace splitstep
