#include "derived/CollectiveModel.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "stats/Statistics.hpp"

namespace splitstep {
namespace {

// Huber's constant: 95% efficiency under normal errors (Huber 1981).
constexpr double kHuber = 1.345;
// The median absolute deviation times this estimates the standard deviation of normal errors.
constexpr double kMadToSigma = 1.4826;
// Reweighting stops when no weight moves more than this, or after kMaxIterations.
constexpr double kWeightChange = 1e-9;
constexpr int kMaxIterations = 100;
// A scale below this is no spread at all (exact data): residuals are then compared with it.
constexpr double kSmallestScale = 1e-12;

// Weighted least squares of y on x with alpha, beta >= 0, about the weighted means (x spans
// nine decades; sums of x^2 would lose the intercept).
LineFit weightedLine(std::span<const TimedSize> points, std::span<const double> weights) {
  double sw = 0;
  double sx = 0;
  double sy = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    sw += weights[i];
    sx += weights[i] * points[i].bytes;
    sy += weights[i] * points[i].seconds;
  }
  const double mx = sx / sw;
  const double my = sy / sw;
  double sxx = 0;
  double sxy = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double dx = points[i].bytes - mx;
    sxx += weights[i] * dx * dx;
    sxy += weights[i] * dx * (points[i].seconds - my);
  }
  LineFit fit;
  fit.beta = sxx > 0 ? sxy / sxx : 0;
  fit.alpha = my - fit.beta * mx;
  if (fit.beta < 0) {  // time that falls with size: a constant fits best
    fit.beta = 0;
    fit.alpha = my;
  } else if (fit.alpha < 0) {  // a negative latency: the best line through the origin
    double sxx0 = 0;
    double sxy0 = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
      sxx0 += weights[i] * points[i].bytes * points[i].bytes;
      sxy0 += weights[i] * points[i].bytes * points[i].seconds;
    }
    fit.alpha = 0;
    fit.beta = sxx0 > 0 ? sxy0 / sxx0 : 0;
  }
  return fit;
}

double relativeResidual(const LineFit& fit, const TimedSize& p) {
  return (p.seconds - fit.predict(p.bytes)) / p.seconds;
}

// The fits of `pieces` ([first, last] index ranges of `points`) and every point's residual.
struct Piecewise {
  std::vector<LineFit> fits;
  std::vector<double> residuals;
  std::size_t outside = 0;
  double cost = 0;  // squared residuals, each capped so that outliers do not choose the split
};

Piecewise fitPieces(std::span<const TimedSize> points,
                    const std::vector<std::pair<std::size_t, std::size_t>>& pieces) {
  Piecewise result;
  for (const auto& [first, last] : pieces) {
    LineFit fit = fitLine(points.subspan(first, last - first + 1));
    fit.first = first;
    fit.last = last;
    for (std::size_t i = first; i <= last; ++i) {
      const double r = relativeResidual(fit, points[i]);
      result.residuals.push_back(r);
      result.outside += std::abs(r) > kModelTolerance ? 1 : 0;
      const double capped = std::min(std::abs(r), 3 * kModelTolerance);
      result.cost += capped * capped;
    }
    result.fits.push_back(fit);
  }
  return result;
}

// log(time) explained: 1 - sum of squared log residuals / their total about the mean.
double logR2(std::span<const TimedSize> points, std::span<const double> residuals) {
  double mean = 0;
  for (const TimedSize& p : points) mean += std::log(p.seconds);
  mean /= static_cast<double>(points.size());
  double total = 0;
  double unexplained = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double d = std::log(points[i].seconds) - mean;
    total += d * d;
    // model / measured = 1 - residual; a model at or below zero explains nothing of the point.
    const double ratio = 1 - residuals[i];
    const double e = ratio > 0 ? std::log(ratio) : std::log(std::numeric_limits<double>::min());
    unexplained += e * e;
  }
  return total > 0 ? 1 - unexplained / total : (unexplained == 0 ? 1 : 0);
}

}  // namespace

const LineFit& LatencyBandwidthModel::segmentFor(double bytes) const {
  for (const LineFit& s : segments) {
    if (bytes <= points[s.last].bytes) return s;
  }
  return segments.back();
}

LineFit fitLine(std::span<const TimedSize> points) {
  if (points.size() < 2) throw std::invalid_argument("a line needs two points");
  std::vector<double> huber(points.size(), 1.0);
  std::vector<double> weights(points.size());
  std::vector<double> residuals(points.size());
  LineFit fit;
  for (int iteration = 0; iteration < kMaxIterations; ++iteration) {
    for (std::size_t i = 0; i < points.size(); ++i) {
      weights[i] = huber[i] / (points[i].seconds * points[i].seconds);
    }
    fit = weightedLine(points, weights);
    for (std::size_t i = 0; i < points.size(); ++i) {
      residuals[i] = relativeResidual(fit, points[i]);
    }
    const double center = quantile(residuals, 0.5);
    std::vector<double> deviations(points.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
      deviations[i] = std::abs(residuals[i] - center);
    }
    const double scale = std::max(kMadToSigma * quantile(deviations, 0.5), kSmallestScale);
    double moved = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const double r = std::abs(residuals[i]);
      const double w = r <= kHuber * scale ? 1.0 : kHuber * scale / r;
      moved = std::max(moved, std::abs(w - huber[i]));
      huber[i] = w;
    }
    if (moved < kWeightChange) break;
  }
  fit.first = 0;
  fit.last = points.size() - 1;
  return fit;
}

