// Data-parallel gradient averaging as PyTorch DDP does it: gradients packed into buckets
// (comm/GradientBuckets), each bucket allreduced on a communication stream apart from the
// working stream, either during backward as gradient hooks fill the buckets (overlap) or after
// it (sequential). Every bucket's timeline is marked, for the ledger of the step report.
#pragma once

#include <ATen/core/Tensor.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "comm/Communicator.hpp"
#include "common/HostClock.hpp"
#include "device/Device.hpp"
#include "options/StepPlan.hpp"

namespace splitstep {

// One bucket in one step, in seconds.
struct BucketTiming {
  double ready = 0;                  // its last gradient packed, from the start of backward
  double launch_delay = 0;           // from packed to its collective starting
  double comm = 0;                   // its collective
  double finish_after_backward = 0;  // its collective's end, from the end of backward
};

// DDP's start: every rank takes rank 0's `parameters` (fp32), in place. Collective over the
// ranks of `comm`; returns once the device has them.
void broadcastParameters(const std::vector<at::Tensor>& parameters, Communicator& comm,
                         Device& device);

class GradientSync {
 public:
  // `parameters` in the model's registration order, fp32. The communicator spans all ranks.
  // `fault` is a test's deliberate sync fault (SyncFault::None otherwise), applied on this rank
  // when `faulty_rank` or when the fault is every rank's.
  GradientSync(std::vector<at::Tensor> parameters, Communicator& comm, Device& device,
               std::size_t first_bucket_bytes, std::size_t bucket_bytes, int world_size,
               SyncFault fault = SyncFault::None, bool faulty_rank = false);
  ~GradientSync();
  GradientSync(const GradientSync&) = delete;
  GradientSync& operator=(const GradientSync&) = delete;

  // While one lives, the sync's steps record no timing marks: a mark recorded inside a CUDA
  // graph's capture belongs to the graph, and no time can be read from it (GraphedStep).
  class Untimed {
   public:
    explicit Untimed(GradientSync* sync);  // nullptr: no sync, nothing to leave out
    ~Untimed();
    Untimed(const Untimed&) = delete;
    Untimed& operator=(const Untimed&) = delete;

   private:
    GradientSync* sync_;
  };

  std::size_t bucketCount() const { return buckets_.size(); }
  std::size_t gradientBytes() const;
  // Bytes of each bucket, in launch order.
  std::vector<std::size_t> bucketBytes() const;

  // Marks on the working stream around this step's backward, which the ledger is relative to.
  void markBackwardStart() { backward_start_->record(); }
  void markBackwardEnd() { backward_end_->record(); }
  // Overlap: the next backward's gradient hooks copy each gradient into its bucket and start a
  // bucket's allreduce as soon as it is full (buckets start in order, as on every rank).
  void armHooks();
  // After backward. Overlap: the working stream waits for the buckets the hooks started.
  // Sequential: packs every gradient now and reduces each bucket, and the working stream waits.
  // Either way the parameters' gradients then are the averaged slices of the buckets.
  void finish(bool overlapped);

  // Of the step just run, once the device finished it: the collectives' seconds on the
  // communication stream; the seconds finish() spent packing gradients on the working stream
  // (0 with overlap, where packing happens inside backward); each bucket's timeline.
  double commSeconds() const;
  double packingSeconds() const;
  std::vector<BucketTiming> bucketTimings() const;
  // Where each bucket's collective lay on the host's clock, in bucket order (empty where the
  // device cannot place them: TimeMark::hostTime).
  std::vector<HostSpan> bucketSpans() const;

  // DDP's start: every rank takes rank 0's parameters (the free function, on this sync's).
  void broadcastParameters();

 private:
  struct Bucket {
    at::Tensor flat;
    std::vector<std::size_t> members;    // parameter indices
    std::size_t pending = 0;             // members whose gradient has not arrived this step
    cudaEvent_t filled = nullptr;        // on the working stream, once packed: the comm waits
    std::unique_ptr<TimeMark> packed;    // on the working stream
    std::unique_ptr<TimeMark> started;   // on the communication stream
    std::unique_ptr<TimeMark> finished;  // on the communication stream
  };

  void mark(TimeMark& at) const;
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
  SyncFault fault_;                     // this rank's deliberate fault (tests only)
  cudaStream_t comm_stream_ = nullptr;  // nullptr on the CPU
  cudaEvent_t reduced_ = nullptr;
  std::unique_ptr<TimeMark> backward_start_;
  std::unique_ptr<TimeMark> backward_end_;
  std::unique_ptr<TimeMark> sync_start_;
  std::unique_ptr<TimeMark> sync_packed_;
  std::size_t next_ = 0;  // the next bucket to launch; those before it were launched this step
  std::size_t launched_ = 0;
  bool armed_ = false;
  bool timed_ = true;
  bool overlapped_ = false;
};

}  // namespace splitstep
