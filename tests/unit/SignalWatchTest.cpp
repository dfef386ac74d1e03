#include "fault/SignalWatch.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace splitstep {
namespace {

// Polls `condition` for up to two seconds.
template <typename Condition>
bool within(Condition condition) {
  for (int i = 0; i < 400 && !condition(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return condition();
}

TEST(SignalWatch, TheFirstSignalIsReportedAndTheFallbackFollowsAfterTheGrace) {
  std::atomic<int> fell_back{0};
  SignalWatch watch(0.2, [&fell_back](int signal) { fell_back = signal; });
  EXPECT_EQ(watch.received(), 0);
  EXPECT_NO_THROW(watch.check());
  const auto sent = std::chrono::steady_clock::now();
  kill(getpid(), SIGINT);
  EXPECT_TRUE(within([&] { return watch.received() == SIGINT; }));
  try {
    watch.check();
    FAIL() << "expected Interrupted";
  } catch (const Interrupted& e) {
    EXPECT_EQ(e.signal(), SIGINT);
    EXPECT_STREQ(e.what(), "interrupted (SIGINT)");
  }
  EXPECT_TRUE(within([&] { return fell_back.load() == SIGINT; }));
  EXPECT_GE(std::chrono::steady_clock::now() - sent, std::chrono::milliseconds(200));
}

TEST(SignalWatch, ASecondSignalEndsTheProcessAtOnce) {
  EXPECT_EXIT(
      {
        // The fallback would wait for ever (a report being written): the second signal wins.
        SignalWatch watch(0, [](int) {
          for (;;) pause();
        });
        kill(getpid(), SIGTERM);
        while (watch.received() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        kill(getpid(), SIGTERM);
        for (;;) pause();
      },
      ::testing::ExitedWithCode(128 + SIGTERM), "interrupted again: ending at once");
}

TEST(SignalWatch, AStopAndContinueIsMeasured) {
  SignalWatch watch(10, [](int) {});
  EXPECT_EQ(watch.recentStop(60), 0);
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child == 0) {
    kill(parent, SIGSTOP);
    usleep(1'200'000);
    kill(parent, SIGCONT);
    _exit(0);
  }
  ASSERT_GT(child, 0);
  waitpid(child, nullptr, 0);
  // At once, before the watch's thread may have run again: a rank continued in another's roll
  // call answers before that thread is scheduled, and must still say it was stopped.
  EXPECT_GE(watch.recentStop(60), 1.0);
  // Once the watch has woken, the stop it measured is kept, and is old for a window of 0.
  EXPECT_TRUE(within([&] { return watch.recentStop(0) == 0; }))
      << "an old stop is no longer recent";
  EXPECT_GE(watch.recentStop(60), 1.0);
  EXPECT_LT(watch.recentStop(60), 10.0);
  EXPECT_EQ(watch.received(), 0) << "a stop is not an interruption";
}

}  // namespace
}  // namespace splitstep
