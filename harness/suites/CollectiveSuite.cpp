#include "suites/CollectiveSuite.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <thread>

#include "cases/CollectiveCase.hpp"
#include "cases/Rates.hpp"
#include "cluster/RankGroups.hpp"
#include "comm/CollectiveLayout.hpp"
#include "common/Units.hpp"
#include "device/CudaCheck.hpp"
#include "device/FreeMemory.hpp"
#include "device/Memory.hpp"
#include "measure/StoppingRule.hpp"
#include "measure/WallClock.hpp"
#include "pattern.cuh"
#include "suites/CaseRunner.hpp"
#include "suites/CollectiveSpace.hpp"

namespace splitstep {
namespace {

// A collective sample of at most this many executions gets a head start (MeasureSettings): its
// first call queued, the rest launched as the host goes. In a sample of >= 2 ms each call then
// takes >= 31 us, several times the host's few microseconds to launch one, so the host keeps
// ahead of the work from the first call on. (At 16, one H200's 256 MiB allreduce, 18 calls a
// sample, was left out: +0.4-1.4% over nccl-tests.)
constexpr int kHeadStartUpTo = 64;

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

class CollectiveCall {
 public:
  CollectiveCall(const SuiteContext& context, const CollectiveDescriptor& collective,
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
      SPLITSTEP_CUDA_CHECK(kernels::fillPattern(send_, layout_.send, pattern, comm_.rank(),
                                                context_.device.stream()));
    } else {
      kernels::fillPatternOnHost(send_, layout_.send, pattern, comm_.rank());
    }
  }

  void runOnce() {
    comm_.run(collective_, send_, recv_, layout_.call_count, type_, context_.device.stream());
  }

