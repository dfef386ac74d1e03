#include "report/TerminalProgress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <system_error>

namespace splitstep {
namespace {

// "0:07", "12:34", "1:02:03".
std::string clockTime(double seconds) {
  const auto total = static_cast<long long>(std::llround(std::max(seconds, 0.0)));
  const long long hours = total / 3600;
  const long long minutes = total / 60 % 60;
  const long long rest = total % 60;
  return hours > 0 ? fmt::format("{}:{:02}:{:02}", hours, minutes, rest)
                   : fmt::format("{}:{:02}", minutes, rest);
}

// Erases the terminal line and returns to its start.
constexpr const char* kClearLine = "\r\x1b[K";

}  // namespace

TerminalProgress::TerminalProgress(std::ostream& out, Clock clock)
    : out_(out), clock_(std::move(clock)) {}

double TerminalProgress::steadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string TerminalProgress::line(std::size_t started, std::size_t total, double elapsed,
                                   const std::string& what) {
  const std::size_t done = started > 0 ? started - 1 : 0;
  // A count that fell short (a case more than announced) shows no estimate rather than a
  // negative one.
  const std::string left =
      done == 0 || started > total
          ? std::string("estimate after the first case")
          : fmt::format("about {} left", clockTime(elapsed / static_cast<double>(done) *
                                                   static_cast<double>(total - done)));
  std::string text = fmt::format("case {} of {} | {} elapsed | {} | {}", started, total,
                                 clockTime(elapsed), left, what);
  if (text.size() > kWidth) text.resize(kWidth);
  return text;
}

bool TerminalProgress::isTerminalPath(const std::string& target) {
  return target.starts_with("/dev/pts/") || target.starts_with("/dev/tty");
}

bool TerminalProgress::stderrReachesTerminal() {
  if (isatty(STDERR_FILENO) == 1) return true;
  std::error_code error;
  const auto parents =
      std::filesystem::read_symlink(fmt::format("/proc/{}/fd/2", getppid()), error);
  return !error && isTerminalPath(parents.string());
}

void TerminalProgress::start(std::size_t cases) {
  total_ = cases;
  began_ = clock_();
}

void TerminalProgress::caseStarted(const std::string& suite, const std::string& name) {
  ++started_;
  out_ << kClearLine << line(started_, total_, clock_() - began_, suite + " " + name) << std::flush;
  drawn_ = true;
}

void TerminalProgress::clear() {
  if (drawn_.exchange(false)) out_ << kClearLine << std::flush;
}

void TerminalProgress::finish() { clear(); }

}  // namespace splitstep
