// What one rank's training step needs in memory, estimated from the plan before anything is
// allocated: parameters, gradients, buckets, optimizer state, autocast copies, the batch and a
// bound on the activations kept for backward. Pure (no LibTorch), so that an infeasible shape is
// refused in seconds instead of after minutes of allocation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "options/StepPlan.hpp"

namespace splitstep {

struct StepMemory {
  double parameters = 0;   // bytes: fp32 weights
  double gradients = 0;    // autograd's gradients and, in synchronised modes, the buckets
  double optimizer = 0;    // moments, momentum buffers, the foreach kernels' temporaries
  double casts = 0;        // autocast's low-precision weight copies
  double activations = 0;  // a bound on what forward keeps for backward, and the loss's buffers
  double batch = 0;        // input and target on the device

  double total() const { return parameters + gradients + optimizer + casts + activations + batch; }
};

// The model's parts (its parameter count, activations and batch: models/StepModel.hpp) and the
// step's (gradients, buckets, optimizer state, autocast copies). `on_gpu`: flash or cuDNN
// attention keep O(seq) per head; on the CPU the bound also holds the seq x seq attention
// matrix. `syncs`: a synchronised mode runs, so buckets exist.
StepMemory estimateStepMemory(const StepModelDescriptor& model, StepPrecision precision,
                              const StepPlan& plan, bool on_gpu, bool syncs);

// One line refusing the first (model, precision) of the plan whose estimate exceeds `usable`
// bytes (free memory less a margin), naming the options that size it; empty when all fit.
std::optional<std::string> refuseOversizedSteps(const StepPlan& plan, bool on_gpu,
                                                double usable_bytes, const std::string& where);

}  // namespace splitstep
