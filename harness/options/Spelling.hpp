// "Did you mean": the valid name closest to a misspelt one (a suite, an option, a value).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace splitstep {

// Optimal string alignment distance: insertions, deletions, substitutions and transpositions of
// two adjacent characters, each counting one ("alreduce" -> "allreduce": 1, "mtamul" ->
// "matmul": 1).
std::size_t editDistance(std::string_view a, std::string_view b);

// The name of `names` closest to `given`, where it is close enough to be a slip of the keyboard
// (a third of the name's length, at least one and at most three edits); the first of equally
// close names; nullopt when none is.
std::optional<std::string_view> closestName(std::string_view given,
                                            std::span<const std::string_view> names);

// " (did you mean 'allreduce'?)", with `prefix` before the name ("--"), or "" when no name is
// close: what a refusal of an unknown name appends.
std::string didYouMean(std::string_view given, std::span<const std::string_view> names,
                       std::string_view prefix = "");

}  // namespace splitstep
