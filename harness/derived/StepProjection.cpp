#include "derived/StepProjection.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace splitstep {

double sequentialStepTime(double compute, std::span<const double> bucket_seconds) {
  return std::accumulate(bucket_seconds.begin(), bucket_seconds.end(), compute);
}

double overlappedStepTime(double compute, double backward, std::span<const double> bucket_bytes,
                          std::span<const double> bucket_seconds) {
  if (bucket_bytes.size() != bucket_seconds.size()) {
    throw std::invalid_argument("one time per bucket");
  }
  const double total = std::accumulate(bucket_bytes.begin(), bucket_bytes.end(), 0.0);
  double produced = 0;
  double comm_end = 0;  // from the start of backward
  for (std::size_t i = 0; i < bucket_bytes.size(); ++i) {
    produced += bucket_bytes[i];
    const double ready = total > 0 ? backward * produced / total : backward;
    comm_end = std::max(comm_end, ready) + bucket_seconds[i];
  }
  return compute + std::max(0.0, comm_end - backward);
}

}  // namespace splitstep
