// What every suite's case space shares. A suite lists its cases once, from its plan and the
// context, in the order run() reports them; run(), the refusal at start and the case count all
// walk that one list, and one whyNot(case) decides every skip.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace splitstep {

// Why a case cannot run here.
struct Skip {
  std::string reason;  // what follows "skipped: " in the case's note
  // A bound of these ranks is in the way (the memory they can spare, the elements a backend
  // counts in one call), which a smaller case may meet; otherwise the device or backend cannot
  // run the case at any size.
  bool beyond_limit = false;
};

// A case beyond a limit, and its reason.
template <class Case>
struct Blocked {
  const Case* first = nullptr;
  std::string reason;
};

// Why a suite is refused at start: no case of `cases` can run, and this is the first of them
// beyond a limit. None where some case can run, or where none is beyond a limit (then no option
// would help, and each case's skip says why).
template <class Case, class WhyNot>
std::optional<Blocked<Case>> noneWithinLimits(const std::vector<Case>& cases,
                                              const WhyNot& why_not) {
  std::optional<Blocked<Case>> first;
  for (const Case& c : cases) {
    std::optional<Skip> skip = why_not(c);
    if (!skip) return std::nullopt;
    if (skip->beyond_limit && !first) first = Blocked<Case>{&c, std::move(skip->reason)};
  }
  return first;
}

// `cases` cut into runs of consecutive cases that `together(first, other)` holds alike: the
// groups of one call, the kinds of one size, the modes of one workload.
template <class Case, class Together>
std::vector<std::span<const Case>> blocksOf(const std::vector<Case>& cases,
                                            const Together& together) {
  std::vector<std::span<const Case>> blocks;
  for (std::size_t first = 0; first < cases.size();) {
    std::size_t end = first + 1;
    while (end < cases.size() && together(cases[first], cases[end])) ++end;
    blocks.emplace_back(cases.data() + first, end - first);
    first = end;
  }
  return blocks;
}

}  // namespace splitstep
