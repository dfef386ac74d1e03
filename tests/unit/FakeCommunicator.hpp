// A backend for tests of what is decided before anything runs: it answers what it is, what it
// supports (every collective but on bf16) and how many elements it counts in one call, and
// refuses to communicate.
#pragma once

#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "comm/Communicator.hpp"

namespace splitstep::testing {

class FakeCommunicator final : public Communicator {
 public:
  FakeCommunicator(std::string backend, bool device_buffers,
                   std::size_t max_count = std::numeric_limits<std::size_t>::max())
      : backend_(std::move(backend)), device_buffers_(device_buffers), max_count_(max_count) {}
  std::string backend() const override { return backend_; }
  int rank() const override { return 0; }
  int size() const override { return 4; }
  std::unique_ptr<Communicator> split(std::optional<int>) override {
    throw std::logic_error("a fake communicator splits nothing");
  }
  bool usesDeviceBuffers() const override { return device_buffers_; }
  bool supports(const CollectiveDescriptor&, DataType type, bool,
                std::string& why_not) const override {
    if (type != DataType::BFloat16) return true;
    why_not = backend_ + " has no bf16";
    return false;
  }
  std::size_t maxCount() const override { return max_count_; }
  void run(const CollectiveDescriptor&, const void*, void*, std::size_t, DataType,
           cudaStream_t) override {
    throw std::logic_error("a fake communicator runs nothing");
  }

 private:
  std::string backend_;
  bool device_buffers_;
  std::size_t max_count_;
};

}  // namespace splitstep::testing
