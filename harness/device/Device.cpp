#include "device/Device.hpp"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <fstream>

#include "device/CudaCheck.hpp"
#include "device/NvmlGpu.hpp"
#include "hold.cuh"

namespace splitstep {
namespace {

// A device time (an event recorded on the idle working stream) and the host time it happened at.
struct CudaClockAnchor {
  cudaEvent_t event = nullptr;
  double host = 0;
  bool set = false;
};

class CudaEventTimer final : public IntervalTimer {
 public:
  CudaEventTimer(cudaStream_t stream, const CudaClockAnchor& anchor)
      : stream_(stream), anchor_(anchor) {
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
  std::optional<HostSpan> hostSpan() const override {
    if (!anchor_.set) return std::nullopt;
    float start_ms = 0;
    float stop_ms = 0;
    SPLITSTEP_CUDA_CHECK(cudaEventElapsedTime(&start_ms, anchor_.event, start_));
    SPLITSTEP_CUDA_CHECK(cudaEventElapsedTime(&stop_ms, anchor_.event, stop_));
    return HostSpan{anchor_.host + start_ms / 1e3, anchor_.host + stop_ms / 1e3};
  }

 private:
  cudaStream_t stream_;
  const CudaClockAnchor& anchor_;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

class CudaEventMark final : public TimeMark {
 public:
  CudaEventMark(cudaStream_t stream, const CudaClockAnchor& anchor)
      : stream_(stream), anchor_(anchor) {
    SPLITSTEP_CUDA_CHECK(cudaEventCreate(&event_));
  }
  ~CudaEventMark() override { cudaEventDestroy(event_); }
  CudaEventMark(const CudaEventMark&) = delete;
  CudaEventMark& operator=(const CudaEventMark&) = delete;

  void record() override { SPLITSTEP_CUDA_CHECK(cudaEventRecord(event_, stream_)); }
  double secondsSince(const TimeMark& earlier) const override {
    float ms = 0;
    SPLITSTEP_CUDA_CHECK(
        cudaEventElapsedTime(&ms, dynamic_cast<const CudaEventMark&>(earlier).event_, event_));
    return ms / 1e3;
  }
  std::optional<double> hostTime() const override {
    if (!anchor_.set) return std::nullopt;
    float ms = 0;
    SPLITSTEP_CUDA_CHECK(cudaEventElapsedTime(&ms, anchor_.event, event_));
    return anchor_.host + ms / 1e3;
  }

 private:
  cudaStream_t stream_;
  const CudaClockAnchor& anchor_;
  cudaEvent_t event_ = nullptr;
};

class HostMark final : public TimeMark {
 public:
  void record() override { at_ = std::chrono::steady_clock::now(); }
  double secondsSince(const TimeMark& earlier) const override {
    return std::chrono::duration<double>(at_ - dynamic_cast<const HostMark&>(earlier).at_).count();
  }
  std::optional<double> hostTime() const override {
    return std::chrono::duration<double>(at_.time_since_epoch()).count();
  }

 private:
  std::chrono::steady_clock::time_point at_;
};

// CPU work (LibTorch CPU ops, blocking MPI) has finished when the call returns, so a host clock
// read right after it measures the work itself.
class HostTimer final : public IntervalTimer {
 public:
  void start() override { start_ = Clock::now(); }
  void stop() override { stop_ = Clock::now(); }
  double seconds() const override { return std::chrono::duration<double>(stop_ - start_).count(); }
  std::optional<HostSpan> hostSpan() const override {
    return HostSpan{onHostClock(start_), onHostClock(stop_)};
  }

 private:
  using Clock = std::chrono::steady_clock;
  static double onHostClock(Clock::time_point t) {
    return std::chrono::duration<double>(t.time_since_epoch()).count();
  }
  Clock::time_point start_;
  Clock::time_point stop_;
};

// Flags in mapped host memory: the host writes `release`, the spinning kernel reads it.
class CudaStreamHold final : public StreamHold {
 public:
  // Long enough for any batch the Measurer queues; short enough that a launch queue that filled
  // up (and so blocks the host before it can release) costs seconds, not a hang.
  static constexpr unsigned long long kTimeoutNs = 5'000'000'000ull;

  CudaStreamHold(volatile int* flags, volatile int* device_flags, cudaStream_t stream)
      : flags_(flags) {
    flags_[0] = 0;
    flags_[1] = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    SPLITSTEP_CUDA_CHECK(kernels::holdStream(device_flags, device_flags + 1, kTimeoutNs, stream));
  }
  ~CudaStreamHold() override { release(); }
  CudaStreamHold(const CudaStreamHold&) = delete;
  CudaStreamHold& operator=(const CudaStreamHold&) = delete;

  void release() override {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    flags_[0] = 1;
  }
  bool timedOut() const override { return flags_[1] != 0; }

 private:
  volatile int* flags_;
};

class CudaGraphReplay final : public GraphReplay {
 public:
  CudaGraphReplay(cudaGraphExec_t exec, cudaStream_t stream) : exec_(exec), stream_(stream) {}
  ~CudaGraphReplay() override { cudaGraphExecDestroy(exec_); }
  CudaGraphReplay(const CudaGraphReplay&) = delete;
  CudaGraphReplay& operator=(const CudaGraphReplay&) = delete;
  void launch() override { SPLITSTEP_CUDA_CHECK(cudaGraphLaunch(exec_, stream_)); }

 private:
  cudaGraphExec_t exec_;
  cudaStream_t stream_;
};

// nvidia-smi's form of a GPU's UUID: "GPU-" and the 16 bytes as 8-4-4-4-12 hex digits.
std::string formatUuid(const cudaUUID_t& uuid) {
  std::string text = "GPU-";
  for (std::size_t i = 0; i < sizeof(uuid.bytes); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    text += fmt::format("{:02x}", static_cast<unsigned char>(uuid.bytes[i]));
  }
  return text;
}

class CudaDevice final : public Device {
 public:
  CudaDevice(int index, Watchdog& watchdog) : index_(index), watchdog_(watchdog) {
    SPLITSTEP_CUDA_CHECK(cudaSetDevice(index));
    cudaDeviceProp properties{};
    SPLITSTEP_CUDA_CHECK(cudaGetDeviceProperties(&properties, index));
    name_ = properties.name;
    l2_bytes_ = static_cast<std::size_t>(properties.l2CacheSize);
    SPLITSTEP_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    uuid_ = formatUuid(properties.uuid);
    char pci_bus_id[32] = {};
    if (cudaDeviceGetPCIBusId(pci_bus_id, sizeof(pci_bus_id), index) == cudaSuccess) {
      pci_bus_id_ = pci_bus_id;
      nvml_ = NvmlGpu::open(pci_bus_id);
    }
  }
  ~CudaDevice() override {
    if (anchor_.event != nullptr) cudaEventDestroy(anchor_.event);
    if (hold_flags_ != nullptr) cudaFreeHost(const_cast<int*>(hold_flags_));
    if (flush_buffer_ != nullptr) cudaFree(flush_buffer_);
    cudaStreamDestroy(stream_);
  }
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  bool isCuda() const override { return true; }
  int index() const override { return index_; }
  std::string label() const override { return "cuda:" + std::to_string(index_); }
  std::string name() const override { return name_; }
  std::string pciBusId() const override { return pci_bus_id_; }
  std::string uuid() const override { return uuid_; }
  cudaStream_t stream() const override { return stream_; }
  std::unique_ptr<TimeMark> newMark(cudaStream_t stream) override {
    return std::make_unique<CudaEventMark>(stream, anchor_);
  }
  std::unique_ptr<IntervalTimer> newTimer() override {
    return std::make_unique<CudaEventTimer>(stream_, anchor_);
  }
  std::unique_ptr<IntervalTimer> newTimer(cudaStream_t stream) override {
    return std::make_unique<CudaEventTimer>(stream, anchor_);
  }
  void synchronize() override {
    cudaError_t state = cudaSuccess;
    watchdog_.waitUntil(
        [this, &state] {
          state = cudaStreamQuery(stream_);
          return state != cudaErrorNotReady;
        },
        "the GPU to finish queued work");
    SPLITSTEP_CUDA_CHECK(state);
  }
  std::string clockName() const override { return "device (CUDA events)"; }

  std::unique_ptr<StreamHold> holdStream(std::string&) override {
    if (hold_flags_ == nullptr) {
      int* flags = nullptr;
      SPLITSTEP_CUDA_CHECK(
          cudaHostAlloc(reinterpret_cast<void**>(&flags), 2 * sizeof(int), cudaHostAllocMapped));
      hold_flags_ = flags;
      int* device_flags = nullptr;
      SPLITSTEP_CUDA_CHECK(
          cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_flags), flags, 0));
      hold_device_flags_ = device_flags;
    }
    return std::make_unique<CudaStreamHold>(hold_flags_, hold_device_flags_, stream_);
  }

