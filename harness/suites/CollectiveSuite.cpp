#include "suites/CollectiveSuite.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "comm/CollectiveLayout.hpp"
#include "common/Units.hpp"
#include "device/CudaCheck.hpp"
#include "device/Memory.hpp"
#include "pattern.cuh"
#include "suites/CaseRunner.hpp"

namespace splitstep {
namespace {

DataType toDataType(CollectiveDtype dtype) {
  switch (dtype) {
    case CollectiveDtype::Fp32:
      return DataType::Float32;
    case CollectiveDtype::Bf16:
      return DataType::BFloat16;
    case CollectiveDtype::Fp16:
      return DataType::Float16;
  }
  throw std::invalid_argument("unknown dtype");
}

kernels::PatternType toPattern(DataType type) {
  switch (type) {
    case DataType::Float32:
      return kernels::PatternType::Float32;
    case DataType::BFloat16:
      return kernels::PatternType::BFloat16;
    case DataType::Float16:
      return kernels::PatternType::Float16;
  }
  throw std::invalid_argument("unknown dtype");
}

// Sums of the check pattern are exact in fp32; in bf16 (8 significant bits) and fp16 (11) they
// round once past 256 and 2048, by at most half a unit in the last place.
float tolerance(DataType type) {
  switch (type) {
    case DataType::Float32:
      return 0.0f;
    case DataType::BFloat16:
      return 1.0f / 256;
    case DataType::Float16:
      return 1.0f / 2048;
  }
  return 0.0f;
}

class CollectiveCase {
 public:
  CollectiveCase(const SuiteContext& context, const CollectiveDescriptor& collective,
                 Communicator& comm, DataType type, bool in_place, const CollectiveLayout& layout)
      : context_(context),
        collective_(collective),
        comm_(comm),
        type_(type),
        in_place_(in_place),
        layout_(layout),
        element_(elementBytes(type)),
        // One allocation; the send and receive buffers point into it.
        memory_(allocate(comm.usesDeviceBuffers() ? MemoryKind::Device : MemoryKind::Host,
                         layout.allocation(in_place) * element_)) {
    auto* base = static_cast<std::byte*>(memory_.get());
    if (in_place_) {
      send_ = base + layout_.send_offset_in_place * element_;
      recv_ = base + layout_.recv_offset_in_place * element_;
    } else {
      send_ = base;
      recv_ = base + layout_.send * element_;
    }
  }

  void fill() {
    const auto pattern = toPattern(type_);
    if (comm_.usesDeviceBuffers()) {
      SPLITSTEP_CUDA_CHECK(kernels::fillPattern(send_, layout_.send, pattern, context_.rank,
                                                context_.device.stream()));
    } else {
      kernels::fillPatternOnHost(send_, layout_.send, pattern, context_.rank);
    }
  }

  void runOnce() {
    comm_.run(collective_, send_, recv_, layout_.call_count, type_, context_.device.stream());
  }

  // Fills, runs once untimed, and counts wrong elements of this rank's result.
  Check check() {
    fill();
    runOnce();
    context_.device.synchronize();
    if (collective_.result_at_root_only && context_.rank != 0) return {"pattern", 0, 0};
    const auto spec = collective_.expect(layout_, context_.rank, context_.world_size);
    const auto pattern = toPattern(type_);
    std::uint64_t wrong = 0;
    if (comm_.usesDeviceBuffers()) {
      const Memory memory = allocate(MemoryKind::Device, sizeof(unsigned long long));
      auto* counter = static_cast<unsigned long long*>(memory.get());
      const cudaStream_t stream = context_.device.stream();
      SPLITSTEP_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(*counter), stream));
      SPLITSTEP_CUDA_CHECK(kernels::countMismatches(recv_, layout_.recv, pattern, spec,
                                                    tolerance(type_), counter, stream));
      unsigned long long host = 0;
      SPLITSTEP_CUDA_CHECK(
          cudaMemcpyAsync(&host, counter, sizeof(host), cudaMemcpyDeviceToHost, stream));
      context_.device.synchronize();
      wrong = host;
    } else {
      wrong = kernels::countMismatchesOnHost(recv_, layout_.recv, pattern, spec, tolerance(type_));
    }
    return {"pattern", layout_.recv, wrong};
  }

 private:
  const SuiteContext& context_;
  const CollectiveDescriptor& collective_;
  Communicator& comm_;
  DataType type_;
  bool in_place_;
  CollectiveLayout layout_;
  std::size_t element_;
  Memory memory_;
  std::byte* send_ = nullptr;
  std::byte* recv_ = nullptr;
};

// The largest allocation any rank makes for a call (a root may hold more): every rank decides
// from the same figure.
std::size_t largestAllocation(const CollectiveDescriptor& collective, std::uint64_t size,
                              std::size_t element, int world_size, bool in_place) {
  std::size_t largest = 0;
  for (int r = 0; r < world_size; ++r) {
    largest =
        std::max(largest, layoutFor(collective, size, element, world_size, r).allocation(in_place));
  }
  return largest * element;
}

// Why a call of `layout` on `comm` is beyond a limit: more elements than the backend counts, or
// buffers larger than the agreed budget; empty when it is within them.
std::optional<std::string> beyondLimits(const CollectiveLayout& layout, std::size_t bytes,
                                        const Communicator& comm, const MemoryBudget& budget) {
  if (layout.call_count > comm.maxCount()) {
    return fmt::format("{} elements per call, more than {} counts in one call ({})",
                       layout.call_count, comm.backend(), comm.maxCount());
  }
  const Footprint need = comm.usesDeviceBuffers() ? Footprint{bytes, 0} : Footprint{0, bytes};
  if (auto why = budget.shortfall(need)) return "buffers " + *why;
  return std::nullopt;
}

