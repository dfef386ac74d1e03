#include "cluster/PlanAgreement.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

TEST(PlanAgreement, EqualHashesAgree) {
  EXPECT_FALSE(describePlanMismatch({7, 7, 7}, {"a", "a", "b"}));
}

TEST(PlanAgreement, DifferingRanksAndHostsAreNamed) {
  const auto message = describePlanMismatch({7, 8, 7, 9}, {"a", "a", "b", "c"});
  ASSERT_TRUE(message);
  EXPECT_NE(message->find("rank(s) 1 (a), 3 (c) differ from rank 0 (a)"), std::string::npos);
}

}  // namespace
}  // namespace splitstep
