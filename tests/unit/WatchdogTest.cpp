#include "common/Watchdog.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

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
    // Who did not arrive is found afterwards (fault/FaultChannel): the message does not guess.
    EXPECT_EQ(std::string(e.what()),
              "timed out after 0.2 s waiting for the other ranks during allreduce nccl fp32 "
              "1 MiB");
    EXPECT_EQ(e.waitingFor(), "the other ranks");
    EXPECT_EQ(e.operation(), "allreduce nccl fp32 1 MiB");
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

TEST(Watchdog, AFailedWaitCallsTheFailureHandlerBeforeItThrows) {
  Watchdog watchdog(0.05);
  std::string seen;
  bool aborted = false;
  const auto registration = watchdog.watch(nullptr, [&aborted] { aborted = true; });
  watchdog.setFailureHandler([&](const std::exception& error) {
    EXPECT_TRUE(aborted) << "expiry actions come first";
    seen = error.what();
  });
  EXPECT_THROW(watchdog.waitUntil([] { return false; }, "x"), TimeoutError);
  EXPECT_EQ(seen, "timed out after 0.05 s waiting for x during start-up");
  // A health check's error goes the same way, and aborts what is in flight as a timeout does.
  aborted = false;
  const auto failing = watchdog.watch([] { throw std::runtime_error("a peer gave up"); }, nullptr);
  EXPECT_THROW(watchdog.waitUntil([] { return false; }, "x"), std::runtime_error);
  EXPECT_EQ(seen, "a peer gave up");
  EXPECT_TRUE(aborted);
}

TEST(Watchdog, TimeTheProcessDidNotRunDoesNotCount) {
  Watchdog watchdog(0.5);
  int polls = 0;
  // The second poll comes 1.2 s after the first, as after a SIGSTOP and SIGCONT: that gap is
  // not waiting, and the wait goes on past its 0.5 s.
  const auto start = std::chrono::steady_clock::now();
  watchdog.waitUntil(
      [&] {
        if (++polls == 2) std::this_thread::sleep_for(std::chrono::milliseconds(1200));
        return std::chrono::steady_clock::now() - start > std::chrono::milliseconds(1400);
      },
      "x");
  EXPECT_GE(watchdog.pausedInWait(), 1.2);
  // A wait without such a gap times out as before.
  EXPECT_THROW(watchdog.waitUntil([] { return false; }, "x"), TimeoutError);
  EXPECT_EQ(watchdog.pausedInWait(), 0);
}

TEST(Watchdog, ActivityNamesTheWaitInProgress) {
  Watchdog watchdog(10);
  watchdog.setOperation("matmul fp32 n=64");
  EXPECT_EQ(watchdog.activity(), "matmul fp32 n=64");
  std::string inside;
  watchdog.waitUntil(
      [&] {
        inside = watchdog.activity();
        return true;
      },
      "the other ranks");
  EXPECT_EQ(inside, "waiting for the other ranks during matmul fp32 n=64");
  EXPECT_EQ(watchdog.activity(), "matmul fp32 n=64");
}

}  // namespace
}  // namespace splitstep