  // Writing a buffer twice the L2's size leaves none of the previous sample's data in it.
  bool flushCache(std::string&) override {
    if (flush_buffer_ == nullptr) SPLITSTEP_CUDA_CHECK(cudaMalloc(&flush_buffer_, 2 * l2_bytes_));
    SPLITSTEP_CUDA_CHECK(cudaMemsetAsync(flush_buffer_, 0, 2 * l2_bytes_, stream_));
    return true;
  }

  std::unique_ptr<GraphReplay> captureGraph(const std::function<void()>& body,
                                            std::string& why_not) override {
    SPLITSTEP_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    std::string failure;
    try {
      body();
    } catch (const std::exception& e) {
      failure = e.what();
    }
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(stream_, &graph);
    if (failure.empty() && ended != cudaSuccess) failure = cudaGetErrorString(ended);
    cudaGraphExec_t exec = nullptr;
    if (failure.empty()) {
      const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
      if (made != cudaSuccess) failure = cudaGetErrorString(made);
    }
    if (graph != nullptr) cudaGraphDestroy(graph);
    if (!failure.empty()) {
      cudaGetLastError();  // the failed capture's error is reported here, not by the next call
      why_not = "CUDA graph capture failed (" + failure + ")";
      return nullptr;
    }
    return std::make_unique<CudaGraphReplay>(exec, stream_);
  }

