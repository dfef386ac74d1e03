#include "device/Device.hpp"

#include <chrono>
#include <fstream>

#include "device/CudaCheck.hpp"

namespace splitstep {
namespace {

class CudaEventTimer final : public IntervalTimer {
 public:
  explicit CudaEventTimer(cudaStream_t stream) : stream_(stream) {
    SPLITSTEP_CUDA_CHECK(cudaEventCreate(&start_));
    SPLITSTEP_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~CudaEventTimer() override {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  CudaEventTimer(const CudaEventTimer&) = delete;
  CudaEventTimer& operator=(const CudaEventTimer&) = delete;

  void start() override { SPLITSTEP_CUDA_CHECK(cudaEventRecord(start_, stream_)); }
  void stop() override { SPLITSTEP_CUDA_CHECK(cudaEventRecord(stop_, stream_)); }
  double seconds() const override {
    float ms = 0;
    SPLITSTEP_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms / 1e3;
  }

 private:
  cudaStream_t stream_;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

// CPU work (LibTorch CPU ops, blocking MPI) has finished when the call returns, so a host clock
// read right after it measures the work itself.
class HostTimer final : public IntervalTimer {
 public:
  void start() override { start_ = Clock::now(); }
  void stop() override { stop_ = Clock::now(); }
  double seconds() const override { return std::chrono::duration<double>(stop_ - start_).count(); }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_;
  Clock::time_point stop_;
};

class CudaDevice final : public Device {
 public:
  explicit CudaDevice(int index) : index_(index) {
    SPLITSTEP_CUDA_CHECK(cudaSetDevice(index));
    cudaDeviceProp properties{};
    SPLITSTEP_CUDA_CHECK(cudaGetDeviceProperties(&properties, index));
    name_ = properties.name;
    SPLITSTEP_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  ~CudaDevice() override { cudaStreamDestroy(stream_); }
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  bool isCuda() const override { return true; }
  int index() const override { return index_; }
  std::string label() const override { return "cuda:" + std::to_string(index_); }
  std::string name() const override { return name_; }
  cudaStream_t stream() const override { return stream_; }
  std::unique_ptr<IntervalTimer> newTimer() override {
    return std::make_unique<CudaEventTimer>(stream_);
  }
  void synchronize() override { SPLITSTEP_CUDA_CHECK(cudaStreamSynchronize(stream_)); }
  std::string clockName() const override { return "device (CUDA events)"; }

 private:
  int index_;
  std::string name_;
  cudaStream_t stream_ = nullptr;
};

std::string cpuModelName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "CPU";
}

class CpuDevice final : public Device {
 public:
  bool isCuda() const override { return false; }
  int index() const override { return 0; }
  std::string label() const override { return "cpu"; }
  std::string name() const override { return cpuModelName(); }
  cudaStream_t stream() const override { return nullptr; }
  std::unique_ptr<IntervalTimer> newTimer() override { return std::make_unique<HostTimer>(); }
  void synchronize() override {}
  std::string clockName() const override { return "host (steady clock)"; }
};

}  // namespace

int visibleCudaDevices() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error so later calls start clean
    return 0;
  }
  return count;
}

std::unique_ptr<Device> openDevice(const AssignedDevice& assigned) {
  if (assigned.cuda) return std::make_unique<CudaDevice>(assigned.index);
  return std::make_unique<CpuDevice>();
}

}  // namespace splitstep
