#include "suites/SuiteCatalog.hpp"

#include <gtest/gtest.h>

#include "comm/Collective.hpp"

namespace splitstep {
namespace {

TEST(SuiteCatalog, ListsEveryCollectiveBetweenTheCeilingsAndTheStep) {
  const auto& catalogue = suiteCatalog();
  ASSERT_EQ(catalogue.size(), collectives().size() + 3);
  EXPECT_EQ(catalogue.front().name, "matmul");
  EXPECT_EQ(catalogue[1].name, "membw");
  for (std::size_t i = 0; i < collectives().size(); ++i) {
    EXPECT_EQ(catalogue[i + 2].name, collectives()[i]->name);
    EXPECT_TRUE(catalogue[i + 2].needs_communicators);
  }
  EXPECT_EQ(catalogue.back().name, "step");
}

TEST(SuiteCatalog, DefaultRunIsTheCeilingsAndTheAllreduce) {
  std::vector<std::string_view> defaults;
  for (const SuiteInfo& suite : suiteCatalog()) {
    if (suite.in_default_run) defaults.push_back(suite.name);
  }
  EXPECT_EQ(defaults, (std::vector<std::string_view>{"matmul", "membw", "allreduce"}));
}

TEST(SuiteCatalog, FindsByName) {
  ASSERT_NE(findSuite("step"), nullptr);
  EXPECT_TRUE(findSuite("step")->needs_communicators);
  EXPECT_FALSE(findSuite("matmul")->needs_communicators);
  EXPECT_EQ(findSuite("nonsense"), nullptr);
}

}  // namespace
}  // namespace splitstep