  std::optional<SmClock> smClock() override { return nvml_ ? nvml_->smClock() : std::nullopt; }

  void anchorClock() override {
    synchronize();
    if (anchor_.event == nullptr) SPLITSTEP_CUDA_CHECK(cudaEventCreate(&anchor_.event));
    SPLITSTEP_CUDA_CHECK(cudaEventRecord(anchor_.event, stream_));
    // The stream is idle, so the GPU records the event within microseconds of this return.
    anchor_.host = hostSeconds();
    anchor_.set = true;
  }

  std::vector<std::unique_ptr<TelemetrySource>> telemetrySources(
      std::string& why_not) const override {
    if (!nvml_) {
      why_not = "NVML cannot be loaded or does not know " + label();
      return {};
    }
    return nvml_->telemetrySources();
  }

 private:
  int index_;
  Watchdog& watchdog_;
  std::string name_;
  std::string pci_bus_id_;
  std::string uuid_;
  std::size_t l2_bytes_ = 0;
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<NvmlGpu> nvml_;
  CudaClockAnchor anchor_;
  volatile int* hold_flags_ = nullptr;
  volatile int* hold_device_flags_ = nullptr;
  void* flush_buffer_ = nullptr;
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
  std::string pciBusId() const override { return {}; }
  std::string uuid() const override { return {}; }
  cudaStream_t stream() const override { return nullptr; }
  std::unique_ptr<TimeMark> newMark(cudaStream_t) override { return std::make_unique<HostMark>(); }
  std::unique_ptr<IntervalTimer> newTimer() override { return std::make_unique<HostTimer>(); }
  std::unique_ptr<IntervalTimer> newTimer(cudaStream_t) override {
    return std::make_unique<HostTimer>();
  }
  void synchronize() override {}
  std::string clockName() const override { return "host (steady clock)"; }

  std::unique_ptr<StreamHold> holdStream(std::string& why_not) override {
    why_not = "queued start needs a CUDA device: CPU work runs as it is called";
    return nullptr;
  }
  bool flushCache(std::string& why_not) override {
    why_not = "cache flush is implemented for CUDA devices only";
    return false;
  }
  std::unique_ptr<GraphReplay> captureGraph(const std::function<void()>&,
                                            std::string& why_not) override {
    why_not = "CUDA graphs need a CUDA device";
    return nullptr;
  }
  std::optional<SmClock> smClock() override { return std::nullopt; }
  std::vector<std::unique_ptr<TelemetrySource>> telemetrySources(
      std::string& why_not) const override {
    why_not = "a CPU rank has no GPU to sample";
    return {};
  }
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

std::unique_ptr<Device> openDevice(const AssignedDevice& assigned, Watchdog& watchdog) {
  if (assigned.cuda) return std::make_unique<CudaDevice>(assigned.index, watchdog);
  return std::make_unique<CpuDevice>();
}

}  // namespace splitstep
