#include "fault/ProcessState.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace splitstep {
namespace {

// A child that only sleeps, for the test to stop, continue and kill.
pid_t sleepingChild() {
  const pid_t child = fork();
  if (child == 0) {
    for (;;) pause();
  }
  return child;
}

// The kernel marks a stop asynchronously: look until it shows.
ProcessState stateWithin(long pid, ProcessState wanted) {
  ProcessState state = processState(pid);
  for (int i = 0; i < 200 && state != wanted; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    state = processState(pid);
  }
  return state;
}

TEST(ProcessState, ALiveAStoppedAndAKilledProcess) {
  EXPECT_EQ(processState(getpid()), ProcessState::Alive);
  const pid_t child = sleepingChild();
  ASSERT_GT(child, 0);
  EXPECT_EQ(stateWithin(child, ProcessState::Alive), ProcessState::Alive);
  kill(child, SIGSTOP);
  EXPECT_EQ(stateWithin(child, ProcessState::Stopped), ProcessState::Stopped);
  kill(child, SIGCONT);
  EXPECT_EQ(stateWithin(child, ProcessState::Alive), ProcessState::Alive);
  kill(child, SIGKILL);
  // Killed, not yet reaped: a zombie is gone for all purposes.
  EXPECT_EQ(stateWithin(child, ProcessState::Gone), ProcessState::Gone);
  waitpid(child, nullptr, 0);
  EXPECT_EQ(processState(child), ProcessState::Gone);
}

TEST(ProcessState, DescribedInOneWord) {
  EXPECT_EQ(describe(ProcessState::Stopped), "stopped");
  EXPECT_EQ(describe(ProcessState::Gone), "gone");
  EXPECT_EQ(describe(ProcessState::Alive), "");
}

}  // namespace
}  // namespace splitstep
