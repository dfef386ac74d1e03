// splitstep: every MPI rank runs the same timed workloads; rank 0 reports.
#include <fmt/format.h>
#include <mpi.h>

#include <iostream>

#include "App.hpp"
#include "cluster/Cluster.hpp"

namespace {

// The command as a user could paste it back into a shell.
std::string quoteCommandLine(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool plain = !arg.empty() && arg.find_first_not_of(
                                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789-_=.,/:+@%") == std::string::npos;
    if (i > 0) line += ' ';
    if (plain) {
      line += arg;
      continue;
    }
    line += '\'';
    for (char c : arg) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

}  // namespace

int main(int argc, char** argv) {
  splitstep::Invocation invocation;
  invocation.command_line = quoteCommandLine(argc, argv);
  try {
    invocation.command = splitstep::parseCommandLine({argv + 1, argv + argc});
  } catch (const splitstep::UsageError& e) {
    invocation.usage_error = e.what();
  }

  MPI_Init(&argc, &argv);
  int status = 0;
  {
    splitstep::Cluster cluster(MPI_COMM_WORLD);
    try {
      status = splitstep::runApp(invocation, cluster);
    } catch (const splitstep::StartupRefused& e) {
      if (e.shouldPrint()) std::cerr << "splitstep: error: " << e.what() << std::endl;
      status = 2;
    } catch (const std::exception& e) {
      // Other ranks may be waiting in a collective for this one: end the whole job.
      std::cerr << fmt::format("splitstep: rank {} on {} failed: {}", cluster.rank(),
                               cluster.host(), e.what())
                << std::endl;
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  MPI_Finalize();
  return status;
}
