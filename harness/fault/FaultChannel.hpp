// Messages between ranks about a fault, beside the work's own traffic: when a wait times out,
// the rank asks every other rank what it is doing (a roll call); the ranks that do not answer
// are the culprits. It then tells every rank that it gave up and whom it blames, so that each
// ends with the same reason, and a rank that was stopped and runs again learns it was the late
// one. Its own communicator, with errors returned rather than fatal: a peer may be dead.
#pragma once

#include <mpi.h>

#include <array>
#include <chrono>
#include <functional>
#include <list>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/Watchdog.hpp"

namespace splitstep {

// Another rank gave up on the run; thrown from the wait that received its notice.
class PeerGaveUp : public std::runtime_error {
 public:
  PeerGaveUp(int from, std::vector<int> culprits, const std::string& reason)
      : std::runtime_error(reason), from_(from), culprits_(std::move(culprits)) {}
  int from() const { return from_; }
  const std::vector<int>& culprits() const { return culprits_; }

 private:
  int from_;
  std::vector<int> culprits_;
};

class FaultChannel {
 public:
  // Messages are cut to this many bytes.
  static constexpr std::size_t kMaxMessage = 2048;

  // A rank's answer to a roll call: what it is doing, and how long it was stopped (SIGSTOP)
  // just before, if it was: a rank that was stopped is the one the others waited for.
  struct Answer {
    std::string activity;
    double stopped_for = 0;  // seconds
  };

  // Collective over `world` (duplicates it). Registers poll() with `watchdog`, so that every
  // wait answers roll calls (with what `answer` returns) and ends when another rank gave up.
  FaultChannel(MPI_Comm world, Watchdog& watchdog, std::function<Answer()> answer);
  ~FaultChannel();
  FaultChannel(const FaultChannel&) = delete;
  FaultChannel& operator=(const FaultChannel&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  // Answers roll calls with this rank's activity; throws PeerGaveUp once another rank gave up.
  void poll();

  struct Answers {
    std::vector<int> silent;        // ranks that did not answer in time
    std::map<int, Answer> answers;  // the others'
  };
  // Asks every other rank what it is doing and waits up to `grace` seconds for the answers,
  // answering the others' roll calls meanwhile with `activity`.
  Answers rollCall(double grace, const std::string& activity);

  // Tells every other rank that this rank gave up, why, and whom it blames; waits up to `grace`
  // seconds for the notices to leave.
  void giveUp(const std::string& reason, const std::vector<int>& culprits, double grace);

  // A rank that ended tells every other rank; rank 0 ends the job once every rank that can has
  // ended.
  void sayFarewell();
  // Rank 0: waits up to `grace` seconds for a farewell from every rank in `ranks`.
  void awaitFarewells(const std::vector<int>& ranks, double grace);
  // The ranks that said they are ending (a give-up notice or a farewell), after taking every
  // message that arrived: a rank that ended after the launcher's SIGTERM is not a culprit.
  std::set<int> endingRanks();
  // Drives the sends still in flight for up to `seconds`.
  void flush(double seconds);

 private:
  enum Tag : int { kRollCall = 1, kAnswer, kGiveUp, kFarewell };

  void post();
  void send(int to, Tag tag, std::string text);
  // Handles one received message, if any; returns whether there was one. A roll call is
  // answered with `activity`, or with answer_'s where it is null.
  bool receive(const char* activity);
  void progressSends();

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  std::function<Answer()> answer_;
  std::optional<Watchdog::Registration> registration_;
  MPI_Request inbox_request_ = MPI_REQUEST_NULL;
  std::array<char, kMaxMessage> inbox_{};
  struct Outgoing {
    std::string text;
    MPI_Request request = MPI_REQUEST_NULL;
  };
  std::list<Outgoing> outgoing_;  // a list: requests and buffers must not move while in flight
  std::map<int, Answer> answers_;
  std::set<int> farewells_;
  std::set<int> ending_ranks_;
  std::optional<PeerGaveUp> notice_;
  bool ending_ = false;
  std::chrono::steady_clock::time_point
      last_poll_;  // this rank is ending: notices are not thrown from poll() any more
};

}  // namespace splitstep
