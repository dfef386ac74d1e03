#include "derived/CollectiveModel.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace splitstep {
namespace {

constexpr double kAlpha = 8e-6;           // 8 us
constexpr double kBeta = 1.0 / 300e9;     // 300 GB/s
constexpr double kSmallAlpha = 5e-6;      // a second protocol: lower latency,
constexpr double kSmallBeta = 1.0 / 5e9;  // far lower bandwidth

// nccl-tests' sweep 8 B .. 1 GiB in steps of `factor`.
std::vector<double> sweep(double factor) {
  std::vector<double> sizes;
  for (double b = 8; b <= double(1ull << 30); b *= factor) sizes.push_back(b);
  return sizes;
}

// Deterministic noise: +-`amplitude`, relative, from a linear congruential generator.
class Noise {
 public:
  explicit Noise(double amplitude) : amplitude_(amplitude) {}
  double operator()() {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    const double unit = static_cast<double>(state_ >> 11) / double(1ull << 53);  // [0, 1)
    return 1 + amplitude_ * (2 * unit - 1);
  }

 private:
  double amplitude_;
  std::uint64_t state_ = 12345;
};

std::vector<TimedSize> line(double alpha, double beta, const std::vector<double>& sizes,
                            Noise noise) {
  std::vector<TimedSize> points;
  for (double b : sizes) points.push_back({b, (alpha + beta * b) * noise()});
  return points;
}

TEST(CollectiveModel, RecoversAlphaAndBetaOfExactTimings) {
  const LatencyBandwidthModel m = fitLatencyBandwidth(line(kAlpha, kBeta, sweep(4), Noise(0)));
  ASSERT_EQ(m.segments.size(), 1u);
  EXPECT_NEAR(m.segments[0].alpha / kAlpha, 1, 1e-9);
  EXPECT_NEAR(m.segments[0].beta / kBeta, 1, 1e-9);
  EXPECT_NEAR(m.r2, 1, 1e-12);
  EXPECT_EQ(m.outside, 0u);
  EXPECT_EQ(m.valid_from, 8);
  EXPECT_EQ(m.valid_to, m.points.back().bytes);
}

TEST(CollectiveModel, RecoversAlphaAndBetaWithin2PercentDespiteNoiseAndOutliers) {
  std::vector<TimedSize> points = line(kAlpha, kBeta, sweep(2), Noise(0.01));
  // A stalled sample in the latency regime and one in the bandwidth regime.
  points[3].seconds *= 3;
  points[22].seconds *= 1.5;
  const LatencyBandwidthModel m = fitLatencyBandwidth(points);
  ASSERT_EQ(m.segments.size(), 1u);  // outliers are not protocol changes
  EXPECT_NEAR(m.segments[0].alpha / kAlpha, 1, 0.02);
  EXPECT_NEAR(m.segments[0].beta / kBeta, 1, 0.02);
  EXPECT_EQ(m.outside, 2u);
  EXPECT_NEAR(m.residuals[3], 2.0 / 3, 0.02);  // (3t - t) / 3t
  // The longest run within the tolerance lies between the outliers.
  EXPECT_EQ(m.valid_from, points[4].bytes);
  EXPECT_EQ(m.valid_to, points[21].bytes);
  EXPECT_GT(m.r2, 0.95);
  EXPECT_LT(m.rms_residual, 0.2);
}

TEST(CollectiveModel, FindsTheBreakpointOfTwoProtocols) {
  // Up to 64 KiB one protocol, above it another: two lines that cross near 15 KiB, so the
  // switch at 64 KiB is a jump in time, as NCCL's protocol changes are.
  std::vector<TimedSize> points;
  Noise noise(0.005);
  for (double b : sweep(2)) {
    const bool small = b <= 65536;
    points.push_back(
        {b, ((small ? kSmallAlpha : kAlpha) + (small ? kSmallBeta : kBeta) * b) * noise()});
  }
  const LatencyBandwidthModel m = fitLatencyBandwidth(points);
  ASSERT_EQ(m.segments.size(), 2u);
  EXPECT_EQ(m.points[m.segments[0].last].bytes, 65536);
  EXPECT_EQ(m.points[m.segments[1].first].bytes, 131072);
  EXPECT_NEAR(m.segments[0].alpha / kSmallAlpha, 1, 0.02);
  EXPECT_NEAR(m.segments[0].beta / kSmallBeta, 1, 0.02);
  EXPECT_NEAR(m.segments[1].alpha / kAlpha, 1, 0.02);
  EXPECT_NEAR(m.segments[1].beta / kBeta, 1, 0.02);
  EXPECT_EQ(m.outside, 0u);
  EXPECT_EQ(m.valid_from, 8);
  // Each size is predicted by the segment that holds it.
  EXPECT_EQ(&m.segmentFor(1024), &m.segments[0]);
  EXPECT_EQ(&m.segmentFor(1 << 20), &m.segments[1]);
  EXPECT_EQ(&m.segmentFor(1e12), &m.segments[1]);
  EXPECT_EQ(&m.segmentFor(1), &m.segments[0]);
}

TEST(CollectiveModel, ACurveThatNoLineFitsIsReportedOutsideTheTolerance) {
  // Time growing with the square of the size: no piecewise line of three pieces holds within
  // 5% everywhere, and the model says where it does not.
  std::vector<TimedSize> points;
  for (double b : sweep(2)) points.push_back({b, 1e-6 + 1e-21 * b * b});
  const LatencyBandwidthModel m = fitLatencyBandwidth(points);
  EXPECT_LE(m.segments.size(), kMaxSegments);
  EXPECT_GT(m.outside, 0u);
  EXPECT_GT(m.largest_residual, kModelTolerance);
  EXPECT_LT(m.valid_to, m.points.back().bytes);
}

TEST(CollectiveModel, KeepsLatencyAndBandwidthNonNegative) {
  // Times that fall with size, and times that would need a negative latency.
  const LineFit falling = fitLine(std::vector<TimedSize>{{8, 3e-6}, {64, 2e-6}, {512, 1e-6}});
  EXPECT_EQ(falling.beta, 0);
  EXPECT_GT(falling.alpha, 0);
  const LineFit steep = fitLine(std::vector<TimedSize>{{1e6, 1e-6}, {2e6, 3e-6}, {4e6, 7e-6}});
  EXPECT_EQ(steep.alpha, 0);
  EXPECT_GT(steep.beta, 0);
}

TEST(CollectiveModel, RefusesTooFewSizesOrNonPositiveTimes) {
  EXPECT_THROW(fitLatencyBandwidth({{8, 1e-6}, {16, 1e-6}}), std::invalid_argument);
  EXPECT_THROW(fitLatencyBandwidth({{8, 1e-6}, {16, 0}, {32, 1e-6}}), std::invalid_argument);
  EXPECT_THROW(fitLatencyBandwidth({{8, 1e-6}, {8, 2e-6}, {8, 3e-6}}), std::invalid_argument);
}

// Allreduce's algorithms as comm/collectives/AllReduce.cpp declares them.
const AlgorithmCost kRing{"ring", [](double n) { return 2 * (n - 1); },
                          [](double n) { return 2 * (n - 1) / n; }};
const AlgorithmCost kTree{"tree", [](double n) { return 2 * std::ceil(std::log2(n)); },
                          [](double) { return 2.0; }};

TEST(CollectiveModel, DerivesTheLinkFromAFitAtTheMeasuredRankCount) {
  // Two ranks: a ring allreduce takes 2 alpha + bytes x beta.
  const LatencyBandwidthModel m = fitLatencyBandwidth(line(10e-6, 1.0 / 300e9, sweep(4), Noise(0)));
  const auto link = linkCostOf(m, 1 << 20, kRing, 2);
  ASSERT_TRUE(link.has_value());
  EXPECT_NEAR(link->alpha / 5e-6, 1, 1e-9);
  EXPECT_NEAR(link->beta * 300e9, 1, 1e-9);
  EXPECT_NEAR(link->overhead, 0, 1e-15);
  // At the measured rank count the projection gives back the model.
  EXPECT_NEAR(algorithmTime(kRing, *link, 2, 1 << 20) / m.predict(1 << 20), 1, 1e-9);
  // Eight ranks: 14 alpha + 2 x 7/8 x bytes x beta.
  EXPECT_NEAR(algorithmTime(kRing, *link, 8, 1e9) / (14 * 5e-6 + 1.75 * 1e9 / 300e9), 1, 1e-9);
  // One rank holds no link.
  EXPECT_FALSE(linkCostOf(m, 1 << 20, kRing, 1).has_value());
}

TEST(CollectiveModel, TakesTheLatencyFromTheFirstSegmentAndTheBandwidthFromTheSizes) {
  // Small sizes: 4 us latency; large ones: a 40 us intercept at 300 GB/s.
  std::vector<TimedSize> points;
  for (double b : sweep(2)) {
    points.push_back({b, b <= 65536 ? 4e-6 + b / 5e9 : 40e-6 + b / 300e9});
  }
  const LatencyBandwidthModel m = fitLatencyBandwidth(points);
  ASSERT_EQ(m.segments.size(), 2u);
  const auto link = linkCostOf(m, 1 << 28, kRing, 2);
  ASSERT_TRUE(link.has_value());
  EXPECT_NEAR(link->alpha / 2e-6, 1, 1e-6);      // 4 us over the ring's 2 steps
  EXPECT_NEAR(link->beta * 300e9, 1, 1e-6);      // the large sizes' bandwidth
  EXPECT_NEAR(link->overhead / 36e-6, 1, 1e-6);  // 40 us - 4 us, per call
  EXPECT_NEAR(algorithmTime(kRing, *link, 2, 1 << 28) / m.predict(1 << 28), 1, 1e-9);
  // 64 ranks: the latency grows with the ring's 126 steps, the overhead does not.
  EXPECT_NEAR(algorithmTime(kRing, *link, 64, 1 << 28) /
                  (126 * 2e-6 + 36e-6 + 2 * 63.0 / 64 * (1 << 28) / 300e9),
              1, 1e-6);
}

TEST(CollectiveModel, TheTreeWinsSmallMessagesOnManyRanksAndTheRingLargeOnes) {
  const LinkCost link{5e-6, 1.0 / 300e9, 0};
  const AlgorithmCost both[] = {kRing, kTree};
  const ProjectedTime small = fastestAlgorithm(both, link, 1024, 8);
  EXPECT_EQ(small.algorithm->name, "tree");
  EXPECT_DOUBLE_EQ(small.seconds, 20 * 5e-6 + 2 * 8 / 300e9);
  EXPECT_EQ(small.runner_up->name, "ring");
  EXPECT_DOUBLE_EQ(small.runner_up_seconds, algorithmTime(kRing, link, 1024, 8));
  const ProjectedTime large = fastestAlgorithm(both, link, 8, 1e9);
  EXPECT_EQ(large.algorithm->name, "ring");
  const AlgorithmCost ring_only[] = {kRing};
  EXPECT_EQ(fastestAlgorithm(ring_only, link, 8, 1e9).runner_up, nullptr);
}

TEST(CollectiveModel, AcrossNodesTheSlowerLinkBoundsTheCollective) {
  const LinkCost nvlink{2e-6, 1.0 / 360e9, 1e-6};
  const ClusterShape shape{8, {5e-6, 1.0 / 50e9, 0}};
  const LinkCost within = boundingLink(nvlink, shape, 8);
  EXPECT_EQ(within.alpha, nvlink.alpha);
  EXPECT_EQ(within.beta, nvlink.beta);
  const LinkCost across = boundingLink(nvlink, shape, 16);
  EXPECT_EQ(across.alpha, 5e-6);
  EXPECT_EQ(across.beta, 1.0 / 50e9);
  EXPECT_EQ(across.overhead, 1e-6);
  // A network faster than the measured link bounds nothing.
  const LinkCost fast = boundingLink(nvlink, {8, {1e-6, 1.0 / 400e9, 0}}, 64);
  EXPECT_EQ(fast.alpha, 2e-6);
  EXPECT_EQ(fast.beta, nvlink.beta);
}

}  // namespace
}  // namespace splitstep
