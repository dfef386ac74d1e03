#include "fault/SignalWatch.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
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
  std::atomic<int> first{0};
  std::atomic<int> fell_back{0};
  SignalWatch watch(
      0.2, [&first](int signal) { first = signal; },
      [&fell_back](int signal) { fell_back = signal; }, [] {}, false);
  EXPECT_EQ(watch.received(), 0);
  EXPECT_NO_THROW(watch.check());
  const auto sent = std::chrono::steady_clock::now();
  kill(getpid(), SIGINT);
  EXPECT_TRUE(within([&] { return watch.received() == SIGINT; }));
  // Handed on at once, long before the grace: the reason is written before anything else.
  EXPECT_TRUE(within([&] { return first.load() == SIGINT; }));
  EXPECT_LT(std::chrono::steady_clock::now() - sent, std::chrono::milliseconds(200));
  EXPECT_EQ(fell_back.load(), 0);
  // kill(2) from this very process: the sender is named by its command.
  EXPECT_NE(watch.cause().find(fmt::format("SIGINT from splitstep_unit_, pid {}", getpid())),
            std::string::npos)
      << watch.cause();
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

// A peer that ends after the signal, as every innocent rank does once the launcher signalled it,
// is seen alive: the look comes before `first`, and `first` here is what ends the peer.
TEST(SignalWatch, PeersAreLookedAtWhenTheSignalArrivesBeforeAnythingRuns) {
  const pid_t ended_before = fork();
  if (ended_before == 0) _exit(0);
  waitpid(ended_before, nullptr, 0);
  const pid_t ends_after = fork();
  if (ends_after == 0) {
    pause();
    _exit(0);
  }
  std::atomic<bool> ended{false};
  SignalWatch watch(
      5,
      [&](int) {
        kill(ends_after, SIGKILL);
        waitpid(ends_after, nullptr, 0);
        ended = true;
      },
      [](int) {}, [] {}, false);
  watch.lookAtOnSignal({ended_before, ends_after});
  EXPECT_TRUE(watch.lookedAt().empty());
  kill(getpid(), SIGTERM);
  ASSERT_TRUE(within([&] { return ended.load(); }));
  const std::vector<std::pair<long, ProcessState>> expected{{ended_before, ProcessState::Gone},
                                                            {ends_after, ProcessState::Alive}};
  EXPECT_EQ(watch.lookedAt(), expected);
}

TEST(SignalWatch, AnEarlyWarningIsHandedOnButInterruptsNothing) {
  std::atomic<int> first{0};
  SignalWatch watch(
      0.1, [&first](int signal) { first = signal; }, [](int) {}, [] {}, false);
  kill(getpid(), SIGUSR1);
  EXPECT_TRUE(within([&] { return first.load() == SIGUSR1; }));
  EXPECT_EQ(watch.warned(), SIGUSR1);
  EXPECT_EQ(watch.warningCause().rfind("SIGUSR1 from ", 0), 0u) << watch.warningCause();
  EXPECT_EQ(watch.received(), 0);
  EXPECT_NO_THROW(watch.check()) << "the case in flight goes on";
  // An interruption after the warning is the first interruption.
  kill(getpid(), SIGTERM);
  EXPECT_TRUE(within([&] { return first.load() == SIGTERM; }));
  EXPECT_THROW(watch.check(), Interrupted);
}

TEST(SignalWatch, ASecondSignalEndsTheProcessAtOnce) {
  EXPECT_EXIT(
      {
        // The fallback would wait for ever (a report being written): the second signal wins.
        SignalWatch watch(
            0, [](int) {},
            [](int) {
              for (;;) pause();
            },
            [] {}, false);
        kill(getpid(), SIGTERM);
        while (watch.received() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        kill(getpid(), SIGTERM);
        for (;;) pause();
      },
      ::testing::ExitedWithCode(128 + SIGTERM), "interrupted again: ending at once");
}

TEST(SignalWatch, ASecondSignalWaitsForTheFirstToBeHandledThenForTheLastWord) {
  // Two signals 1 ms apart (srun at a time limit): the reason the first writes, here a line
  // printed after 0.3 s, comes out before the second ends the process, and then what the
  // process waits for before it ends (a rank 0 still writing the results).
  EXPECT_EXIT(
      {
        SignalWatch watch(
            10,
            [](int) {
              std::this_thread::sleep_for(std::chrono::milliseconds(300));
              static const char kLine[] = "the reason is on disk\n";
              [[maybe_unused]] const ssize_t n = write(STDERR_FILENO, kLine, sizeof(kLine) - 1);
            },
            [](int) {},
            [] {
              std::this_thread::sleep_for(std::chrono::milliseconds(100));
              static const char kLine[] = "rank 0 has ended\n";
              [[maybe_unused]] const ssize_t n = write(STDERR_FILENO, kLine, sizeof(kLine) - 1);
            },
            false);
        kill(getpid(), SIGTERM);
        while (watch.received() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        kill(getpid(), SIGTERM);
        for (;;) pause();
      },
      ::testing::ExitedWithCode(128 + SIGTERM),
      "the reason is on disk\nrank 0 has ended\nsplitstep: interrupted again: ending at once");
}

TEST(SignalWatch, ALauncherThatEndsWithoutAWordCountsAsAHangup) {
  // This process takes in the orphan, so that it can wait for it: launcher, then rank below it.
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t launcher = fork();
  if (launcher == 0) {
    if (fork() == 0) {
      SignalWatch watch(
          10, [](int) {}, [](int) {}, [] {}, true);
      [[maybe_unused]] const ssize_t n = write(ready[1], "r", 1);
      for (int i = 0; i < 600 && watch.received() == 0; ++i) usleep(5'000);
      const bool named =
          watch.cause().find("launcher ") == 0 && watch.cause().find(", gone") != std::string::npos;
      _exit(watch.received() == SIGHUP && named ? 0 : 1);
    }
    char byte = 0;
    [[maybe_unused]] const ssize_t n = read(ready[0], &byte, 1);
    _exit(0);  // without a word to its rank
  }
  ASSERT_GT(launcher, 0);
  int status = 0;
  ASSERT_EQ(waitpid(launcher, &status, 0), launcher);
  const pid_t rank = waitpid(-1, &status, 0);
  prctl(PR_SET_CHILD_SUBREAPER, 0);
  close(ready[0]);
  close(ready[1]);
  ASSERT_GT(rank, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "the rank saw no SIGHUP naming its launcher gone within 3 s";
}

TEST(SignalWatch, AStopAndContinueIsMeasured) {
  SignalWatch watch(
      10, [](int) {}, [](int) {}, [] {}, false);
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
