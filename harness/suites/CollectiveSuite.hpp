// One collective over a sweep of sizes, dtypes, placements and backends, side by side, every
// result checked. Every collective of comm/Collectives.cpp is a suite of this kind.
#pragma once

#include "comm/Collective.hpp"
#include "options/CollectivesPlan.hpp"
#include "suites/CollectiveSpace.hpp"
#include "suites/Suite.hpp"

namespace splitstep {

class CollectiveSuite final : public Suite {
 public:
  CollectiveSuite(const CollectiveDescriptor& collective, CollectivesPlan plan)
      : collective_(collective), plan_(std::move(plan)) {}
  std::string name() const override { return std::string(collective_.name); }
  std::optional<std::string> refusal(const SuiteContext& context) const override;
  void run(const SuiteContext& context) override;
  std::size_t caseCount(const SuiteContext& context) const override;

 private:
  // The cases run, refusal and caseCount walk.
  CollectiveSpace space(const SuiteContext& context) const;

  const CollectiveDescriptor& collective_;
  CollectivesPlan plan_;
};

}  // namespace splitstep
