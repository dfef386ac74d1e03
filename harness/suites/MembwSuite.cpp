#include "suites/MembwSuite.hpp"

#include <fmt/format.h>

#include <cstring>
#include <functional>
#include <memory>

#include "common/Units.hpp"
#include "device/CudaCheck.hpp"
#include "device/Memory.hpp"
#include "measure/Measurer.hpp"
#include "membw.cuh"

namespace splitstep {
namespace {

constexpr float kTriadScalar = 3.0f;

// Non-zero contents: a bandwidth test should move the kind of data real work moves.
Memory filledBuffer(MemoryKind kind, std::size_t bytes) {
  Memory memory = allocate(kind, bytes);
  if (kind == MemoryKind::Device) {
    SPLITSTEP_CUDA_CHECK(cudaMemset(memory.get(), 0x3f, bytes));
  } else {
    std::memset(memory.get(), 0x3f, bytes);
  }
  return memory;
}

// Enough resident blocks to keep every SM's memory pipeline busy.
unsigned streamingBlocks(int device) {
  int sms = 0;
  SPLITSTEP_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return static_cast<unsigned>(sms) * 8;
}

class CaseRunner {
 public:
  CaseRunner(const SuiteContext& context, std::vector<Sample>& samples)
      : context_(context),
        samples_(samples),
        measurer_(context.device, context.agreement, context.measure) {}

  // Times `body`, counting `bytes_moved` (read + written) per execution.
  void run(const std::string& kind, std::uint64_t bytes, double bytes_moved,
           const std::function<void()>& body) {
    Sample& sample = start(kind, bytes);
    sample.measurement = measurer_.measure(body);
    sample.rates.push_back({"GB/s", bytes_moved, 1e9});
  }

  void skip(const std::string& kind, std::uint64_t bytes, const std::string& why) {
    Sample& sample = start(kind, bytes);
    sample.notes.push_back("skipped: " + why);
  }

 private:
  Sample& start(const std::string& kind, std::uint64_t bytes) {
    Sample& sample = samples_.emplace_back();
    sample.suite = "membw";
    sample.case_name = fmt::format("{} {}", kind, formatBytes(bytes));
    sample.series = kind;
    sample.params = {{"kind", kind}, {"bytes", std::to_string(bytes)}};
    sample.measurement.clock = context_.device.clockName();
    return sample;
  }

  const SuiteContext& context_;
  std::vector<Sample>& samples_;
  Measurer measurer_;
};

void runOnGpu(const SuiteContext& context, std::uint64_t bytes, CaseRunner& runner) {
  const cudaStream_t stream = context.device.stream();
  const unsigned blocks = streamingBlocks(context.device.index());
  const std::size_t vectors = bytes / sizeof(float4);
  const auto b = static_cast<double>(bytes);
  {
    const Memory a = filledBuffer(MemoryKind::Device, bytes);
    const Memory x = filledBuffer(MemoryKind::Device, bytes);
    const Memory y = filledBuffer(MemoryKind::Device, bytes);
    auto* pa = static_cast<float4*>(a.get());
    const auto* px = static_cast<const float4*>(x.get());
    const auto* py = static_cast<const float4*>(y.get());
    runner.run("copy", bytes, 2 * b,
               [&] { SPLITSTEP_CUDA_CHECK(kernels::streamCopy(pa, px, vectors, blocks, stream)); });
    runner.run("triad", bytes, 3 * b, [&] {
      SPLITSTEP_CUDA_CHECK(kernels::streamTriad(pa, px, py, kTriadScalar, vectors, blocks, stream));
    });
    runner.run("memcpy d2d", bytes, 2 * b, [&] {
      SPLITSTEP_CUDA_CHECK(cudaMemcpyAsync(pa, px, bytes, cudaMemcpyDeviceToDevice, stream));
    });
  }
  const Memory device = filledBuffer(MemoryKind::Device, bytes);
  const Memory pinned = filledBuffer(MemoryKind::Pinned, bytes);
  std::vector<char> pageable(bytes, 0x3f);
  struct Direction {
    const char* kind;
    void* dst;
    const void* src;
    cudaMemcpyKind how;
  };
  for (const Direction& d :
       {Direction{"h2d pinned", device.get(), pinned.get(), cudaMemcpyHostToDevice},
        Direction{"h2d pageable", device.get(), pageable.data(), cudaMemcpyHostToDevice},
        Direction{"d2h pinned", pinned.get(), device.get(), cudaMemcpyDeviceToHost},
        Direction{"d2h pageable", pageable.data(), device.get(), cudaMemcpyDeviceToHost}}) {
    runner.run(d.kind, bytes, b,
               [&] { SPLITSTEP_CUDA_CHECK(cudaMemcpyAsync(d.dst, d.src, bytes, d.how, stream)); });
  }
}

void runOnCpu(std::uint64_t bytes, CaseRunner& runner) {
  const std::size_t count = bytes / sizeof(float);
  std::vector<float> a(count, 1.0f);
  std::vector<float> x(count, 2.0f);
  std::vector<float> y(count, 3.0f);
  const auto b = static_cast<double>(bytes);
  runner.run("copy", bytes, 2 * b, [&] { std::memcpy(a.data(), x.data(), bytes); });
  runner.run("triad", bytes, 3 * b, [&] {
    for (std::size_t i = 0; i < count; ++i) a[i] = x[i] + kTriadScalar * y[i];
  });
  for (const char* kind : {"h2d pinned", "h2d pageable", "d2h pinned", "d2h pageable"}) {
    runner.skip(kind, bytes, "host<->device copies need a CUDA device");
  }
}

}  // namespace

std::vector<Sample> MembwSuite::run(const SuiteContext& context) {
  std::vector<Sample> samples;
  CaseRunner runner(context, samples);
  for (std::uint64_t bytes : plan_.bytes) {
    if (context.device.isCuda()) {
      runOnGpu(context, bytes, runner);
    } else {
      runOnCpu(bytes, runner);
    }
  }
  return samples;
}

}  // namespace splitstep
