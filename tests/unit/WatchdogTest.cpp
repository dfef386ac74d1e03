#include "common/Watchdog.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace splitstep {
namespace {

TEST(Watchdog, ReturnsAsSoonAsTheConditionHolds) {
  Watchdog watchdog(10);
  int polls = 0;
  watchdog.waitUntil([&polls] { return ++polls == 3; }, "three polls");
  EXPECT_EQ(polls, 3);
}

TEST(Watchdog, ExpiresWithAMessageNamingTheWaitAndTheOperation) {
  Watchdog watchdog(0.2);
  watchdog.setOperation("allreduce nccl fp32 1 MiB");
  bool aborted = false;
  const auto registration = watchdog.watch(nullptr, [&aborted] { aborted = true; });
  const auto start = std::chrono::steady_clock::now();
  try {
    watchdog.waitUntil([] { return false; }, "the other ranks");
    FAIL() << "expected a timeout";
  } catch (const TimeoutError& e) {
    EXPECT_EQ(std::string(e.what()),
              "timed out after 0.2 s waiting for the other ranks during allreduce nccl fp32 "
              "1 MiB; another rank may have stalled or died (--timeout sets the limit)");
  }
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(waited, 0.2);
  EXPECT_LT(waited, 2.0);
  EXPECT_TRUE(aborted) << "the expiry action runs before the error";
}

TEST(Watchdog, AHealthCheckEndsTheWaitWithItsOwnError) {
  Watchdog watchdog(10);
  const auto registration =
      watchdog.watch([] { throw std::runtime_error("NCCL asynchronous error"); }, nullptr);
  EXPECT_THROW(watchdog.waitUntil([] { return false; }, "x"), std::runtime_error);
}

TEST(Watchdog, ARegistrationEndsWithItsHandle) {
  Watchdog watchdog(10);
  int checks = 0;
  {
    const auto registration = watchdog.watch([&checks] { ++checks; }, nullptr);
    int polls = 0;
    watchdog.waitUntil([&polls] { return ++polls == 2; }, "x");
  }
  const int before = checks;
  int polls = 0;
  watchdog.waitUntil([&polls] { return ++polls == 5; }, "x");
  EXPECT_EQ(checks, before);
  EXPECT_GT(before, 0);
}

}  // namespace
}  // namespace splitstep
