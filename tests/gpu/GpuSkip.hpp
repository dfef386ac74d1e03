// CUDA cases skip, visibly, where no GPU is visible.
#pragma once

#include <gtest/gtest.h>

#include "device/Device.hpp"

#define SPLITSTEP_REQUIRE_GPU()                                                           \
  do {                                                                                    \
    if (::splitstep::visibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible"; \
  } while (0)
