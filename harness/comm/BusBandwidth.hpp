// Bandwidth model of the collectives, with nccl-tests' definitions (docs/metrics.md).
#pragma once

#include <optional>

namespace splitstep {

enum class Collective { AllReduce, ReduceScatter, AllGather, Broadcast };

// busbw = algbw x factor: the share of the data each rank's link must carry, so that busbw is
// comparable with the link's peak whatever the rank count. allreduce 2(n-1)/n, reduce-scatter
// and allgather (n-1)/n, broadcast 1. Empty for a single rank, where no data crosses a link and
// bus bandwidth is not defined.
std::optional<double> busBandwidthFactor(Collective collective, int ranks);

}  // namespace splitstep
