// torch.autocast for one region, in C++: what a step's forward runs under at --precision bf16 or
// fp16, and what a test holds splitstep's graph to eager PyTorch's autocast under.
#pragma once

#include <ATen/autocast_mode.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

#include <optional>

namespace splitstep {

// torch.autocast for one region: ops that gain from lower precision run in `dtype`, parameters
// stay fp32. Leaving the outermost region drops the cached low-precision weight copies, as
// Python's autocast does, so that the next step casts the updated weights.
class AutocastScope {
 public:
  AutocastScope(c10::DeviceType device, std::optional<c10::ScalarType> dtype) : device_(device) {
    if (!dtype) return;
    active_ = true;
    was_enabled_ = at::autocast::is_autocast_enabled(device_);
    old_dtype_ = at::autocast::get_autocast_dtype(device_);
    at::autocast::set_autocast_enabled(device_, true);
    at::autocast::set_autocast_dtype(device_, *dtype);
    at::autocast::increment_nesting();
  }
  ~AutocastScope() {
    if (!active_) return;
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    at::autocast::set_autocast_enabled(device_, was_enabled_);
    at::autocast::set_autocast_dtype(device_, old_dtype_);
  }
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  c10::DeviceType device_;
  bool active_ = false;
  bool was_enabled_ = false;
  c10::ScalarType old_dtype_ = c10::ScalarType::Float;
};

}  // namespace splitstep
