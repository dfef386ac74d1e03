// The plainest GEMM timing there is, to hold splitstep's matmul figures against: one CUDA
// event pair around `batch` back-to-back products on one stream, after a warm-up, no harness.
// Batches repeat for `seconds`, so that the GPU reaches the same thermal and power state as a
// splitstep run of the same length (a sustained bf16 GEMM is held down by the power cap within
// tens of milliseconds on an H200).
//   splitstep_gemm_reference [N=8192] [dtype=bf16|fp16|fp32] [batch=10] [seconds=15] [device=0]
// Prints the first batch, the quartiles and the median, in ms per product and TFLOP/s.
#include <ATen/ops/empty.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/randn.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 8192;
  const std::string dtype = argc > 2 ? argv[2] : "bf16";
  const int batch = argc > 3 ? std::atoi(argv[3]) : 10;
  const double seconds = argc > 4 ? std::atof(argv[4]) : 15.0;
  const int device = argc > 5 ? std::atoi(argv[5]) : 0;
  const c10::ScalarType type = dtype == "fp32"   ? c10::ScalarType::Float
                               : dtype == "fp16" ? c10::ScalarType::Half
                                                 : c10::ScalarType::BFloat16;
  if (n < 1 || batch < 1 || seconds <= 0) {
    std::fprintf(stderr, "usage: %s [N] [bf16|fp16|fp32] [batch] [seconds] [device]\n", argv[0]);
    return 2;
  }
  c10::cuda::CUDAGuard guard(static_cast<c10::DeviceIndex>(device));
  const auto options = at::TensorOptions().dtype(type).device(c10::kCUDA, device);
  const at::Tensor a = at::randn({n, n}, options);
  const at::Tensor b = at::randn({n, n}, options);
  at::Tensor c = at::empty({n, n}, options);
  const cudaStream_t stream = c10::cuda::getCurrentCUDAStream().stream();
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int i = 0; i < batch; ++i) at::mm_out(c, a, b);
  cudaStreamSynchronize(stream);

  std::vector<double> ms_per_product;
  const auto begin = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count() <
         seconds) {
    cudaEventRecord(start, stream);
    for (int i = 0; i < batch; ++i) at::mm_out(c, a, b);
    cudaEventRecord(stop, stream);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    ms_per_product.push_back(static_cast<double>(ms) / batch);
  }
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) {
    std::fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(status));
    return 1;
  }
  const double flop =
      2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  auto tflops = [flop](double ms) { return flop / (ms * 1e-3) / 1e12; };
  const double first = ms_per_product.front();
  std::vector<double> sorted = ms_per_product;
  std::sort(sorted.begin(), sorted.end());
  auto at = [&sorted](double q) {
    return sorted[static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1))];
  };
  std::printf("reference %s n=%lld: %zu batches of %d back-to-back products in %.1f s\n",
              dtype.c_str(), static_cast<long long>(n), sorted.size(), batch, seconds);
  std::printf("  first batch %.4f ms (%.1f TFLOP/s); p25 %.4f ms, p75 %.4f ms\n", first,
              tflops(first), at(0.25), at(0.75));
  std::printf("  median %.4f ms per product, %.1f TFLOP/s\n", at(0.5), tflops(at(0.5)));
  return 0;
}
