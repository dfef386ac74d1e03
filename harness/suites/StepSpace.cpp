#include "suites/StepSpace.hpp"

#include <fmt/format.h>

namespace splitstep {

bool syncsGradients(SyncMode mode) {
  return mode == SyncMode::Sequential || mode == SyncMode::Overlap;
}

StepSpace::StepSpace(const StepPlan& plan, const std::vector<Communicator*>& communicators,
                     bool on_gpu)
    : shape_(plan.shape), on_gpu_(on_gpu) {
  for (Communicator* comm : communicators) {
    if (on_gpu ? comm->backend() == "nccl" : !comm->usesDeviceBuffers()) {
      gradient_backend_ = comm;
      break;
    }
  }
  for (const StepModelDescriptor* model : plan.models) {
    for (StepPrecision precision : plan.precisions) {
      for (SyncMode mode : plan.modes) cases_.push_back({model, precision, mode});
    }
  }
}

std::vector<std::span<const StepSpace::Case>> StepSpace::workloads() const {
  return blocksOf(cases_, [](const Case& a, const Case& b) {
    return a.model == b.model && a.precision == b.precision;
  });
}

std::optional<Skip> StepSpace::whyNot(const Case& c) const {
  if (!syncsGradients(c.mode) || gradient_backend_ != nullptr) return std::nullopt;
  return Skip{on_gpu_ ? "gradient sync on GPUs runs over nccl, which --backend left out"
                      : "gradient sync on CPUs needs the mpi backend"};
}

std::string StepSpace::name(const Case& c) const {
  return fmt::format("{} {} {}", modelAtShape(*c.model, shape_), toString(c.precision),
                     toString(c.mode));
}

}  // namespace splitstep
