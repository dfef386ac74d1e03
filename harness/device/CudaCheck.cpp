#include "device/CudaCheck.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace splitstep {

void cudaCheck(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  throw std::runtime_error(fmt::format("{} failed at {}:{}: {} ({})", call, file, line,
                                       cudaGetErrorString(status), cudaGetErrorName(status)));
}

}  // namespace splitstep