  // Fills, runs once untimed, and counts wrong elements of this rank's result; `spoil`
  // (--test-spoil-rank) overwrites its first element first.
  Check check(bool spoil) {
    fill();
    runOnce();
    context_.device.synchronize();
    if (collective_.result_at_root_only && collective_.root != comm_.rank())
      return {"pattern", 0, 0};
    if (spoil && layout_.recv > 0) spoilFirstElement();
    const auto spec = collective_.expect(layout_, comm_.rank(), comm_.size());
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
  // Bytes of 0x70: in fp32 about 3e29, far from every value the patterns hold.
  void spoilFirstElement() {
    constexpr int kSpoilt = 0x70;
    if (comm_.usesDeviceBuffers()) {
      SPLITSTEP_CUDA_CHECK(cudaMemsetAsync(recv_, kSpoilt, element_, context_.device.stream()));
      context_.device.synchronize();
    } else {
      std::memset(recv_, kSpoilt, element_);
    }
  }

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

// What the library chose for the case's calls, warm-up and timed: the most frequent choice in its
// fields, and a note where its calls did not all make it.
void noteChoices(Sample& sample, const CollectiveSpace::Case& c,
                 const std::vector<ChoiceCount>& choices) {
  if (choices.empty()) return;
  CollectiveCase fields = c.fields;
  fields.nccl = choices.front().choice;
  sample.fields = fields.encode();
  if (choices.size() == 1) return;
  std::uint64_t calls = 0;
  std::vector<std::string> each;
  for (const ChoiceCount& choice : choices) {
    calls += choice.calls;
    each.push_back(fmt::format("{}/{} on {} channels for {}", choice.choice.algorithm,
                               choice.choice.protocol, choice.choice.channels, choice.calls));
  }
  sample.notes.push_back(fmt::format("NCCL chose differently among the case's last {} calls: {}",
                                     calls, fmt::join(each, ", ")));
}

// Collective: whether every rank has `bytes` of device memory to spare now (the budget was
// agreed at start; earlier cases and the communicators may have taken some since).
bool fitsEverywhere(const SuiteContext& context, bool on_device, std::size_t bytes) {
  bool fits = true;
  if (on_device) {
    fits = static_cast<double>(bytes) <= MemoryBudget::usable(freeDeviceMemory());
  }
  return context.agreement.maxOverRanks(fits ? 0 : 1) == 0;
}

// The groups that run at the same time, and this rank's part in them.
struct Round {
  std::vector<std::vector<int>> groups;  // each group's ranks
  std::vector<std::size_t> indices;      // each group's place in --groups; empty: no groups
  std::optional<std::size_t> mine;       // this rank's group, a position in `groups`
  // Per backend (SuiteContext::communicators), this rank's communicator in its group: the
  // world's without groups, one split for the round otherwise, nullptr outside every group.
  std::vector<Communicator*> comms;
  std::vector<std::unique_ptr<Communicator>> owned;
};

Round everyRank(const SuiteContext& context) {
  Round round;
  round.groups.emplace_back(static_cast<std::size_t>(context.world_size));
  std::iota(round.groups.front().begin(), round.groups.front().end(), 0);
  round.mine = 0;
  round.comms = context.communicators;
  return round;
}

// Collective: splits every backend's communicator into the groups of one round.
Round openRound(const SuiteContext& context, const std::string& suite,
                const std::vector<std::size_t>& indices) {
  Round round;
  round.indices = indices;
  for (std::size_t i = 0; i < indices.size(); ++i) {
    const std::vector<int>& ranks = context.groups.groups.at(indices[i]);
    round.groups.push_back(ranks);
    if (std::find(ranks.begin(), ranks.end(), context.rank) != ranks.end()) round.mine = i;
  }
  context.watchdog.setOperation(suite + ": splitting the communicators into groups of ranks");
  for (Communicator* world : context.communicators) {
    round.owned.push_back(
        world->split(round.mine ? std::optional(static_cast<int>(*round.mine)) : std::nullopt));
    round.comms.push_back(round.owned.back().get());
  }
  return round;
}

// The cases of one round, call by call (suites/CollectiveSpace), the round's groups timed
// together. Ranks outside the group that runs (or outside every group of a round) take part in
// each decision of its Measurer, deferring to it, so that every rank makes the same agreement
// calls. The groups' cases of one call are published together once measured and checked: every
// rank publishes the same cases in the same batches.
class RoundRunner {
 public:
  RoundRunner(const SuiteContext& context, const CollectiveDescriptor& collective,
              const CollectivesPlan& plan, const CollectiveSpace& space, CaseRunner& runner)
      : context_(context),
        collective_(collective),
        plan_(plan),
        space_(space),
        runner_(runner),
        // Host buffers are timed with the host clock: the call is complete when it returns.
        host_clock_(openDevice({false, 0}, context.watchdog)),
        settings_(context.measure),
        start_(clock_.seconds()) {
    settings_.align_ranks = true;
    for (const std::span<const CollectiveSpace::Case> call : space_.calls()) {
      if (std::any_of(call.begin(), call.end(),
                      [this](const CollectiveSpace::Case& c) { return !space_.whyNot(c); })) {
        ++calls_left_;
      }
    }
  }

  // The cases of `round`, the round `index` of the space.
  void run(const Round& round, std::size_t index) {
    for (const std::span<const CollectiveSpace::Case> call : space_.calls()) {
      if (call.front().round != index) continue;
      runCall(round, call);
      runner_.publish(runner_.take());
    }
  }

 private:
  void runCall(const Round& round, std::span<const CollectiveSpace::Case> cases) {
    const CollectiveSpace::Case& any = cases.front();
    // Whether buffers live on the device is the same for the world's communicator as for its
    // groups'; ranks outside every group have only the world's.
    Communicator& world = *context_.communicators[any.backend];
    const DataType type = toDataType(any.fields.dtype);
    const bool in_place = any.fields.inPlace();
    Device& timer = world.usesDeviceBuffers() ? context_.device : *host_clock_;
    const std::size_t first = runner_.size();
    std::vector<CollectiveLayout> layouts;
    std::vector<bool> runs;
    for (const CollectiveSpace::Case& c : cases) {
      const std::vector<int>& ranks = round.groups[c.group];
      const auto position = std::find(ranks.begin(), ranks.end(), context_.rank) - ranks.begin();
      const int group_rank = round.mine == c.group ? static_cast<int>(position) : 0;
      const CollectiveLayout layout = space_.layout(c, group_rank);
      Sample& sample =
          runner_.add(space_.name(c), std::string(collective_.name), c.fields.encode(), &timer);
      const std::optional<Skip> skip = space_.whyNot(c);
      if (skip) {
        CaseRunner::skip(sample, skip->reason);
      } else {
        sample.rates.push_back(rates::of(rates::kAlgbw, static_cast<double>(layout.bytes)));
        if (const auto bus_factor = busBandwidthFactor(collective_, c.ranks)) {
          sample.rates.push_back(
              rates::of(rates::kBusbw, static_cast<double>(layout.bytes) * *bus_factor));
        } else {
          sample.notes.push_back("busbw is not defined for a single rank");
        }
      }
      layouts.push_back(layout);
      runs.push_back(!skip);
    }
    if (std::none_of(runs.begin(), runs.end(), [](bool r) { return r; })) return;
    if (plan_.sweep_time > 0) shareTheBudget();
    const bool mine_runs = round.mine && runs[*round.mine];
    const std::size_t bytes_needed =
        mine_runs ? layouts[*round.mine].allocation(in_place) * elementBytes(type) : 0;
    if (!fitsEverywhere(context_, world.usesDeviceBuffers(), bytes_needed)) {
      for (std::size_t g = 0; g < runs.size(); ++g) {
        if (!runs[g]) continue;
        Sample& sample = runner_.at(first + g);
        sample.rates.clear();
        sample.notes.push_back(
            fmt::format("clipped: {} of buffers do not fit in the free device memory of every rank",
                        formatBytes(layouts[g].allocation(in_place) * elementBytes(type))));
      }
      return;
    }
    if (!mine_runs) {
      DeferringAgreement deferring(context_.agreement);
      Sample idle = runner_.at(first);
      runner_.measure(
          idle, settings_, [] {}, nullptr, &timer, &deferring);
      return;
    }
    Sample& sample = runner_.at(first + *round.mine);
    Communicator& comm = *round.comms[any.backend];
    CollectiveCall body(context_, collective_, comm, type, in_place, layouts[*round.mine]);
    body.fill();
    const std::uint64_t mark = comm.callMark();
    const bool slow = plan_.slow_rank == context_.rank;
    const auto delay = std::chrono::duration<double>(plan_.slow_seconds);
    const bool blocking = plan_.blocking;
    MeasureSettings settings = settings_;
    // A sample of a few NCCL calls starts queued behind a stream hold, so that the launch of its
    // first is not timed as transfer time (at >= 256 MiB it was up to 1%). Not where the host
    // is part of what is timed: a blocking call or a slowed test rank. An MPI call returns when
    // it is done, so a held stream would stall it.
    if (comm.backend() == "nccl" && !blocking && !slow) settings.head_start_up_to = kHeadStartUpTo;
    runner_.measure(
        sample, settings,
        [&body, &timer, slow, delay, blocking] {
          if (slow) std::this_thread::sleep_for(delay);  // --test-slow-rank
          body.runOnce();
          if (blocking) timer.synchronize();
        },
        nullptr, &timer);
    noteChoices(sample, cases[*round.mine], comm.choicesSince(mark));
    if (plan_.check) {
      std::optional<Timeline::HostScope> scope;
      if (Timeline* timeline = runner_.timeline()) {
        scope.emplace(*timeline, span_kind::kCheck, "check");
      }
      sample.checks.push_back(body.check(plan_.spoil_rank == context_.rank));
    }
  }

  // Collective: this call's share of --sweep-time, from the time the slowest rank has taken so
  // far, so that every rank stops the call's cases on the same limit.
  void shareTheBudget() {
    const std::int64_t elapsed_us =
        context_.agreement.maxOverRanks(std::llround((clock_.seconds() - start_) * 1e6));
    settings_.sweep_share =
        sweepShare(plan_.sweep_time, static_cast<double>(elapsed_us) / 1e6, calls_left_);
    --calls_left_;
  }

  const SuiteContext& context_;
  const CollectiveDescriptor& collective_;
  const CollectivesPlan& plan_;
  const CollectiveSpace& space_;
  CaseRunner& runner_;
  std::unique_ptr<Device> host_clock_;
  MeasureSettings settings_;
  SteadyWallClock clock_;
  double start_;                // when the suite's cases began, on clock_
  std::size_t calls_left_ = 0;  // calls with a case to measure, this one among them
};

}  // namespace

CollectiveSpace CollectiveSuite::space(const SuiteContext& context) const {
  return CollectiveSpace(collective_, plan_, context.communicators, context.groups,
                         context.world_size, context.budget);
}

std::optional<std::string> CollectiveSuite::refusal(const SuiteContext& context) const {
  return space(context).refusal();
}

void CollectiveSuite::run(const SuiteContext& context) {
  const CollectiveSpace cases = space(context);
  // Each call's cases are published as a batch, once every group's is complete.
  CaseRunner runner(context, name(), CaseRunner::Publish::WhenTold);
  RoundRunner rounds(context, collective_, plan_, cases, runner);
  if (context.groups.groups.empty()) {
    rounds.run(everyRank(context), 0);
  } else {
    for (std::size_t r = 0; r < context.groups.rounds.size(); ++r) {
      rounds.run(openRound(context, name(), context.groups.rounds[r]), r);
    }
  }
  runner.finish();
}

std::size_t CollectiveSuite::caseCount(const SuiteContext& context) const {
  return space(context).size();
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
