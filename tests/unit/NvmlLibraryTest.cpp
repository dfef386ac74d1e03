#include "device/NvmlLibrary.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

namespace splitstep {
namespace {

// The test holds the fake NVML (FakeNvml.cpp) loaded itself, to read and set its counters
// before and after NvmlLibrary opens and closes it.
class NvmlLibraryOnAFake : public ::testing::Test {
 protected:
  void SetUp() override {
    handle_ = dlopen(SPLITSTEP_FAKE_NVML, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle_, nullptr) << dlerror();
    users_ = static_cast<int*>(dlsym(handle_, "fake_nvml_users"));
    init_result_ = static_cast<int*>(dlsym(handle_, "fake_nvml_init_result"));
    ASSERT_NE(users_, nullptr);
    ASSERT_NE(init_result_, nullptr);
  }
  void TearDown() override {
    if (init_result_ != nullptr) *init_result_ = NVML_SUCCESS;
    if (handle_ != nullptr) dlclose(handle_);
  }

  void* handle_ = nullptr;
  int* users_ = nullptr;
  int* init_result_ = nullptr;
};

TEST(NvmlLibrary, AMachineWithoutTheLibraryHasNone) {
  EXPECT_EQ(NvmlLibrary::open("libsplitstep-no-such-nvml.so.1"), nullptr);
}

TEST(NvmlLibrary, ALibraryThatIsNotNvmlIsRefused) {
  // The C library loads everywhere, and has no nvmlInit_v2.
  EXPECT_EQ(NvmlLibrary::open("libc.so.6"), nullptr);
}

TEST_F(NvmlLibraryOnAFake, IsInitialisedOnceAndShutDownWhenTheLastUserGoes) {
  auto first = NvmlLibrary::open(SPLITSTEP_FAKE_NVML);
  ASSERT_NE(first, nullptr);
  auto second = NvmlLibrary::open(SPLITSTEP_FAKE_NVML);
  EXPECT_EQ(first, second);
  EXPECT_EQ(*users_, 1);
  first.reset();
  EXPECT_EQ(*users_, 1);
  second.reset();
  EXPECT_EQ(*users_, 0);
  // Opened again after the last user went: initialised anew.
  const auto again = NvmlLibrary::open(SPLITSTEP_FAKE_NVML);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(*users_, 1);
}

TEST_F(NvmlLibraryOnAFake, AFailedInitialisationGivesNoLibrary) {
  *init_result_ = 999;  // NVML_ERROR_UNKNOWN
  EXPECT_EQ(NvmlLibrary::open(SPLITSTEP_FAKE_NVML), nullptr);
  EXPECT_EQ(*users_, 0);
  *init_result_ = NVML_SUCCESS;
  EXPECT_NE(NvmlLibrary::open(SPLITSTEP_FAKE_NVML), nullptr);
}

TEST_F(NvmlLibraryOnAFake, AFunctionTheDriverLacksBindsToNullptr) {
  const auto nvml = NvmlLibrary::open(SPLITSTEP_FAKE_NVML);
  ASSERT_NE(nvml, nullptr);
  EXPECT_EQ(nvml->symbol("nvmlDeviceGetCount_v2"), nullptr);
  NvmlReturn (*count)(unsigned*) = [](unsigned*) { return NVML_SUCCESS; };
  EXPECT_FALSE(nvml->bind("nvmlDeviceGetCount_v2", count));
  EXPECT_EQ(count, nullptr);
  NvmlReturn (*shutdown)() = nullptr;
  EXPECT_TRUE(nvml->bind("nvmlShutdown", shutdown));
  EXPECT_NE(shutdown, nullptr);
}

}  // namespace
}  // namespace splitstep
