// Turns a failed CUDA runtime call into an exception naming the call, file and line.
#pragma once

#include <cuda_runtime_api.h>

namespace splitstep {

void cudaCheck(cudaError_t status, const char* call, const char* file, int line);

}  // namespace splitstep

#define SPLITSTEP_CUDA_CHECK(call) ::splitstep::cudaCheck((call), #call, __FILE__, __LINE__)
