#include "suites/MembwSuite.hpp"

#include <fmt/format.h>

#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cases/MembwCase.hpp"
#include "common/Units.hpp"
#include "device/CudaCheck.hpp"
#include "device/Memory.hpp"
#include "membw.cuh"
#include "suites/CaseRunner.hpp"

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

// Times `body`, counting `bytes_moved` (read + written) per execution.
void timeCase(CaseRunner& runner, const std::string& kind, std::uint64_t bytes, double bytes_moved,
              const std::function<void()>& body) {
  Sample& sample = runner.add(fmt::format("{} {}", kind, formatBytes(bytes)), kind,
                              MembwCase{kind, bytes}.encode());
  runner.measure(sample, body);
  sample.rates.push_back({"GB/s", bytes_moved, 1e9});
}

void skipCase(CaseRunner& runner, const std::string& kind, std::uint64_t bytes,
              const std::string& why) {
  CaseRunner::skip(runner.add(fmt::format("{} {}", kind, formatBytes(bytes)), kind,
                              MembwCase{kind, bytes}.encode()),
                   why);
}

// What each kind of case moves, in the order they run.
std::vector<std::string> kinds(bool on_gpu) {
  if (!on_gpu) {
    return {"copy", "triad", "h2d pinned", "h2d pageable", "d2h pinned", "d2h pageable"};
  }
  return {"copy",         "triad",      "memcpy d2d",  "h2d pinned",
          "h2d pageable", "d2h pinned", "d2h pageable"};
}

// On a GPU: three device arrays, then one device array with a pinned and a pageable host copy.
// On the CPU: three host arrays.
Footprint footprint(std::uint64_t bytes, bool on_gpu) {
  return on_gpu ? Footprint{3 * bytes, 2 * bytes} : Footprint{0, 3 * bytes};
}

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
    timeCase(runner, "copy", bytes, 2 * b,
             [&] { SPLITSTEP_CUDA_CHECK(kernels::streamCopy(pa, px, vectors, blocks, stream)); });
    timeCase(runner, "triad", bytes, 3 * b, [&] {
      SPLITSTEP_CUDA_CHECK(kernels::streamTriad(pa, px, py, kTriadScalar, vectors, blocks, stream));
    });
    timeCase(runner, "memcpy d2d", bytes, 2 * b, [&] {
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
    timeCase(runner, d.kind, bytes, b,
             [&] { SPLITSTEP_CUDA_CHECK(cudaMemcpyAsync(d.dst, d.src, bytes, d.how, stream)); });
  }
}

void runOnCpu(std::uint64_t bytes, CaseRunner& runner) {
  const std::size_t count = bytes / sizeof(float);
  std::vector<float> a(count, 1.0f);
  std::vector<float> x(count, 2.0f);
  std::vector<float> y(count, 3.0f);
  const auto b = static_cast<double>(bytes);
  timeCase(runner, "copy", bytes, 2 * b, [&] { std::memcpy(a.data(), x.data(), bytes); });
  timeCase(runner, "triad", bytes, 3 * b, [&] {
    for (std::size_t i = 0; i < count; ++i) a[i] = x[i] + kTriadScalar * y[i];
  });
  for (const char* kind : {"h2d pinned", "h2d pageable", "d2h pinned", "d2h pageable"}) {
    skipCase(runner, kind, bytes, "host<->device copies need a CUDA device");
  }
}

}  // namespace

std::optional<std::string> MembwSuite::refusal(const SuiteContext& context) const {
  std::optional<std::string> first;
  for (std::uint64_t bytes : plan_.bytes) {
    const auto why = context.budget.shortfall(footprint(bytes, context.device.isCuda()));
    if (!why) return std::nullopt;
    if (!first) first = fmt::format("{} per array {}", formatBytes(bytes), *why);
  }
  if (!first) return std::nullopt;
  return "--membw-bytes: no size fits on these ranks; " + *first;
}

void MembwSuite::run(const SuiteContext& context) {
  CaseRunner runner(context, "membw");
  for (std::uint64_t bytes : plan_.bytes) {
    if (const auto why = context.budget.shortfall(footprint(bytes, context.device.isCuda()))) {
      for (const std::string& kind : kinds(context.device.isCuda())) {
        skipCase(runner, kind, bytes, *why);
      }
    } else if (context.device.isCuda()) {
      runOnGpu(context, bytes, runner);
    } else {
      runOnCpu(bytes, runner);
    }
  }
  runner.finish();
}

const SuiteRegistration kMembwRegistration(kMembwSuite.name, [](const SuiteInfo&,
                                                                const RunPlan& plan) {
  return std::unique_ptr<Suite>(std::make_unique<MembwSuite>(plan.membw));
});

std::size_t MembwSuite::caseCount(const SuiteContext& context) const {
  // Per size: copy, triad, memcpy d2d and the four host<->device copies on a GPU (runOnGpu);
  // copy, triad and the four copies, skipped, on the CPU (runOnCpu).
  return plan_.bytes.size() * kinds(context.device.isCuda()).size();
}

}  // namespace splitstep