// Collective: whether every rank has `bytes` of device memory to spare.
bool fitsEverywhere(const SuiteContext& context, bool on_device, std::size_t bytes) {
  bool fits = true;
  if (on_device) {
    std::size_t free = 0;
    std::size_t total = 0;
    SPLITSTEP_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    fits = static_cast<double>(bytes) <= MemoryBudget::kUsable * static_cast<double>(free);
  }
  return context.agreement.maxOverRanks(fits ? 0 : 1) == 0;
}

}  // namespace

std::optional<std::string> CollectiveSuite::refusal(const SuiteContext& context) const {
  std::optional<std::string> first_limit;
  for (CollectiveDtype dtype : plan_.dtypes) {
    const DataType type = toDataType(dtype);
    for (Placement placement : plan_.placements) {
      const bool in_place = placement == Placement::InPlace;
      for (std::uint64_t size : plan_.bytes) {
        const CollectiveLayout layout =
            layoutFor(collective_, size, elementBytes(type), context.world_size, context.rank);
        const std::size_t bytes =
            largestAllocation(collective_, size, elementBytes(type), context.world_size, in_place);
        for (const Communicator* comm : context.communicators) {
          std::string why_not;
          if (layout.count == 0 || !comm->supports(collective_, type, in_place, why_not)) continue;
          const auto limit = beyondLimits(layout, bytes, *comm, context.budget);
          if (!limit) return std::nullopt;  // this case can run
          if (!first_limit) {
            first_limit = fmt::format("{} {} {}: {}", comm->backend(), toString(dtype),
                                      formatBytes(size), *limit);
          }
        }
      }
    }
  }
  if (!first_limit) return std::nullopt;  // nothing was beyond a limit: the skips say why
  return fmt::format("--bytes: no {} case fits on these ranks; {}", name(), *first_limit);
}

void CollectiveSuite::run(const SuiteContext& context) {
  MeasureSettings settings = context.measure;
  settings.align_ranks = true;
  const std::optional<double> bus_factor = busBandwidthFactor(collective_, context.world_size);
  // Host buffers are timed with the host clock: the call is complete when it returns.
  const std::unique_ptr<Device> host_clock = openDevice({false, 0}, context.watchdog);
  CaseRunner runner(context, name());
  for (CollectiveDtype dtype : plan_.dtypes) {
    const DataType type = toDataType(dtype);
    for (Placement placement : plan_.placements) {
      const bool in_place = placement == Placement::InPlace;
      for (std::uint64_t size : plan_.bytes) {
        const CollectiveLayout layout =
            layoutFor(collective_, size, elementBytes(type), context.world_size, context.rank);
        const std::size_t bytes_needed =
            largestAllocation(collective_, size, elementBytes(type), context.world_size, in_place);
        for (Communicator* comm : context.communicators) {
          Device& timer = comm->usesDeviceBuffers() ? context.device : *host_clock;
          Sample& sample = runner.add(fmt::format("{} {} {}{}", comm->backend(), toString(dtype),
                                                  formatBytes(size), in_place ? " in place" : ""),
                                      name(),
                                      {{"backend", comm->backend()},
                                       {"dtype", std::string(toString(dtype))},
                                       {"size", std::to_string(size)},
                                       {"bytes", std::to_string(layout.bytes)},
                                       {"count", std::to_string(layout.count)},
                                       {"placement", in_place ? "in place" : "out of place"},
                                       {"buffers", comm->usesDeviceBuffers() ? "device" : "host"}},
                                      &timer);
          std::string why_not;
          if (layout.count == 0) {
            CaseRunner::skip(sample, "too small for one element per rank");
            continue;
          }
          if (!comm->supports(collective_, type, in_place, why_not)) {
            CaseRunner::skip(sample, why_not);
            continue;
          }
          if (const auto limit = beyondLimits(layout, bytes_needed, *comm, context.budget)) {
            CaseRunner::skip(sample, *limit);
            continue;
          }
          if (!fitsEverywhere(context, comm->usesDeviceBuffers(), bytes_needed)) {
            sample.notes.push_back(fmt::format(
                "clipped: {} of buffers do not fit in the free device memory of every rank",
                formatBytes(bytes_needed)));
            continue;
          }
          CollectiveCase body(context, collective_, *comm, type, in_place, layout);
          body.fill();
          runner.measure(
              sample, settings, [&body] { body.runOnce(); }, nullptr, &timer);
          if (plan_.check) sample.checks.push_back(body.check());
          sample.rates.push_back({"algbw GB/s", static_cast<double>(layout.bytes), 1e9});
          if (bus_factor) {
            sample.rates.push_back(
                {"busbw GB/s", static_cast<double>(layout.bytes) * *bus_factor, 1e9});
          } else {
            sample.notes.push_back("busbw is not defined for a single rank");
          }
        }
      }
    }
  }
  runner.finish();
}

namespace {

// Every collective of comm/Collectives.cpp is a suite of this kind.
const bool kCollectivesRegistered = [] {
  for (const CollectiveDescriptor* c : collectives()) {
    static_cast<void>(SuiteRegistration(c->name, [](const SuiteInfo& info, const RunPlan& plan) {
      return std::unique_ptr<Suite>(
          std::make_unique<CollectiveSuite>(*findCollective(info.name), plan.collectives));
    }));
  }
  return true;
}();

}  // namespace

}  // namespace splitstep
