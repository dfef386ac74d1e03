#include "suites/step/GradientSync.hpp"

#include <ATen/ops/empty.h>
#include <ATen/ops/mul.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <optional>
#include <stdexcept>

#include "comm/GradientBuckets.hpp"
#include "device/CudaCheck.hpp"

namespace splitstep {

GradientSync::GradientSync(std::vector<at::Tensor> parameters, Communicator& comm, Device& device,
                           std::size_t first_bucket_bytes, std::size_t bucket_bytes, int world_size)
    : parameters_(std::move(parameters)), comm_(comm), device_(device), scale_(1.0 / world_size) {
  if (device_.isCuda()) {
    // High priority, as a communication stream should be: its kernels are scheduled ahead of
    // the backward pass's when both wait.
    comm_stream_ =
        c10::cuda::getStreamFromPool(true, static_cast<c10::DeviceIndex>(device_.index())).stream();
    SPLITSTEP_CUDA_CHECK(cudaEventCreateWithFlags(&reduced_, cudaEventDisableTiming));
  }
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
    bucket.flat = at::empty({elements}, parameters_.front().options().requires_grad(false));
    std::int64_t offset = 0;
    for (std::size_t i : members) {
      slices_[i] =
          bucket.flat.narrow(0, offset, parameters_[i].numel()).view(parameters_[i].sizes());
      offset += parameters_[i].numel();
      bucket_of_[i] = buckets_.size() - 1;
    }
    bucket.members = members;
    bucket.timer = device_.newTimer(comm_stream_);
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

std::vector<std::size_t> GradientSync::bucketBytes() const {
  std::vector<std::size_t> bytes;
  for (const Bucket& bucket : buckets_) {
    bytes.push_back(static_cast<std::size_t>(bucket.flat.numel()) * sizeof(float));
  }
  return bytes;
}

std::size_t GradientSync::gradientBytes() const {
  std::size_t bytes = 0;
  for (const Bucket& bucket : buckets_)
    bytes += static_cast<std::size_t>(bucket.flat.numel()) * sizeof(float);
  return bytes;
}

void GradientSync::resetBuckets() {
  for (Bucket& bucket : buckets_) {
    bucket.pending = bucket.members.size();
  }
  next_ = 0;
}

void GradientSync::armHooks() {
  resetBuckets();
  armed_ = true;
}

void GradientSync::pack(std::size_t index, const at::Tensor& grad) {
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
  --bucket.pending;
  launchReady();
}

// Buckets start in bucket order on every rank, whatever order their gradients arrive in:
// the ranks' collective calls must match one for one.
void GradientSync::launchReady() {
  while (next_ < buckets_.size() && buckets_[next_].pending == 0) launch(buckets_[next_++]);
}

void GradientSync::launch(Bucket& bucket) {
  if (device_.isCuda()) {
    SPLITSTEP_CUDA_CHECK(cudaEventRecord(bucket.filled, device_.stream()));
    SPLITSTEP_CUDA_CHECK(cudaStreamWaitEvent(comm_stream_, bucket.filled, 0));
  }
  bucket.timer->start();
  comm_.run(allReduce(), bucket.flat.data_ptr(), bucket.flat.data_ptr(),
            static_cast<std::size_t>(bucket.flat.numel()), DataType::Float32, comm_stream_);
  bucket.timer->stop();
}

void GradientSync::finish(bool overlapped) {
  if (!overlapped) {
    resetBuckets();
    for (Bucket& bucket : buckets_) {
      for (std::size_t i : bucket.members) pack(i, parameters_[i].grad());
      bucket.pending = 0;
      launchReady();  // this bucket's allreduce runs while the next one is packed
    }
  }
  armed_ = false;
  if (next_ != buckets_.size()) {
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
  for (std::size_t b = 0; b < next_; ++b) seconds += buckets_[b].timer->seconds();
  return seconds;
}

std::vector<HostSpan> GradientSync::bucketSpans() const {
  std::vector<HostSpan> spans;
  for (std::size_t b = 0; b < next_; ++b) {
    const std::optional<HostSpan> span = buckets_[b].timer->hostSpan();
    if (!span) return {};
    spans.push_back(*span);
  }
  return spans;
}

void GradientSync::broadcastParameters() {
  for (const at::Tensor& p : parameters_) {
    comm_.run(broadcast(), p.data_ptr(), p.data_ptr(), static_cast<std::size_t>(p.numel()),
              DataType::Float32, device_.stream());
  }
  device_.synchronize();
}

}  // namespace splitstep
