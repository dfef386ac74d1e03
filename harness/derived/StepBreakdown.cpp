#include "derived/StepBreakdown.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <random>

#include "stats/Statistics.hpp"

namespace splitstep {
namespace {

using Parts = std::array<double, 6>;  // delta, slowdown, packing, tail, wait, residual

double medianAt(const std::vector<double>& values, const std::vector<std::size_t>& indices) {
  std::vector<double> picked;
  picked.reserve(indices.size());
  for (std::size_t i : indices) picked.push_back(values[i]);
  return quantile(picked, 0.5);
}

// The parts of every rank for one choice of steps: `steps` of the synchronised mode (the same
// indices on every rank), `none[r]` of rank r's mode none.
std::vector<Parts> partsFor(const std::vector<RankSteps>& ranks, std::size_t count,
                            const std::vector<std::size_t>& steps,
                            const std::vector<std::vector<std::size_t>>& none) {
  // The shortest collective time of each step over ranks: the rank that waited least.
  std::vector<double> shortest(count, std::numeric_limits<double>::infinity());
  for (const RankSteps& r : ranks) {
    for (std::size_t i = 0; i < count; ++i) shortest[i] = std::min(shortest[i], r.comm[i]);
  }
  std::vector<Parts> all;
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    const RankSteps& r = ranks[k];
    std::vector<double> exposed(count);
    std::vector<double> wait(count);
    for (std::size_t i = 0; i < count; ++i) {
      exposed[i] = r.sync[i] - r.packing[i];
      wait[i] = std::clamp(r.comm[i] - shortest[i], 0.0, std::max(exposed[i], 0.0));
    }
    Parts p{};
    p[0] = medianAt(r.step, steps) - medianAt(r.step_none, none[k]);
    p[1] = medianAt(r.backward, steps) - medianAt(r.backward_none, none[k]);
    p[2] = medianAt(r.packing, steps);
    p[4] = medianAt(wait, steps);
    p[3] = medianAt(exposed, steps) - p[4];
    p[5] = p[0] - p[1] - p[2] - p[3] - p[4];
    all.push_back(p);
  }
  return all;
}

Parts meanOf(const std::vector<Parts>& parts) {
  Parts mean{};
  for (const Parts& p : parts) {
    for (std::size_t j = 0; j < mean.size(); ++j)
      mean[j] += p[j] / static_cast<double>(parts.size());
  }
  return mean;
}

StepParts toParts(int rank, const Parts& point, const std::vector<Parts>& replicates) {
  std::array<Estimate, 6> estimates;
  for (std::size_t j = 0; j < estimates.size(); ++j) {
    std::vector<double> values;
    for (const Parts& r : replicates) values.push_back(r[j]);
    estimates[j] = {point[j], values.empty() ? point[j] : quantile(values, 0.025),
                    values.empty() ? point[j] : quantile(values, 0.975)};
  }
  return {rank, estimates[0], estimates[1], estimates[2], estimates[3], estimates[4], estimates[5]};
}

std::vector<std::size_t> allOf(std::size_t n) {
  std::vector<std::size_t> indices(n);
  for (std::size_t i = 0; i < n; ++i) indices[i] = i;
  return indices;
}

}  // namespace

StepBreakdown breakDownStep(const std::vector<RankSteps>& given, int resamples,
                            std::uint64_t seed) {
  std::vector<RankSteps> ranks;
  for (const RankSteps& r : given) {
    if (!r.step.empty() && !r.step_none.empty() && !r.backward_none.empty()) ranks.push_back(r);
  }
  StepBreakdown result;
  if (ranks.empty()) return result;
  // Steps every rank and every series of the synchronised mode holds.
  std::size_t count = std::numeric_limits<std::size_t>::max();
  for (const RankSteps& r : ranks) {
    for (const auto* series : {&r.step, &r.backward, &r.sync, &r.packing, &r.comm}) {
      count = std::min(count, series->size());
    }
  }
  if (count == 0) return result;
  std::vector<std::vector<std::size_t>> none;
  for (const RankSteps& r : ranks) {
    none.push_back(allOf(std::min(r.step_none.size(), r.backward_none.size())));
  }
  const std::vector<Parts> point = partsFor(ranks, count, allOf(count), none);

  std::mt19937_64 generator(seed);
  std::vector<std::vector<Parts>> replicates(ranks.size());
  std::vector<Parts> mean_replicates;
  for (int b = 0; b < resamples; ++b) {
    std::uniform_int_distribution<std::size_t> pick(0, count - 1);
    std::vector<std::size_t> steps(count);
    for (std::size_t& i : steps) i = pick(generator);
    std::vector<std::vector<std::size_t>> none_steps;
    for (const auto& indices : none) {
      std::uniform_int_distribution<std::size_t> pick_none(0, indices.size() - 1);
      std::vector<std::size_t> chosen(indices.size());
      for (std::size_t& i : chosen) i = pick_none(generator);
      none_steps.push_back(std::move(chosen));
    }
    const std::vector<Parts> parts = partsFor(ranks, count, steps, none_steps);
    for (std::size_t k = 0; k < parts.size(); ++k) replicates[k].push_back(parts[k]);
    mean_replicates.push_back(meanOf(parts));
  }
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    result.ranks.push_back(toParts(ranks[k].rank, point[k], replicates[k]));
  }
  result.mean = toParts(-1, meanOf(point), mean_replicates);
  return result;
}

}  // namespace splitstep
