#include "comm/GradientBuckets.hpp"

namespace splitstep {

std::vector<std::vector<std::size_t>> assignBuckets(const std::vector<std::size_t>& bytes,
                                                    std::size_t first_cap, std::size_t cap) {
  std::vector<std::vector<std::size_t>> buckets;
  std::vector<std::size_t> open;
  std::size_t filled = 0;
  for (std::size_t i = bytes.size(); i-- > 0;) {
    open.push_back(i);
    filled += bytes[i];
    if (filled >= (buckets.empty() ? first_cap : cap)) {
      buckets.push_back(std::move(open));
      open.clear();
      filled = 0;
    }
  }
  if (!open.empty()) buckets.push_back(std::move(open));
  return buckets;
}

}  // namespace splitstep
