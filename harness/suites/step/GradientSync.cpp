#include "suites/step/GradientSync.hpp"

#include <ATen/ops/mul.h>
#include <ATen/ops/zeros.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <optional>
#include <stdexcept>

#include "comm/GradientBuckets.hpp"
#include "device/CudaCheck.hpp"

namespace splitstep {
namespace {

// The faults that happen on every rank alike, rather than on one.
bool everyRanks(SyncFault fault) {
  return fault == SyncFault::DroppedBucket || fault == SyncFault::SumNotMean;
}

}  // namespace

GradientSync::GradientSync(std::vector<at::Tensor> parameters, Communicator& comm, Device& device,
                           std::size_t first_bucket_bytes, std::size_t bucket_bytes, int world_size,
                           SyncFault fault, bool faulty_rank)
    : parameters_(std::move(parameters)),
      comm_(comm),
      device_(device),
      scale_(fault == SyncFault::SumNotMean ? 1.0 : 1.0 / world_size),
      fault_(everyRanks(fault) || faulty_rank ? fault : SyncFault::None) {
  if (device_.isCuda()) {
    // High priority, as a communication stream should be: its kernels are scheduled ahead of
    // the backward pass's when both wait.
    comm_stream_ =
        c10::cuda::getStreamFromPool(true, static_cast<c10::DeviceIndex>(device_.index())).stream();
    SPLITSTEP_CUDA_CHECK(cudaEventCreateWithFlags(&reduced_, cudaEventDisableTiming));
  }
  backward_start_ = device_.newMark(device_.stream());
  backward_end_ = device_.newMark(device_.stream());
  sync_start_ = device_.newMark(device_.stream());
  sync_packed_ = device_.newMark(device_.stream());
  std::vector<std::size_t> bytes;
  for (const at::Tensor& p : parameters_) {
    if (p.scalar_type() != at::kFloat)
      throw std::invalid_argument("gradient sync needs fp32 parameters");
    bytes.push_back(static_cast<std::size_t>(p.numel()) * sizeof(float));
  }
  slices_.resize(parameters_.size());
  bucket_of_.resize(parameters_.size());
  for (const auto& members : assignBuckets(bytes, first_bucket_bytes, bucket_bytes)) {
    Bucket& bucket = buckets_.emplace_back();
    std::int64_t elements = 0;
    for (std::size_t i : members) elements += parameters_[i].numel();
    // Zeros: a bucket nothing was packed into holds no leftover memory's garbage.
    bucket.flat = at::zeros({elements}, parameters_.front().options().requires_grad(false));
    std::int64_t offset = 0;
    for (std::size_t i : members) {
      slices_[i] =
          bucket.flat.narrow(0, offset, parameters_[i].numel()).view(parameters_[i].sizes());
      offset += parameters_[i].numel();
      bucket_of_[i] = buckets_.size() - 1;
    }
    bucket.members = members;
    bucket.packed = device_.newMark(device_.stream());
    bucket.started = device_.newMark(comm_stream_);
    bucket.finished = device_.newMark(comm_stream_);
    if (device_.isCuda()) {
      SPLITSTEP_CUDA_CHECK(cudaEventCreateWithFlags(&bucket.filled, cudaEventDisableTiming));
    }
  }
  // Registered once and armed only for an overlapped backward: in the other modes they return
  // at once, so one model serves every mode.
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    hooks_.push_back(
        parameters_[i].register_hook([this, i](const at::Tensor& grad) { onGradient(i, grad); }));
  }
}

GradientSync::~GradientSync() {
  for (std::size_t i = 0; i < hooks_.size(); ++i) parameters_[i].remove_hook(hooks_[i]);
  // The buckets cross streams without record_stream: normally a step's end waits for their
  // collectives, but after an error one may still be writing into memory about to be freed.
  if (comm_stream_ != nullptr) cudaStreamSynchronize(comm_stream_);
  for (Bucket& bucket : buckets_) {
    if (bucket.filled != nullptr) cudaEventDestroy(bucket.filled);
  }
  if (reduced_ != nullptr) cudaEventDestroy(reduced_);
}

GradientSync::Untimed::Untimed(GradientSync* sync) : sync_(sync) {
  if (sync_ != nullptr) sync_->timed_ = false;
}

GradientSync::Untimed::~Untimed() {
  if (sync_ != nullptr) sync_->timed_ = true;
}

void GradientSync::mark(TimeMark& at) const {
  if (timed_) at.record();
}

std::vector<std::size_t> GradientSync::bucketBytes() const {
  std::vector<std::size_t> bytes;
  for (const Bucket& bucket : buckets_) {
    bytes.push_back(static_cast<std::size_t>(bucket.flat.numel()) * sizeof(float));
  }
  return bytes;
}

std::size_t GradientSync::gradientBytes() const {
  std::size_t bytes = 0;
  for (std::size_t b : bucketBytes()) bytes += b;
  return bytes;
}

void GradientSync::resetBuckets() {
  for (Bucket& bucket : buckets_) bucket.pending = bucket.members.size();
  next_ = 0;
  launched_ = 0;
}

