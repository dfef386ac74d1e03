// The contract between the step suite, which writes a training step's cases, and the step
// analysis, which reads them: the series names, declared once for both (the fields are
// StepCase's, harness/cases/StepCase.hpp).
#pragma once

#include <array>
#include <string>
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
// bucket's timeline, named "bucket <i> <quantity>" (StepCase::bucket says which).
inline constexpr std::string_view kPacking = "packing";
inline constexpr std::string_view kBucketReady = "ready";  // from the start of backward
inline constexpr std::string_view kBucketLaunchDelay = "launch delay";
inline constexpr std::string_view kBucketComm = "comm";
inline constexpr std::string_view kBucketFinish = "finish after backward";
// Detail series of a GPU rank: the seconds the GPU was busy in a phase ("gpu busy <phase>") or
// in the whole step ("gpu busy step"), per profiled step (suites/step/BusyTime.hpp).
inline constexpr std::string_view kBusyPrefix = "gpu busy ";
inline std::string busySeries(std::string_view of) {
  return std::string(kBusyPrefix) + std::string(of);
}

}  // namespace step_keys
}  // namespace splitstep
