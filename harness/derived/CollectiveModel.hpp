// The latency-bandwidth model of a collective, fitted to one sweep over message sizes, and its
// projection to other rank counts with the algorithms' cost formulas. Pure functions of numbers:
// docs/metrics.md ("Latency-bandwidth model", "Projection") defines every figure.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "common/AlgorithmCost.hpp"

namespace splitstep {

// A point of the sweep: the bytes of one call and its time.
struct TimedSize {
  double bytes = 0;
  double seconds = 0;
};

// seconds = alpha + beta x bytes, fitted to the points first..last (indices into the model's
// sorted points).
struct LineFit {
  double alpha = 0;  // seconds: the time of an empty call
  double beta = 0;   // seconds per byte: 1 / the bandwidth at large sizes
  std::size_t first = 0;
  std::size_t last = 0;

  double predict(double bytes) const { return alpha + beta * bytes; }
};

// A point is explained by the model when its time is within this fraction of the model's.
inline constexpr double kModelTolerance = 0.05;
// Protocol changes make the times piecewise linear: at most this many pieces, each fitted to at
// least kMinSegmentPoints sizes (two parameters and one size to test them).
inline constexpr std::size_t kMaxSegments = 3;
inline constexpr std::size_t kMinSegmentPoints = 3;

struct LatencyBandwidthModel {
  std::vector<TimedSize> points;  // by size
  std::vector<LineFit> segments;  // by size, covering every point once
  std::vector<double> residuals;  // per point: (measured - model) / measured
  double r2 = 0;                  // of log(time): the share of its variance the model explains
  double rms_residual = 0;        // root mean square of the residuals
  double largest_residual = 0;    // in magnitude
  std::size_t outside = 0;        // points whose residual exceeds kModelTolerance
  // The longest run of consecutive sizes within kModelTolerance; both 0 when there is none.
  double valid_from = 0;
  double valid_to = 0;

  // The segment whose sizes hold `bytes`: the first below the first size, the last above it.
  const LineFit& segmentFor(double bytes) const;
  double predict(double bytes) const { return segmentFor(bytes).predict(bytes); }
};

// Robust regression of time on bytes: least squares of relative residuals (times span five
// decades; each size counts alike), reweighted by Huber's rule against outliers. alpha and beta
// are kept non-negative. Needs two points of different sizes.
LineFit fitLine(std::span<const TimedSize> points);

// One line, then more while splitting a piece in two brings at least two more sizes within
// kModelTolerance (an isolated outlier never does), up to kMaxSegments. Needs
// kMinSegmentPoints points of positive time; throws std::invalid_argument otherwise.
LatencyBandwidthModel fitLatencyBandwidth(std::vector<TimedSize> points);

// One link's cost: a message's latency and a byte's time, and a cost of each call that does not
// grow with the rank count.
struct LinkCost {
  double alpha = 0;
  double beta = 0;
  double overhead = 0;
};

// The link a model fitted at `ranks` ranks implies for calls of `bytes`, were the collective run
// with `algorithm` there: the latency from the first segment (the smallest sizes, where latency
// dominates), the bandwidth from the segment that holds `bytes`, and that segment's intercept
// beyond the latency as the per-call overhead (above the first segment the intercept is no
// latency: bandwidth still grows with size there). At `ranks` the link gives back the model.
// Empty for one rank, where no data crosses a link.
std::optional<LinkCost> linkCostOf(const LatencyBandwidthModel& model, double bytes,
                                   const AlgorithmCost& algorithm, int ranks);

// The time of `bytes` by `algorithm` on `ranks` ranks over `link`.
double algorithmTime(const AlgorithmCost& algorithm, const LinkCost& link, int ranks, double bytes);

// Where the ranks sit: nodes of `gpus_per_node` ranks; a collective over more ranks than one node
// holds crosses the network, whose link is the slowest in its path.
struct ClusterShape {
  int gpus_per_node = 8;
  LinkCost network;  // its overhead is not used
};

// The link that bounds a collective on `ranks` ranks: the measured one within a node; across
// nodes the slower of it and the network, in latency and in bandwidth each (the measured
// per-call overhead stays).
LinkCost boundingLink(const LinkCost& measured, const ClusterShape& shape, int ranks);

struct ProjectedTime {
  const AlgorithmCost* algorithm = nullptr;  // the fastest
  double seconds = 0;
  const AlgorithmCost* runner_up = nullptr;  // the next fastest; nullptr when there is one only
  double runner_up_seconds = 0;
};

// The fastest of `algorithms` (at least one) for `bytes` on `ranks` ranks over `link`.
ProjectedTime fastestAlgorithm(std::span<const AlgorithmCost> algorithms, const LinkCost& link,
                               int ranks, double bytes);

}  // namespace splitstep
