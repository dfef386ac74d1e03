// What a run is made of once its checks passed: the communicators the collectives compare, the
// telemetry sampler, and what rank 0 learns of every rank (devices, environment). Each is
// collective: every rank calls it at the same point.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/ClockSync.hpp"
#include "cluster/Cluster.hpp"
#include "cluster/MpiAgreement.hpp"
#include "comm/Communicator.hpp"
#include "common/Watchdog.hpp"
#include "device/Device.hpp"
#include "measure/Timeline.hpp"
#include "meta/RankInfo.hpp"
#include "meta/RunContext.hpp"
#include "options/RunPlan.hpp"
#include "telemetry/TelemetrySampler.hpp"

namespace splitstep {

// The parts of a run from the device on, opened once its checks passed.
struct RunParts {
  std::unique_ptr<Device> device;
  std::vector<std::unique_ptr<Communicator>> comms;  // for the suites that run collectives
  std::unique_ptr<TelemetrySampler> sampler;         // null: no telemetry
  Timeline timeline;                                 // spans, for the trace and the telemetry
  ClockOffset clock_at_start;                        // against rank 0's, for the trace
  std::optional<MpiAgreement> agreement;
};

// Collective: opens every part of `parts` the plan needs, and fills `context` with what rank 0
// reports of the ranks (devices, links, environment, notes).
void openRunParts(RunParts& parts, const RunPlan& plan, const Cluster& cluster, Watchdog& watchdog,
                  RunContext& context);

// The backends the collective suites compare. NCCL needs a GPU on every rank (chooseDevice
// made them all alike); where there is none, MPI runs alone and `notes` say so.
std::vector<std::unique_ptr<Communicator>> openCommunicators(const CollectivesPlan& plan,
                                                             const Device& device,
                                                             const Cluster& cluster,
                                                             Watchdog& watchdog,
                                                             std::vector<std::string>& notes);

// The telemetry sampler of this rank's device, or nullptr where it has none; rank 0's `notes`
// name the ranks that do not sample.
std::unique_ptr<TelemetrySampler> startTelemetry(const TelemetryPlan& plan, const Device& device,
                                                 const Cluster& cluster,
                                                 std::vector<std::string>& notes);

// Every rank's description, at rank 0 (empty elsewhere).
std::vector<RankInfo> gatherRankInfo(const Device& device, const Cluster& cluster,
                                     Watchdog& watchdog);

// What rank 0's reports say of the run besides its measurements: versions, command line, plan,
// settings and the results file's catalogue.
void describeRun(const RunPlan& plan, const std::string& command_line, RunContext& context);

// Rank 0's launch environment and job, and the ranks whose own environment differs from it.
void describeEnvironment(const Cluster& cluster, RunContext& context);

}  // namespace splitstep
