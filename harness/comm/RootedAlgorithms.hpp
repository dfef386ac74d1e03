// The algorithms of the rooted collectives in the latency-bandwidth model (common/AlgorithmCost):
// from the root or to it, either direction costs the same.
#pragma once

#include <cmath>

#include "common/AlgorithmCost.hpp"

namespace splitstep {

// The whole buffer between the root and every rank (broadcast, reduce). Ring: a pipelined chain,
// the last rank n - 1 hops from the root. Tree: two pipelined binary trees, each carrying half
// the data (Sanders, Speck & Traeff 2009).
inline constexpr AlgorithmCost kRootedAlgorithms[] = {
    {"ring", [](double n) { return n - 1; }, [](double) { return 1.0; }},
    {"tree", [](double n) { return std::ceil(std::log2(n)); }, [](double) { return 1.0; }},
};

// One block between the root and each rank (gather, scatter). Direct: the root exchanges a
// block with every other rank, its link carrying (n - 1)/n of the data (Thakur, Rabenseifner &
// Gropp 2005), as NCCL does.
inline constexpr AlgorithmCost kRootedBlockAlgorithms[] = {
    {"direct", [](double n) { return n - 1; }, [](double n) { return (n - 1) / n; }},
};

}  // namespace splitstep
