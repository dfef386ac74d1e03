// What a collective library chose for a call: NCCL's algorithm, protocol and channel count, as
// NCCL names them ("RING", "SIMPLE"). A change of algorithm between two sizes explains a change
// of busbw that a slow link does not.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace splitstep {

struct AlgorithmChoice {
  std::string algorithm;
  std::string protocol;
  std::int64_t channels = 0;

  bool operator==(const AlgorithmChoice&) const = default;
};

struct ChoiceCount {
  AlgorithmChoice choice;
  std::uint64_t calls = 0;

  bool operator==(const ChoiceCount&) const = default;
};

// Each distinct choice of `calls` once, with how many calls made it: the most frequent first,
// choices made equally often in the order first made.
std::vector<ChoiceCount> countChoices(const std::vector<AlgorithmChoice>& calls);

}  // namespace splitstep
