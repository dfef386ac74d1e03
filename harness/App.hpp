// The run from start-up agreement to the report: wires the layers together, owns nothing else.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fault/RunEnding.hpp"
#include "fault/SignalWatch.hpp"
#include "options/Options.hpp"

namespace splitstep {

class Cluster;

// What main() knows before MPI starts: the parsed command (or why it could not be parsed) and
// the command line as typed.
struct Invocation {
  ParsedCommand command;
  std::optional<std::string> usage_error;
  std::string command_line;
  // Said of the run before it started (the defaults it took), for its header: a run refused at
  // start prints nothing but its error.
  std::vector<std::string> notes;
};

// Runs on every rank after MPI_Init. Returns the exit status of a run that completed; throws
// StartupRefused (status 2) when start-up is refused on every rank, or another exception for a
// failure before the run. A run that fails, times out or is interrupted does not return: rank 0
// ends its reports with the reason, every rank prints one line (`ending`) and the job ends with
// a non-zero status.
int runApp(const Invocation& invocation, Cluster& cluster, RunEnding& ending, SignalWatch& signals);

}  // namespace splitstep
