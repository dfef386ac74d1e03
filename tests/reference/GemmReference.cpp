// The plainest GEMM timing there is, to hold splitstep's matmul figures against: one CUDA
// event pair around `batch` back-to-back products on one stream, after a warm-up, no harness.
//   splitstep_gemm_reference [N=8192] [dtype=bf16|fp16|fp32] [batch=10] [repeats=5] [device=0]
// Prints each repeat and the median, in ms per product and TFLOP/s.
#include <ATen/ops/empty.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/randn.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 8192;
  const std::string dtype = argc > 2 ? argv[2] : "bf16";
  const int batch = argc > 3 ? std::atoi(argv[3]) : 10;
  const int repeats = argc > 4 ? std::atoi(argv[4]) : 5;
  const int device = argc > 5 ? std::atoi(argv[5]) : 0;
  const c10::ScalarType type = dtype == "fp32"   ? c10::ScalarType::Float
                               : dtype == "fp16" ? c10::ScalarType::Half
                                                 : c10::ScalarType::BFloat16;
  if (n < 1 || batch < 1 || repeats < 1) {
    std::fprintf(stderr, "usage: %s [N] [bf16|fp16|fp32] [batch] [repeats] [device]\n", argv[0]);
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

  const double flop =
      2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  std::vector<double> ms_per_product;
  for (int r = 0; r < repeats; ++r) {
    cudaEventRecord(start, stream);
    for (int i = 0; i < batch; ++i) at::mm_out(c, a, b);
    cudaEventRecord(stop, stream);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    const double per_product = static_cast<double>(ms) / batch;
    ms_per_product.push_back(per_product);
    std::printf("repeat %d: %.4f ms per product, %.1f TFLOP/s\n", r, per_product,
                flop / (per_product * 1e-3) / 1e12);
  }
  std::sort(ms_per_product.begin(), ms_per_product.end());
  const double median = ms_per_product[ms_per_product.size() / 2];
  std::printf(
      "reference %s n=%lld, %d back-to-back products per event pair: median %.4f ms, %.1f "
      "TFLOP/s\n",
      dtype.c_str(), static_cast<long long>(n), batch, median, flop / (median * 1e-3) / 1e12);
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) {
    std::fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(status));
    return 1;
  }
  return 0;
}