LatencyBandwidthModel fitLatencyBandwidth(std::vector<TimedSize> points) {
  if (points.size() < kMinSegmentPoints) {
    throw std::invalid_argument("a latency-bandwidth model needs at least three sizes");
  }
  for (const TimedSize& p : points) {
    if (!(p.seconds > 0) || !(p.bytes >= 0)) {
      throw std::invalid_argument("a latency-bandwidth model needs positive times");
    }
  }
  std::sort(points.begin(), points.end(),
            [](const TimedSize& a, const TimedSize& b) { return a.bytes < b.bytes; });
  if (points.front().bytes == points.back().bytes) {
    throw std::invalid_argument("a latency-bandwidth model needs sizes that differ");
  }

  std::vector<std::pair<std::size_t, std::size_t>> pieces = {{0, points.size() - 1}};
  Piecewise current = fitPieces(points, pieces);
  while (pieces.size() < kMaxSegments && current.outside > 0) {
    std::optional<std::pair<std::vector<std::pair<std::size_t, std::size_t>>, Piecewise>> best;
    for (std::size_t k = 0; k < pieces.size(); ++k) {
      const auto [first, last] = pieces[k];
      if (last - first + 1 < 2 * kMinSegmentPoints) continue;
      for (std::size_t end = first + kMinSegmentPoints - 1; end + kMinSegmentPoints <= last;
           ++end) {
        auto candidate = pieces;
        candidate[k] = {first, end};
        candidate.insert(candidate.begin() + static_cast<std::ptrdiff_t>(k) + 1, {end + 1, last});
        Piecewise fitted = fitPieces(points, candidate);
        if (!best || std::pair(fitted.outside, fitted.cost) <
                         std::pair(best->second.outside, best->second.cost)) {
          best.emplace(std::move(candidate), std::move(fitted));
        }
      }
    }
    // A split that brings fewer than two sizes back within the tolerance only bends the model
    // around noise or an outlier.
    if (!best || best->second.outside + 2 > current.outside) break;
    pieces = std::move(best->first);
    current = std::move(best->second);
  }

  LatencyBandwidthModel model;
  model.points = std::move(points);
  model.segments = std::move(current.fits);
  model.residuals = std::move(current.residuals);
  model.outside = current.outside;
  double squares = 0;
  std::size_t run_start = 0;
  std::size_t best_start = 0;
  std::size_t best_length = 0;
  for (std::size_t i = 0; i < model.residuals.size(); ++i) {
    const double r = std::abs(model.residuals[i]);
    squares += r * r;
    model.largest_residual = std::max(model.largest_residual, r);
    if (r > kModelTolerance) {
      run_start = i + 1;
    } else if (i + 1 - run_start > best_length) {
      best_start = run_start;
      best_length = i + 1 - run_start;
    }
  }
  model.rms_residual = std::sqrt(squares / static_cast<double>(model.residuals.size()));
  model.r2 = logR2(model.points, model.residuals);
  if (best_length > 0) {
    model.valid_from = model.points[best_start].bytes;
    model.valid_to = model.points[best_start + best_length - 1].bytes;
  }
  return model;
}

std::optional<LinkCost> linkCostOf(const LatencyBandwidthModel& model, double bytes,
                                   const AlgorithmCost& algorithm, int ranks) {
  const double steps = algorithm.latency_steps(ranks);
  const double share = algorithm.bandwidth_share(ranks);
  if (ranks < 2 || steps <= 0 || share <= 0) return std::nullopt;
  const LineFit& latency = model.segments.front();
  const LineFit& segment = model.segmentFor(bytes);
  return LinkCost{latency.alpha / steps, segment.beta / share, segment.alpha - latency.alpha};
}

double algorithmTime(const AlgorithmCost& algorithm, const LinkCost& link, int ranks,
                     double bytes) {
  return algorithm.latency_steps(ranks) * link.alpha +
         algorithm.bandwidth_share(ranks) * bytes * link.beta + link.overhead;
}

LinkCost boundingLink(const LinkCost& measured, const ClusterShape& shape, int ranks) {
  if (ranks <= shape.gpus_per_node) return measured;
  return {std::max(measured.alpha, shape.network.alpha),
          std::max(measured.beta, shape.network.beta), measured.overhead};
}

ProjectedTime fastestAlgorithm(std::span<const AlgorithmCost> algorithms, const LinkCost& link,
                               int ranks, double bytes) {
  if (algorithms.empty()) throw std::invalid_argument("no algorithm to project with");
  std::vector<std::pair<double, const AlgorithmCost*>> times;
  for (const AlgorithmCost& a : algorithms) {
    times.emplace_back(algorithmTime(a, link, ranks, bytes), &a);
  }
  std::stable_sort(times.begin(), times.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  ProjectedTime projected{times[0].second, times[0].first, nullptr, 0};
  if (times.size() > 1) {
    projected.runner_up = times[1].second;
    projected.runner_up_seconds = times[1].first;
  }
  return projected;
}

}  // namespace splitstep
