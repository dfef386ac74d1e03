// splitstep: every MPI rank runs the same timed workloads; rank 0 reports.
#include <fmt/format.h>
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "App.hpp"
#include "cluster/Cluster.hpp"
#include "device/Device.hpp"
#include "fault/FaultReasons.hpp"
#include "options/CpuPreset.hpp"
#include "options/OptionValue.hpp"
#include "report/OutputCatalogue.hpp"
#include "suites/SuiteCatalog.hpp"

namespace {

// How long after a first SIGINT or SIGTERM the run may take to end by itself at its next wait,
// before the signal watch ends it: mpirun kills a rank about a second after its SIGTERM.
constexpr double kSignalGrace = 0.3;

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

// Started by mpirun or srun, whose end this process then watches: Open MPI's and PMIx's
// variables name the rank (a process run alone, from a shell, has none).
bool launchedByLauncher() {
  return std::getenv("OMPI_COMM_WORLD_RANK") != nullptr || std::getenv("PMIX_RANK") != nullptr ||
         std::getenv("PMI_RANK") != nullptr;
}

// The command line read with the CPU preset's defaults under it, or why it is refused.
struct PresetParse {
  std::optional<splitstep::ParsedCommand> command;
  std::string error;
};

PresetParse parseWithCpuPreset(const std::vector<std::string>& args) {
  try {
    return {splitstep::parseCommandLine(args, splitstep::suiteCatalog(), splitstep::outputInfos(),
                                        splitstep::cpuPreset()),
            {}};
  } catch (const splitstep::UsageError& e) {
    return {std::nullopt, e.what()};
  }
}

// On every rank, whatever it parsed: a run that finds no GPU on any rank and was given no
// --device or --device auto, or that was given --device cpu, takes the CPU preset's defaults,
// with a note,
// instead of starting a GPU's sizes. A command line refused under the GPU's defaults is read
// again under the preset's, since those are the ones it would run with (--max-time 0.3s is
// short of the GPU's --min-time, not of the preset's).
void chooseDefaults(splitstep::Invocation& invocation, const std::vector<std::string>& args,
                    const splitstep::Cluster& cluster) {
  PresetParse preset;
  const splitstep::ParsedCommand* read = &invocation.command;
  if (invocation.usage_error) {
    preset = parseWithCpuPreset(args);
    read = preset.command ? &*preset.command : nullptr;
  }
  const bool runs = read != nullptr && read->action == splitstep::ParsedCommand::Action::Run;
  // A CPU chosen is a CPU's run whatever GPUs the rank sees: it answers none.
  const bool cpu_chosen =
      runs && read->device_chosen && read->plan.launch.device == splitstep::DeviceKind::Cpu;
  std::uint64_t answer = splitstep::kDefaultsNotAsked;
  if (cpu_chosen) {
    answer = 0;
  } else if (runs &&
             (!read->device_chosen || read->plan.launch.device == splitstep::DeviceKind::Auto)) {
    answer = static_cast<std::uint64_t>(splitstep::visibleCudaDevices());
  }
  if (!splitstep::takesCpuPreset(cluster.allgather(answer))) return;
  if (!invocation.usage_error) preset = parseWithCpuPreset(args);
  if (!preset.command) {
    invocation.usage_error = preset.error;
    return;
  }
  invocation.command = std::move(*preset.command);
  invocation.usage_error.reset();
  invocation.notes.push_back(
      cpu_chosen ? "--device cpu: the CPU preset's defaults (configs/cpu-quick.ini) under the "
                   "options given"
                 : "no GPU on any rank: the CPU preset's defaults (configs/cpu-quick.ini) under "
                   "the options given; --device chooses");
}

}  // namespace

int main(int argc, char** argv) {
  splitstep::Invocation invocation;
  invocation.command_line = quoteCommandLine(argc, argv);
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    invocation.command =
        splitstep::parseCommandLine(args, splitstep::suiteCatalog(), splitstep::outputInfos());
  } catch (const splitstep::UsageError& e) {
    invocation.usage_error = e.what();
  }

  splitstep::RunEnding ending;
  // Before MPI_Init, so that every thread MPI starts leaves SIGINT and SIGTERM to the watch.
  splitstep::SignalWatch signals(
      kSignalGrace, [&ending](int signal) { ending.endAtSignal(signal); },
      [&ending](int signal) { ending.endOnSignal(signal); }, [&ending] { ending.beforeExit(); },
      launchedByLauncher());
  MPI_Init(&argc, &argv);
  int status = 0;
  {
    splitstep::Cluster cluster(MPI_COMM_WORLD);
    ending.setLabel(fmt::format("rank {} on {}", cluster.rank(), cluster.host()));
    chooseDefaults(invocation, args, cluster);
    try {
      status = splitstep::runApp(invocation, cluster, ending, signals);
    } catch (const splitstep::StartupRefused& e) {
      // Refusals quote file names and the files' own names (operations, types): shown, not sent.
      if (e.shouldPrint()) {
        std::cerr << fmt::format("splitstep: error: {}\n",
                                 splitstep::withControlBytesShown(e.what()))
                  << std::flush;
      }
      status = 2;
    } catch (const std::exception& e) {
      // Before the run: other ranks may be waiting in a collective for this one.
      ending.end(e.what(), fmt::format("failed: {}", splitstep::firstLine(e.what())));
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  MPI_Finalize();
  return status;
}
