// What every rank agrees on before anything is measured: the same plan and build, outputs that
// can be written, may be replaced and are locked, a device of one kind on every rank, the groups
// of ranks, and the memory each may use.
// Each check is collective and refuses on every rank alike (StartupRefused).
#pragma once

#include "cluster/Cluster.hpp"
#include "cluster/RankGroups.hpp"
#include "common/MemoryBudget.hpp"
#include "device/DeviceAssignment.hpp"
#include "measure/RankAgreement.hpp"
#include "options/RunPlan.hpp"
#include "report/OutputFiles.hpp"

namespace splitstep {

class Device;

// Every rank runs the plan rank 0 runs, with the same build, and every rank it names exists.
void requireSamePlan(const RunPlan& plan, const Cluster& cluster);

// Every output can be written and may be replaced (report/OutputFiles): rank 0's files, each
// locked for as long as the returned locks live, and every rank's --torch-profile directory.
std::vector<OutputLock> requireWritableOutputs(const RunPlan& plan, const Cluster& cluster);

// This rank's device; every rank has a GPU, or none has.
AssignedDevice chooseDevice(const LaunchPlan& launch, const Cluster& cluster);

// --groups against this launch: every rank resolves the same groups from the same plan and
// host names, or refuses the same way.
RankGroups formGroups(const CollectivesPlan& plan, const Cluster& cluster);

// The least over ranks of the device memory each has free and the host memory each may take for
// its cases (device/HostMemory: the node's MemAvailable and what its ranks hold, less what the
// ranks take before any case, shared by the node's ranks): every rank judges cases alike.
// Refuses on every rank when a node cannot hold its ranks before any case, saying how many fit.
MemoryBudget agreeBudget(const Device& device, const Cluster& cluster, RankAgreement& agreement);

}  // namespace splitstep
