#include "fault/FaultReasons.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "options/OptionValue.hpp"

namespace splitstep {
namespace {

constexpr std::size_t kMaxNamed = 8;
constexpr std::size_t kMaxLine = 300;

}  // namespace

std::string describeRank(int rank, const RankPlace& place, std::string_view state) {
  std::string text = fmt::format("rank {} ({}", rank, place.host);
  if (place.pid > 0) text += fmt::format(", pid {}", place.pid);
  if (!state.empty()) text += fmt::format(", {}", state);
  return text + ")";
}

std::string listRanks(const std::vector<std::string>& descriptions) {
  if (descriptions.size() <= kMaxNamed) return fmt::format("{}", fmt::join(descriptions, ", "));
  const std::vector<std::string> shown(
      descriptions.begin(), descriptions.begin() + static_cast<std::ptrdiff_t>(kMaxNamed));
  return fmt::format("{} and {} more", fmt::join(shown, ", "), descriptions.size() - kMaxNamed);
}

std::string silentRank(const std::string& rank) { return rank + " did not answer"; }

std::string stoppedRank(const std::string& rank, double seconds) {
  return fmt::format("{} was stopped for {:.1f} s", rank, seconds);
}

std::string timeoutReason(const TimeoutError& timeout, int rank,
                          const std::vector<std::string>& culprits) {
  const std::string wait =
      fmt::format("rank {} waited {:g} s for {} during {} (--timeout)", rank, timeout.seconds(),
                  timeout.waitingFor(), timeout.operation());
  if (culprits.empty()) {
    // Everyone answered in time: nobody is stuck, the operation took longer than allowed.
    return wait + "; every rank answered afterwards: the operation outlasted --timeout";
  }
  return fmt::format("{}: {}", listRanks(culprits), wait);
}

std::string failureReason(const std::string& rank, const std::string& operation,
                          std::string_view what) {
  return fmt::format("{} failed during {}: {}", rank, operation, firstLine(what));
}

std::string interruptReason(const std::string& cause, const std::string& operation,
                            const std::vector<std::string>& not_alive) {
  std::string text = fmt::format("interrupted ({}) during {}", cause, operation);
  if (!not_alive.empty()) {
    text += fmt::format("; {} no longer running (a launcher ends the job when a rank dies)",
                        listRanks(not_alive));
  }
  return text;
}

std::string stoppedRankInterruptReason(const std::string& cause, const std::string& operation,
                                       double stopped_for) {
  return fmt::format(
      "interrupted ({}) during {}; this rank was stopped for {:.1f} s, longer than --timeout, "
      "the others' deadline for it",
      cause, operation, stopped_for);
}

std::string warningReason(const std::string& cause, const std::string& operation) {
  return fmt::format("warned ({}) during {}: the run ends once this case is kept", cause,
                     operation);
}

std::string lateReason(const std::string& reason) {
  return "this rank was late; the others gave up: " + reason;
}

std::string firstLine(std::string_view text) {
  return printable(text.substr(0, text.find('\n')), kMaxLine);
}

}  // namespace splitstep