void GradientSync::armHooks() {
  resetBuckets();
  armed_ = true;
}

void GradientSync::pack(std::size_t index, const at::Tensor& grad) {
  if (fault_ == SyncFault::StaleGradient && bucket_of_[index] == 0) return;
  // Backward may call hooks from its own thread, with another current stream: packing is
  // queued on the working stream, where the gradient was computed.
  std::optional<c10::cuda::CUDAStreamGuard> guard;
  if (device_.isCuda()) {
    guard.emplace(c10::cuda::getStreamFromExternal(device_.stream(),
                                                   static_cast<c10::DeviceIndex>(device_.index())));
  }
  at::mul_out(slices_[index], grad, scale_);
}

void GradientSync::onGradient(std::size_t index, const at::Tensor& grad) {
  if (!armed_) return;
  pack(index, grad);
  Bucket& bucket = buckets_[bucket_of_[index]];
  if (--bucket.pending == 0) mark(*bucket.packed);
  launchReady();
}

// Buckets start in bucket order on every rank, whatever order their gradients arrive in:
// the ranks' collective calls must match one for one.
void GradientSync::launchReady() {
  if (fault_ == SyncFault::ReorderedBuckets) {
    // The fault: this rank waits for every bucket and starts them last first.
    for (const Bucket& bucket : buckets_) {
      if (bucket.pending != 0) return;
    }
    for (std::size_t b = buckets_.size(); b-- > 0;) launch(buckets_[b]);
    next_ = buckets_.size();
    return;
  }
  while (next_ < buckets_.size() && buckets_[next_].pending == 0) launch(buckets_[next_++]);
}

void GradientSync::launch(Bucket& bucket) {
  if (device_.isCuda()) {
    SPLITSTEP_CUDA_CHECK(cudaEventRecord(bucket.filled, device_.stream()));
    SPLITSTEP_CUDA_CHECK(cudaStreamWaitEvent(comm_stream_, bucket.filled, 0));
  }
  mark(*bucket.started);
  const bool dropped = fault_ == SyncFault::DroppedBucket && &bucket == &buckets_.back();
  if (!dropped) {
    comm_.run(allReduce(), bucket.flat.data_ptr(), bucket.flat.data_ptr(),
              static_cast<std::size_t>(bucket.flat.numel()), DataType::Float32, comm_stream_);
  }
  mark(*bucket.finished);
  ++launched_;
}

void GradientSync::finish(bool overlapped) {
  overlapped_ = overlapped;
  mark(*sync_start_);
  if (!overlapped) {
    resetBuckets();
    for (Bucket& bucket : buckets_) {
      for (std::size_t i : bucket.members) pack(i, parameters_[i].grad());
      bucket.pending = 0;
      mark(*bucket.packed);
      launchReady();  // this bucket's allreduce runs while the next one is packed
    }
  }
  mark(*sync_packed_);
  armed_ = false;
  if (launched_ != buckets_.size()) {
    throw std::logic_error("a parameter received no gradient in backward; its bucket never filled");
  }
  if (device_.isCuda()) {
    SPLITSTEP_CUDA_CHECK(cudaEventRecord(reduced_, comm_stream_));
    SPLITSTEP_CUDA_CHECK(cudaStreamWaitEvent(device_.stream(), reduced_, 0));
  }
  // As DDP with gradient_as_bucket_view: the optimizer reads the averaged buckets in place.
  for (std::size_t i = 0; i < parameters_.size(); ++i) parameters_[i].mutable_grad() = slices_[i];
}

double GradientSync::commSeconds() const {
  double seconds = 0;
  for (const BucketTiming& t : bucketTimings()) seconds += t.comm;
  return seconds;
}

std::vector<HostSpan> GradientSync::bucketSpans() const {
  std::vector<HostSpan> spans;
  for (const Bucket& bucket : buckets_) {
    const std::optional<double> start = bucket.started->hostTime();
    const std::optional<double> end = bucket.finished->hostTime();
    if (!start || !end) return {};
    spans.push_back({*start, *end});
  }
  return spans;
}

double GradientSync::packingSeconds() const {
  return overlapped_ ? 0 : sync_packed_->secondsSince(*sync_start_);
}

std::vector<BucketTiming> GradientSync::bucketTimings() const {
  std::vector<BucketTiming> timings;
  for (const Bucket& bucket : buckets_) {
    timings.push_back({bucket.packed->secondsSince(*backward_start_),
                       bucket.started->secondsSince(*bucket.packed),
                       bucket.finished->secondsSince(*bucket.started),
                       bucket.finished->secondsSince(*backward_end_)});
  }
  return timings;
}

void broadcastParameters(const std::vector<at::Tensor>& parameters, Communicator& comm,
                         Device& device) {
  for (const at::Tensor& p : parameters) {
    comm.run(broadcast(), p.data_ptr(), p.data_ptr(), static_cast<std::size_t>(p.numel()),
             DataType::Float32, device.stream());
  }
  device.synchronize();
}

void GradientSync::broadcastParameters() {
  splitstep::broadcastParameters(parameters_, comm_, device_);
}

}  // namespace splitstep
