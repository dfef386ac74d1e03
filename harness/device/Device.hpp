// The device a rank works on: a CUDA GPU with its working stream, or the host CPU.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/Watchdog.hpp"
#include "device/DeviceAssignment.hpp"
#include "measure/MeasureDevice.hpp"
#include "telemetry/TelemetrySampler.hpp"

namespace splitstep {

// A point on the timeline of one stream (a CUDA event), or of the host on the CPU: intervals
// between marks recorded on different streams of one device (a bucket packed on the working
// stream, reduced on the communication stream) come from two of them.
class TimeMark {
 public:
  virtual ~TimeMark() = default;
  virtual void record() = 0;
  // Seconds from `earlier` to this mark, both recorded by the same device, once it finished
  // both; negative when this one came first.
  virtual double secondsSince(const TimeMark& earlier) const = 0;
  // Where the mark lay on the host's steady clock, once the device finished it, for a mark
  // recorded after the device's latest MeasureDevice::anchorClock(); empty where the device
  // cannot tell.
  virtual std::optional<double> hostTime() const = 0;
};

class Device : public MeasureDevice {
 public:
  virtual bool isCuda() const = 0;
  virtual int index() const = 0;
  virtual std::string label() const = 0;  // "cuda:0" or "cpu"
  virtual std::string name() const = 0;   // "NVIDIA H200", or the CPU model
  // The physical GPU: its PCI bus id ("0000:19:00.0") and UUID ("GPU-…", nvidia-smi's form),
  // whatever number CUDA_VISIBLE_DEVICES gave it; empty on the CPU.
  virtual std::string pciBusId() const = 0;
  virtual std::string uuid() const = 0;
  // The stream all timed work of this rank is queued on; nullptr on the CPU.
  virtual cudaStream_t stream() const = 0;
  // A timer for work on another stream of this device (a step's gradient collectives); the CPU
  // ignores the stream and times with the host clock, as newTimer() does.
  virtual std::unique_ptr<IntervalTimer> newTimer(cudaStream_t stream) = 0;
  using MeasureDevice::newTimer;
  // What a TelemetrySampler reads on this device; empty, with the reason in `why_not`, where
  // there is nothing to read (a CPU, a GPU NVML does not know).
  virtual std::vector<std::unique_ptr<TelemetrySource>> telemetrySources(
      std::string& why_not) const = 0;
  // A mark on `stream` (the CPU ignores it and reads the host clock).
  virtual std::unique_ptr<TimeMark> newMark(cudaStream_t stream) = 0;
};

// CUDA devices this process can see; 0 where there is no GPU or no driver.
int visibleCudaDevices();

// Waits for the device (synchronize) run under `watchdog`: work that never finishes because a
// peer stalled ends in a TimeoutError rather than a hang.
std::unique_ptr<Device> openDevice(const AssignedDevice& assigned, Watchdog& watchdog);

}  // namespace splitstep
