// Data-parallel gradient averaging as PyTorch DDP does it: gradients packed into buckets
// (comm/GradientBuckets), each bucket allreduced on a communication stream apart from the
// working stream, either during backward as gradient hooks fill the buckets (overlap) or after
// it (sequential).
#pragma once

#include <ATen/core/Tensor.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "comm/Communicator.hpp"
#include "common/HostClock.hpp"
#include "device/Device.hpp"

namespace splitstep {

class GradientSync {
 public:
  // `parameters` in the model's registration order, fp32. The communicator spans all ranks.
  GradientSync(std::vector<at::Tensor> parameters, Communicator& comm, Device& device,
               std::size_t first_bucket_bytes, std::size_t bucket_bytes, int world_size);
  ~GradientSync();
  GradientSync(const GradientSync&) = delete;
  GradientSync& operator=(const GradientSync&) = delete;

  std::size_t bucketCount() const { return buckets_.size(); }
  std::size_t gradientBytes() const;
  // Bytes of each bucket, in launch order.
  std::vector<std::size_t> bucketBytes() const;

  // Overlap: the next backward's gradient hooks copy each gradient into its bucket and start a
  // bucket's allreduce as soon as it is full (buckets start in order, as on every rank).
  void armHooks();
  // After backward. Overlap: the working stream waits for the buckets the hooks started.
  // Sequential: packs every gradient now and reduces each bucket, and the working stream waits.
  // Either way the parameters' gradients then are the averaged slices of the buckets.
  void finish(bool overlapped);
  // Seconds of this step's collectives on the communication stream; once the device finished.
  double commSeconds() const;
  // Where each of this step's bucket collectives lay on the host's clock, in bucket order; once
  // the device finished (empty where the device cannot place them: IntervalTimer::hostSpan).
  std::vector<HostSpan> bucketSpans() const;
  // DDP's start: every rank takes rank 0's parameters.
  void broadcastParameters();

 private:
  struct Bucket {
    at::Tensor flat;
    std::vector<std::size_t> members;      // parameter indices
    std::size_t pending = 0;               // members whose gradient has not arrived this step
    std::unique_ptr<IntervalTimer> timer;  // on the communication stream
    cudaEvent_t filled = nullptr;          // on the working stream, once packed
  };

  void resetBuckets();
  void onGradient(std::size_t index, const at::Tensor& grad);
  void pack(std::size_t index, const at::Tensor& grad);
  void launchReady();
  void launch(Bucket& bucket);

  std::vector<at::Tensor> parameters_;
  std::vector<at::Tensor> slices_;      // per parameter: its view into its bucket
  std::vector<std::size_t> bucket_of_;  // per parameter
  std::vector<unsigned> hooks_;
  std::vector<Bucket> buckets_;
  Communicator& comm_;
  Device& device_;
  double scale_;                        // 1 / world size: DDP averages by dividing while packing
  cudaStream_t comm_stream_ = nullptr;  // nullptr on the CPU
  cudaEvent_t reduced_ = nullptr;
  std::size_t next_ = 0;  // the next bucket to launch; those before it were launched this step
  bool armed_ = false;
};

}  // namespace splitstep
