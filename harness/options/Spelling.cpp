#include "options/Spelling.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <vector>

namespace splitstep {

std::size_t editDistance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic programme: the one before the previous holds transpositions.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
  std::iota(previous.begin(), previous.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({previous[j] + 1, row[j - 1] + 1, substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        row[j] = std::min(row[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, row);
  }
  return previous[b.size()];
}

std::optional<std::string_view> closestName(std::string_view given,
                                            std::span<const std::string_view> names) {
  const std::size_t allowed = std::clamp<std::size_t>(given.size() / 3, 1, 3);
  std::optional<std::string_view> best;
  std::size_t best_distance = allowed + 1;
  for (std::string_view name : names) {
    // The lengths' difference is a bound below the distance: a name that cannot beat the best
    // is not aligned (a long hostile word against every option would cost its length times
    // theirs).
    const std::size_t apart =
        given.size() > name.size() ? given.size() - name.size() : name.size() - given.size();
    if (apart >= best_distance) continue;
    const std::size_t distance = editDistance(given, name);
    if (distance < best_distance) {
      best = name;
      best_distance = distance;
    }
  }
  return best;
}

std::string didYouMean(std::string_view given, std::span<const std::string_view> names,
                       std::string_view prefix) {
  const auto closest = closestName(given, names);
  return closest ? fmt::format(" (did you mean '{}{}'?)", prefix, *closest) : std::string();
}

}  // namespace splitstep
