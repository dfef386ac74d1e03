// The cases of the step suite: every model, precision and sync mode, in that order; the modes
// of one model and precision share its built workload. Pure: whyNot reads only the plan, the
// device's kind and which backends there are, so every rank decides it alike.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "comm/Communicator.hpp"
#include "options/StepPlan.hpp"
#include "suites/CaseSpace.hpp"

namespace splitstep {

// Whether `mode` averages gradients across ranks.
bool syncsGradients(SyncMode mode);

class StepSpace {
 public:
  struct Case {
    const StepModelDescriptor* model = nullptr;
    StepPrecision precision = StepPrecision::Fp32;
    SyncMode mode = SyncMode::None;
  };

  // `communicators`: the backends there are; one of them averages the gradients.
  StepSpace(const StepPlan& plan, const std::vector<Communicator*>& communicators, bool on_gpu);

  const std::vector<Case>& cases() const { return cases_; }
  std::size_t size() const { return cases_.size(); }
  // The cases of each model and precision, in order: one workload serves all their modes.
  std::vector<std::span<const Case>> workloads() const;

  // The backend that averages gradients: NCCL on GPUs (stream-ordered, so it can overlap with
  // backward), MPI on CPUs; nullptr where none of the communicators is it.
  Communicator* gradientBackend() const { return gradient_backend_; }
  // Why `c` is skipped: a synchronised mode without the backend that averages gradients.
  std::optional<Skip> whyNot(const Case& c) const;

  // "mlp bf16 overlap", "vit-l16 bf16 single": what the case is called in reports, its model
  // named at the plan's shape (modelAtShape).
  std::string name(const Case& c) const;

 private:
  StepShape shape_;
  bool on_gpu_;
  Communicator* gradient_backend_ = nullptr;
  std::vector<Case> cases_;
};

}  // namespace splitstep
