// The cases of one collective suite: every round of --groups (one round of every rank without),
// and within a round every dtype, placement, size and backend, in that order; each group of the
// round is a case of the same call. Pure: whyNot and the refusal read only the plan, the
// backends' limits and the agreed budget, so every rank decides them alike.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cases/CollectiveCase.hpp"
#include "cluster/RankGroups.hpp"
#include "comm/Collective.hpp"
#include "comm/CollectiveLayout.hpp"
#include "comm/Communicator.hpp"
#include "common/MemoryBudget.hpp"
#include "options/CollectivesPlan.hpp"
#include "suites/CaseSpace.hpp"

namespace splitstep {

DataType toDataType(CollectiveDtype dtype);

class CollectiveSpace {
 public:
  struct Case {
    CollectiveCase fields;    // what the results carry of it
    std::size_t round = 0;    // a position in RankGroups::rounds; 0 without --groups
    std::size_t call = 0;     // the call it is part of: the round's groups, timed together
    std::size_t group = 0;    // its group's position among the round's groups
    std::size_t backend = 0;  // its communicator: a position in the communicators
    int ranks = 0;            // how many ranks run it together
  };

  // `communicators`: the world's, one per backend, in the order the cases compare them.
  CollectiveSpace(const CollectiveDescriptor& collective, const CollectivesPlan& plan,
                  const std::vector<Communicator*>& communicators, const RankGroups& groups,
                  int world_size, const MemoryBudget& budget);

  const std::vector<Case>& cases() const { return cases_; }
  std::size_t size() const { return cases_.size(); }
  // The cases of each call, in order: every rank publishes them as one batch.
  std::vector<std::span<const Case>> calls() const;

  // Why `c` is skipped, in the order the rules are asked: too small for one element per rank,
  // an in-place form the collective does not have, what its backend does not support, and the
  // limits (elements per call, memory to spare).
  std::optional<Skip> whyNot(const Case& c) const;
  // The refusal at start, naming --bytes, where no case fits within the limits.
  std::optional<std::string> refusal() const;

  // "nccl fp32 1 MiB in place group 0,1": what the case is called in reports.
  std::string name(const Case& c) const;
  // How the call of `c` lays out its buffers on the rank `group_rank` of its group.
  CollectiveLayout layout(const Case& c, int group_rank) const;
  // The largest allocation, in bytes, any rank of the group of `c` makes for its call.
  std::size_t largestAllocation(const Case& c) const;

 private:
  const CollectiveDescriptor& collective_;
  std::vector<Communicator*> communicators_;
  RankGroups groups_;
  MemoryBudget budget_;
  std::vector<Case> cases_;
};

}  // namespace splitstep
