#include "fault/FaultChannel.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <thread>

namespace splitstep {
namespace {

using Clock = std::chrono::steady_clock;

// What a rank in its own fault path answers a roll call.
constexpr const char* kEnding = "ending the run after a fault";

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A give-up notice: "1,3|reason".
std::string encodeNotice(const std::vector<int>& culprits, const std::string& reason) {
  return fmt::format("{}|{}", fmt::join(culprits, ","), reason);
}

std::pair<std::vector<int>, std::string> decodeNotice(const std::string& text) {
  const std::size_t bar = text.find('|');
  if (bar == std::string::npos) return {{}, text};
  std::vector<int> culprits;
  std::size_t at = 0;
  while (at < bar) {
    const std::size_t comma = std::min(text.find(',', at), bar);
    int rank = 0;
    const auto [end, error] = std::from_chars(text.data() + at, text.data() + comma, rank);
    if (error == std::errc() && end == text.data() + comma) culprits.push_back(rank);
    at = comma + 1;
  }
  return {culprits, text.substr(bar + 1)};
}

// An answer: "3.4|waiting for ...", the seconds this rank was stopped, then its activity.
std::string encodeAnswer(const FaultChannel::Answer& answer) {
  return fmt::format("{}|{}", answer.stopped_for, answer.activity);
}

FaultChannel::Answer decodeAnswer(const std::string& text) {
  const std::size_t bar = text.find('|');
  if (bar == std::string::npos) return {text, 0};
  double stopped_for = 0;
  std::from_chars(text.data(), text.data() + bar, stopped_for);
  return {text.substr(bar + 1), stopped_for};
}

}  // namespace

FaultChannel::FaultChannel(MPI_Comm world, Watchdog& watchdog, std::function<Answer()> answer)
    : answer_(std::move(answer)) {
  MPI_Comm_dup(world, &comm_);
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  post();
  registration_.emplace(watchdog.watch([this] { poll(); }, nullptr));
}

FaultChannel::~FaultChannel() {
  registration_.reset();
  if (inbox_request_ != MPI_REQUEST_NULL) {
    MPI_Cancel(&inbox_request_);
    MPI_Wait(&inbox_request_, MPI_STATUS_IGNORE);
  }
  // Sends still in flight go to ranks that never took them (the run ended); leave them to MPI.
  for (Outgoing& out : outgoing_) {
    if (out.request != MPI_REQUEST_NULL) MPI_Request_free(&out.request);
  }
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void FaultChannel::post() {
  MPI_Irecv(inbox_.data(), static_cast<int>(inbox_.size()), MPI_CHAR, MPI_ANY_SOURCE, MPI_ANY_TAG,
            comm_, &inbox_request_);
}

void FaultChannel::send(int to, Tag tag, std::string text) {
  if (text.size() > kMaxMessage) text.resize(kMaxMessage);
  Outgoing& out = outgoing_.emplace_back();
  out.text = std::move(text);
  if (MPI_Isend(out.text.data(), static_cast<int>(out.text.size()), MPI_CHAR, to, tag, comm_,
                &out.request) != MPI_SUCCESS) {
    out.request = MPI_REQUEST_NULL;  // a dead peer: nothing more to do for it
  }
}

void FaultChannel::progressSends() {
  for (auto it = outgoing_.begin(); it != outgoing_.end();) {
    int done = 1;
    if (it->request != MPI_REQUEST_NULL &&
        MPI_Test(&it->request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
      done = 1;  // failed towards a dead peer: give it up
    }
    it = done != 0 ? outgoing_.erase(it) : std::next(it);
  }
}

bool FaultChannel::receive(const char* activity) {
  progressSends();
  int arrived = 0;
  MPI_Status status;
  if (MPI_Test(&inbox_request_, &arrived, &status) != MPI_SUCCESS || arrived == 0) return false;
  int length = 0;
  MPI_Get_count(&status, MPI_CHAR, &length);
  const std::string text(inbox_.data(), static_cast<std::size_t>(std::max(length, 0)));
  const int from = status.MPI_SOURCE;
  post();
  switch (status.MPI_TAG) {
    case kRollCall:
      send(from, kAnswer, encodeAnswer(activity != nullptr ? Answer{activity, 0} : answer_()));
      break;
    case kAnswer:
      answers_[from] = decodeAnswer(text);
      break;
    case kGiveUp:
      ending_ranks_.insert(from);
      if (!notice_) {
        auto [culprits, reason] = decodeNotice(text);
        notice_.emplace(from, std::move(culprits), reason);
      }
      break;
    case kFarewell:
      farewells_.insert(from);
      ending_ranks_.insert(from);
      break;
    default:
      break;
  }
  return true;
}

void FaultChannel::poll() {
  // Every wait polls, in timed collectives too: look at most once a millisecond.
  const auto now = Clock::now();
  if (now - last_poll_ < std::chrono::milliseconds(1)) return;
  last_poll_ = now;
  while (receive(nullptr)) {
  }
  if (notice_ && !ending_) {
    ending_ = true;
    throw *notice_;
  }
}

FaultChannel::Answers FaultChannel::rollCall(double grace, const std::string& activity) {
  ending_ = true;
  answers_.clear();
  for (int r = 0; r < size_; ++r) {
    if (r != rank_) send(r, kRollCall, "");
  }
  const auto start = Clock::now();
  while (static_cast<int>(answers_.size()) < size_ - 1 && secondsSince(start) < grace) {
    if (!receive(activity.c_str())) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  Answers result;
  result.answers = answers_;
  for (int r = 0; r < size_; ++r) {
    if (r != rank_ && answers_.count(r) == 0) result.silent.push_back(r);
  }
  return result;
}

void FaultChannel::giveUp(const std::string& reason, const std::vector<int>& culprits,
                          double grace) {
  ending_ = true;
  const std::string notice = encodeNotice(culprits, reason);
  for (int r = 0; r < size_; ++r) {
    if (r != rank_) send(r, kGiveUp, notice);
  }
  flush(grace);
}

void FaultChannel::sayFarewell() {
  ending_ = true;
  // To every rank: rank 0 waits for it, and the others then know this rank is not a culprit
  // when it is gone.
  for (int r = 0; r < size_; ++r) {
    if (r != rank_) send(r, kFarewell, "");
  }
}

void FaultChannel::awaitFarewells(const std::vector<int>& ranks, double grace) {
  ending_ = true;
  const auto start = Clock::now();
  const auto all_here = [&] {
    return std::all_of(ranks.begin(), ranks.end(),
                       [this](int r) { return r == rank_ || farewells_.count(r) != 0; });
  };
  while (!all_here() && secondsSince(start) < grace) {
    if (!receive(kEnding)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

std::set<int> FaultChannel::endingRanks() {
  while (receive(kEnding)) {
  }
  return ending_ranks_;
}

void FaultChannel::flush(double seconds) {
  const auto start = Clock::now();
  for (;;) {
    progressSends();
    if (outgoing_.empty() || secondsSince(start) >= seconds) return;
    receive(kEnding);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace splitstep
