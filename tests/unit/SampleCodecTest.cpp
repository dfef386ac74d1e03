#include "collect/SampleCodec.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

TEST(SampleCodec, SamplesSurviveTheRoundTrip) {
  Sample s;
  s.suite = "matmul";
  s.case_name = "bf16 n=8192";
  s.series = "mm";
  s.part_of = "step";
  s.comparison = {"8192", "fp32", false};
  Measurement& m = s.measurement;
  m.clock = "device (CUDA events)";
  m.method = "queued start";
  m.host_values = {1e-5, 2e-5};
  m.cold = 0.04;
  m.cold_host = 0.03;
  m.loops = 7;
  m.timer_overhead = 2e-6;
  m.noise = 0.001;
  m.noise_target_met = true;
  m.stop_rule = StopRule::Converged;
  m.stop_reason = "estimate converged (median ±0.31% at 95%)";
  m.wall = {0.1, 0.02, 0.03, 0.5};
  m.clock_at_start = SmClock{1980, 1980, ""};
  m.notes = {"n"};
  // Every kind of field value: a string, an integer, a number and a list of integers.
  s.fields = {"step",
              {{"model", std::string("mlp")},
               {"batch", std::int64_t{64}},
               {"flop_per_step", 3.03e12},
               {"delay", 2.0},
               {"bucket_sizes", IntegerList{1048576, 268435456}}}};
  s.rates = {{"TFLOP/s", 2.0 * 8192 * 8192 * 8192, 1e12}};
  s.checks = {{"sum", 10, 1}};
  s.notes = {"a note"};
  m.values = {1.368e-3, 1.369e-3};

  const std::vector<Sample> decoded = decodeSamples(encodeSamples({s, s}));
  ASSERT_EQ(decoded.size(), 2u);
  const Sample& d = decoded[1];
  EXPECT_EQ(d.suite, s.suite);
  EXPECT_EQ(d.case_name, s.case_name);
  EXPECT_EQ(d.series, s.series);
  EXPECT_EQ(d.part_of, "step");
  EXPECT_EQ(d.comparison.group, "8192");
  EXPECT_FALSE(d.comparison.is_baseline);
  const Measurement& dm = d.measurement;
  EXPECT_EQ(dm.clock, m.clock);
  EXPECT_EQ(dm.method, m.method);
  EXPECT_EQ(dm.host_values, m.host_values);
  EXPECT_DOUBLE_EQ(dm.cold, 0.04);
  EXPECT_DOUBLE_EQ(dm.cold_host, 0.03);
  EXPECT_EQ(dm.loops, 7);
  EXPECT_DOUBLE_EQ(dm.timer_overhead, 2e-6);
  EXPECT_TRUE(dm.noise_target_met);
  EXPECT_EQ(dm.stop_rule, StopRule::Converged);
  EXPECT_EQ(dm.stop_reason, m.stop_reason);
  EXPECT_DOUBLE_EQ(dm.wall.cold_start, 0.1);
  EXPECT_DOUBLE_EQ(dm.wall.warm_up, 0.02);
  EXPECT_DOUBLE_EQ(dm.wall.prepare, 0.03);
  EXPECT_DOUBLE_EQ(dm.wall.sampling, 0.5);
  ASSERT_TRUE(dm.clock_at_start);
  EXPECT_EQ(dm.clock_at_start->current_mhz, 1980u);
  EXPECT_FALSE(dm.clock_at_end);
  EXPECT_EQ(dm.notes, m.notes);
  // Each value keeps its type: 2.0 stays a number, 64 an integer.
  EXPECT_EQ(d.fields, s.fields);
  ASSERT_NE(d.fields.get<double>("delay"), nullptr);
  ASSERT_NE(d.fields.get<std::int64_t>("batch"), nullptr);
  ASSERT_EQ(d.rates.size(), 1u);
  EXPECT_EQ(d.rates[0].name, "TFLOP/s");
  EXPECT_DOUBLE_EQ(d.rates[0].amount_per_loop, s.rates[0].amount_per_loop);
  EXPECT_EQ(d.checks[0].wrong, 1u);
  EXPECT_EQ(d.notes, s.notes);
  EXPECT_EQ(dm.values, m.values);
}

TEST(SampleCodec, RankInfoSurvivesTheRoundTrip) {
  const RankInfo info{3, "node7", 1, "cuda:1", "NVIDIA H200"};
  const RankInfo d = decodeRankInfo(encodeRankInfo(info));
  EXPECT_EQ(d.rank, 3);
  EXPECT_EQ(d.host, "node7");
  EXPECT_EQ(d.local_rank, 1);
  EXPECT_EQ(d.device, "cuda:1");
  EXPECT_EQ(d.device_name, "NVIDIA H200");
}

TEST(SampleCodec, MalformedPayloadThrows) {
  EXPECT_ANY_THROW(decodeSamples("[{\"suite\": 1}]"));
  EXPECT_ANY_THROW(decodeSamples("not json"));
  Sample s;
  nlohmann::json sample = s;
  sample["measurement"]["stop_rule"] = "whenever";
  EXPECT_ANY_THROW(decodeSamples(nlohmann::json::array({sample}).dump()));
}

TEST(SampleCodec, TelemetrySurvivesTheRoundTripAndIsNullWhereNoneWasRead) {
  Sample with;
  TelemetrySummary t;
  t.readings = 52;
  t.limit_readings = 50;
  t.ranges["sm_clock_mhz"] = {50, 1455, 1590, 1980};
  t.ranges["nvlink_tx_gbps"] = {49, 0, 120.5, 300};
  t.clock_limits = {{"power cap", 0.85}};
  with.telemetry = t;
  const Sample without;
  const nlohmann::json encoded = nlohmann::json::parse(encodeSamples({with, without}));
  EXPECT_EQ(encoded[0]["telemetry"]["sm_clock_mhz"]["mean"], 1590);
  EXPECT_TRUE(encoded[1]["telemetry"].is_null());
  const std::vector<Sample> decoded = decodeSamples(encoded.dump());
  ASSERT_TRUE(decoded[0].telemetry);
  const TelemetrySummary& d = *decoded[0].telemetry;
  EXPECT_EQ(d.readings, 52u);
  EXPECT_EQ(d.limit_readings, 50u);
  ASSERT_NE(d.range(TelemetryQuantity::NvlinkTx), nullptr);
  EXPECT_DOUBLE_EQ(d.range(TelemetryQuantity::NvlinkTx)->mean, 120.5);
  EXPECT_EQ(d.range(TelemetryQuantity::SmClock)->n, 50u);
  EXPECT_EQ(d.range(TelemetryQuantity::Power), nullptr);
  EXPECT_DOUBLE_EQ(d.limitShare("power cap"), 0.85);
  EXPECT_FALSE(decoded[1].telemetry);
}

}  // namespace
}  // namespace splitstep
