#include "collect/SampleCodec.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

TEST(SampleCodec, SamplesSurviveTheRoundTrip) {
  Sample s;
  s.suite = "matmul";
  s.case_name = "bf16 n=8192";
  s.series = "mm";
  s.clock = "device (CUDA events)";
  s.params = {{"dtype", "bf16"}, {"n", "8192"}};
  s.rates = {{"TFLOP/s", 2.0 * 8192 * 8192 * 8192, 1e12}};
  s.checks = {{"sum", 10, 1}};
  s.notes = {"a note"};
  s.values = {1.368e-3, 1.369e-3};

  const std::vector<Sample> decoded = decodeSamples(encodeSamples({s, s}));
  ASSERT_EQ(decoded.size(), 2u);
  const Sample& d = decoded[1];
  EXPECT_EQ(d.suite, s.suite);
  EXPECT_EQ(d.case_name, s.case_name);
  EXPECT_EQ(d.series, s.series);
  EXPECT_EQ(d.clock, s.clock);
  EXPECT_EQ(d.params, s.params);
  ASSERT_EQ(d.rates.size(), 1u);
  EXPECT_EQ(d.rates[0].name, "TFLOP/s");
  EXPECT_DOUBLE_EQ(d.rates[0].amount_per_loop, s.rates[0].amount_per_loop);
  EXPECT_EQ(d.checks[0].wrong, 1u);
  EXPECT_EQ(d.notes, s.notes);
  EXPECT_EQ(d.values, s.values);
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
}

}  // namespace
}  // namespace splitstep
