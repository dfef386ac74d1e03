#include "device/FreeMemory.hpp"

#include <gtest/gtest.h>

namespace splitstep {
namespace {

TEST(FreeMemory, MemAvailableIsReadInKibibytes) {
  EXPECT_EQ(parseMemAvailable("MemTotal:       32768000 kB\nMemFree:         1000 kB\n"
                              "MemAvailable:   16384000 kB\nBuffers: 1 kB\n"),
            16384000ull * 1024);
  EXPECT_EQ(parseMemAvailable("MemTotal: 32768000 kB\n"), std::nullopt);  // old kernels
  EXPECT_EQ(parseMemAvailable("MemAvailable: lots\n"), std::nullopt);
  // This host's, whatever it is, is a positive number where /proc/meminfo has it.
  if (const auto available = availableHostMemory()) {
    EXPECT_GT(*available, 0u);
  }
}

}  // namespace
}  // namespace splitstep
