#include "suites/MembwSuite.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cases/MembwCase.hpp"
#include "cases/Rates.hpp"
#include "common/Units.hpp"
#include "device/CudaCheck.hpp"
#include "device/Memory.hpp"
#include "membw.cuh"
#include "suites/CaseRunner.hpp"
#include "suites/MembwSpace.hpp"

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

// One size's cases, reported in the space's order: each that whyNot lets run is timed with the
// body the size's arrays give its kind; the others are skipped with their reason.
class SizeCases {
 public:
  SizeCases(CaseRunner& runner, const MembwSpace& space, std::span<const MembwCase> cases)
      : runner_(runner), space_(space), cases_(cases) {}

  // Skips the cases before `kind` that cannot run, then times `kind`'s, counting `bytes_moved`
  // (read + written) per execution of `body`.
  void time(std::string_view kind, double bytes_moved, const std::function<void()>& body) {
    skipUntil(kind);
    if (next_ == cases_.size()) throw std::logic_error(fmt::format("membw: no {} case", kind));
    const MembwCase& c = cases_[next_++];
    Sample& sample = runner_.add(MembwSpace::name(c), c.kind, c.encode());
    if (const auto skip = space_.whyNot(c)) {
      CaseRunner::skip(sample, skip->reason);
      return;
    }
    runner_.measure(sample, body);
    sample.rates.push_back(rates::of(rates::kMemoryBandwidth, bytes_moved));
  }

  // Skips the cases left.
  void finish() { skipUntil({}); }

 private:
  void skipUntil(std::string_view kind) {
    for (; next_ < cases_.size() && cases_[next_].kind != kind; ++next_) {
      const MembwCase& c = cases_[next_];
      const auto skip = space_.whyNot(c);
      if (!skip) throw std::logic_error("membw: nothing here times " + MembwSpace::name(c));
      CaseRunner::skip(runner_.add(MembwSpace::name(c), c.kind, c.encode()), skip->reason);
    }
  }

  CaseRunner& runner_;
  const MembwSpace& space_;
  std::span<const MembwCase> cases_;
  std::size_t next_ = 0;
};

void runOnGpu(const SuiteContext& context, std::uint64_t bytes, SizeCases& cases) {
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
    cases.time("copy", 2 * b,
               [&] { SPLITSTEP_CUDA_CHECK(kernels::streamCopy(pa, px, vectors, blocks, stream)); });
    cases.time("triad", 3 * b, [&] {
      SPLITSTEP_CUDA_CHECK(kernels::streamTriad(pa, px, py, kTriadScalar, vectors, blocks, stream));
    });
    cases.time("memcpy d2d", 2 * b, [&] {
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
    cases.time(d.kind, b,
               [&] { SPLITSTEP_CUDA_CHECK(cudaMemcpyAsync(d.dst, d.src, bytes, d.how, stream)); });
  }
}

void runOnCpu(std::uint64_t bytes, SizeCases& cases) {
  const std::size_t count = bytes / sizeof(float);
  std::vector<float> a(count, 1.0f);
  std::vector<float> x(count, 2.0f);
  std::vector<float> y(count, 3.0f);
  const auto b = static_cast<double>(bytes);
  cases.time("copy", 2 * b, [&] { std::memcpy(a.data(), x.data(), bytes); });
  cases.time("triad", 3 * b, [&] {
    for (std::size_t i = 0; i < count; ++i) a[i] = x[i] + kTriadScalar * y[i];
  });
}

}  // namespace

MembwSpace MembwSuite::space(const SuiteContext& context) const {
  return MembwSpace(plan_, context.device.isCuda(), context.budget);
}

std::optional<std::string> MembwSuite::refusal(const SuiteContext& context) const {
  return space(context).refusal();
}

std::size_t MembwSuite::caseCount(const SuiteContext& context) const {
  return space(context).size();
}

void MembwSuite::run(const SuiteContext& context) {
  const MembwSpace membw = space(context);
  CaseRunner runner(context, "membw");
  for (const std::span<const MembwCase> size : membw.sizes()) {
    SizeCases cases(runner, membw, size);
    // Nothing is allocated for a size none of whose cases can run.
    if (std::any_of(size.begin(), size.end(),
                    [&](const MembwCase& c) { return !membw.whyNot(c); })) {
      if (context.device.isCuda()) {
        runOnGpu(context, size.front().bytes, cases);
      } else {
        runOnCpu(size.front().bytes, cases);
      }
    }
    cases.finish();
  }
  runner.finish();
}

const SuiteRegistration kMembwRegistration(kMembwSuite.name, [](const SuiteInfo&,
                                                                const RunPlan& plan) {
  return std::unique_ptr<Suite>(std::make_unique<MembwSuite>(plan.membw));
});

}  // namespace splitstep
