// The contract between the step suite, which writes a training step's cases, and the step
// analysis, which reads them: the series and parameter names, declared once for both.
#pragma once

#include <array>
#include <string_view>
#include <utility>

#include "common/EnumNames.hpp"

namespace splitstep {

// The phases of one step, each timed between two events on the working stream.
enum class Phase { Data, Forward, Loss, Backward, Sync, Optimizer };

template <>
struct EnumNames<Phase> {
  static constexpr std::array values = {std::pair{Phase::Data, std::string_view("data")},
                                        std::pair{Phase::Forward, std::string_view("forward")},
                                        std::pair{Phase::Loss, std::string_view("loss")},
                                        std::pair{Phase::Backward, std::string_view("backward")},
                                        std::pair{Phase::Sync, std::string_view("sync")},
                                        std::pair{Phase::Optimizer, std::string_view("optimizer")}};
};

inline constexpr std::array<Phase, 6> kPhases = {Phase::Data,     Phase::Forward, Phase::Loss,
                                                 Phase::Backward, Phase::Sync,    Phase::Optimizer};

namespace step_keys {

inline constexpr std::string_view kSuite = "step";
// Series: the whole step (the phases are `part_of` it), and the gradient collectives on their
// own stream, which overlap the phases and so are not a summand.
inline constexpr std::string_view kWhole = "step";
inline constexpr std::string_view kComm = "comm";
// Detail series (Sample::detail) of the synchronised modes: the sync phase's packing of
// gradients into buckets (sequential; 0 with overlap, which packs inside backward), and each
// bucket's timeline, named "bucket <i> <quantity>" with params kBucket, kBucketBytes, kQuantity.
inline constexpr std::string_view kPacking = "packing";
inline constexpr std::string_view kBucketReady = "ready";  // from the start of backward
inline constexpr std::string_view kBucketLaunchDelay = "launch delay";
inline constexpr std::string_view kBucketComm = "comm";
inline constexpr std::string_view kBucketFinish = "finish after backward";

// Parameters of every step case.
inline constexpr std::string_view kModel = "model";
inline constexpr std::string_view kPrecision = "precision";
inline constexpr std::string_view kMode = "mode";  // a SyncMode's name
inline constexpr std::string_view kOptimizer = "optimizer";
inline constexpr std::string_view kOptimizerImpl = "optimizer_impl";
inline constexpr std::string_view kInput = "input";
inline constexpr std::string_view kBatch = "batch";                // samples per rank and step
inline constexpr std::string_view kFlopPerStep = "flop_per_step";  // of one rank's step
inline constexpr std::string_view kWorldSize = "world_size";
inline constexpr std::string_view kParameters = "parameters";
inline constexpr std::string_view kDevice = "device";  // "cuda" or "cpu": what the rank ran on
inline constexpr std::string_view kDelayRank = "delay_rank";  // a straggler on purpose, if any
inline constexpr std::string_view kDelay = "delay";           // its delay, seconds
inline constexpr std::string_view kBucket = "bucket";         // detail series: the bucket's index
inline constexpr std::string_view kBucketBytes = "bucket_bytes";
inline constexpr std::string_view kQuantity = "quantity";
// Of the synchronised modes only.
inline constexpr std::string_view kBuckets = "buckets";
inline constexpr std::string_view kGradientBytes = "gradient_bytes";
inline constexpr std::string_view kBucketSizes = "bucket_sizes";  // bytes per bucket, "a,b,..."

}  // namespace step_keys
}  // namespace splitstep
