#include "derived/Verdict.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "cases/CollectiveCase.hpp"
#include "cases/MatmulCase.hpp"
#include "cases/MembwCase.hpp"
#include "cases/Rates.hpp"
#include "comm/Collective.hpp"
#include "common/Units.hpp"
#include "derived/ReferenceFigures.hpp"

namespace splitstep {
namespace {

// A rate is an amount over the median time (CaseResult::rates, at the median of the ranks'
// medians): each rank's is the same amount over its own median.
std::optional<double> rankRate(const CaseResult& c, const RankResult& r, const RateSpec& spec) {
  const auto rate = c.rate(spec);
  if (!rate || c.across.median <= 0 || r.summary.median <= 0) return std::nullopt;
  return *rate * c.across.median / r.summary.median;
}

struct Best {
  double value = 0;
  std::string what;
  std::string clock_limit;  // what held the SM clock down in that case, where NVML said
};

// What held a rank's SM clock down while its case was timed ("power cap"), at its end or its
// start; empty where nothing did or NVML could not tell.
std::string clockLimit(const RankResult& r) {
  for (const auto& clock : {r.measurement.clock_at_end, r.measurement.clock_at_start}) {
    if (clock && !clock->limited_by.empty()) return clock->limited_by;
  }
  return {};
}

// Each rank's best `rate` over the cases `wanted` picks.
std::map<int, Best> bestPerRank(const std::vector<CaseResult>& cases,
                                const std::function<bool(const CaseResult&)>& wanted,
                                const RateSpec& rate) {
  std::map<int, Best> best;
  for (const CaseResult& c : cases) {
    if (c.skipped() || !wanted(c)) continue;
    for (const RankResult& r : c.ranks) {
      const auto value = rankRate(c, r, rate);
      if (value && (!best.contains(r.rank) || *value > best[r.rank].value)) {
        best[r.rank] = {*value, c.case_name, clockLimit(r)};
      }
    }
  }
  return best;
}

bool isMembw(const CaseResult& c, std::string_view kind) {
  const auto fields = MembwCase::decode(c.fields);
  return fields && fields->kind == kind;
}

// A per-GPU item: the node's rank lowest against its own GPU's expected figure.
ItemVerdict perGpuItem(VerdictItem item, const std::map<int, Best>& best,
                       const std::vector<int>& node_ranks, const std::vector<RankInfo>& ranks,
                       const std::function<ReferenceFigure(const GpuReference&)>& figure,
                       std::string_view unit, std::string not_run) {
  ItemVerdict v;
  v.item = item;
  v.unit = unit;
  bool measured_without_reference = false;
  for (int rank : node_ranks) {
    const auto it = best.find(rank);
    const RankInfo* info = infoOf(rank, ranks);
    const GpuReference* reference = info ? findReference(info->device_name) : nullptr;
    if (it == best.end()) continue;
    if (reference == nullptr) {
      measured_without_reference = true;
      continue;
    }
    v.per_rank.emplace_back(rank, it->second.value);
    const ReferenceFigure expected = figure(*reference);
    if (!v.measured || it->second.value / expected.expected < v.ratio()) {
      v.measured = it->second.value;
      v.expected = expected.expected;
      v.rank = rank;
      v.what = it->second.what;
      v.clock_limit = it->second.clock_limit;
      v.expected_source = expected.expected_source;
      v.expected_on = expected.measured_on;
    }
  }
  if (!v.measured) {
    v.not_judged = measured_without_reference ? "no reference figures for this GPU" : not_run;
  }
  return v;
}

// Host<->device: each rank's weaker direction of its best pinned copies.
std::map<int, Best> hostDevicePerRank(const std::vector<CaseResult>& cases) {
  std::map<int, Best> weaker = bestPerRank(
      cases, [](const CaseResult& c) { return isMembw(c, "h2d pinned"); }, rates::kMemoryBandwidth);
  const std::map<int, Best> d2h = bestPerRank(
      cases, [](const CaseResult& c) { return isMembw(c, "d2h pinned"); }, rates::kMemoryBandwidth);
  for (const auto& [rank, best] : d2h) {
    if (!weaker.contains(rank) || best.value < weaker[rank].value) weaker[rank] = best;
  }
  return weaker;
}

struct AllreduceRun {
  std::vector<int> members;
  std::uint64_t bytes = 0;
  std::optional<double> busbw;
};

// The NCCL cases on device buffers of the collective whose busbw the node verdict judges.
std::vector<AllreduceRun> ncclAllreduces(const std::vector<CaseResult>& cases) {
  std::vector<AllreduceRun> runs;
  for (const CaseResult& c : cases) {
    const auto fields = CollectiveCase::decode(c.fields);
    if (!fields || c.skipped() || fields->backend != "nccl" ||
        fields->buffers != BufferKind::Device) {
      continue;
    }
    const CollectiveDescriptor* collective = findCollective(fields->collective);
    if (collective == nullptr || !collective->judgedBy(CollectiveVerdict::NodeBusbw)) continue;
    AllreduceRun run{{}, fields->bytes, c.rate(rates::kBusbw)};
    if (fields->group) {
      run.members.assign(fields->group->ranks.begin(), fields->group->ranks.end());
    } else {
      for (const RankResult& r : c.ranks) run.members.push_back(r.rank);
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

// Why the GPUs of `members` are not all joined by NVLink, or nothing.
std::optional<std::string> notNvlink(const std::vector<int>& members,
                                     const std::vector<RankInfo>& ranks) {
  for (int a : members) {
    for (int b : members) {
      const RankInfo* from = infoOf(a, ranks);
      const RankInfo* to = infoOf(b, ranks);
      if (a == b || from == nullptr || to == nullptr) continue;
      if (from->uuid == to->uuid) return std::string("ranks share a GPU");
      const auto link = from->gpu_links.find(to->uuid);
      if (link == from->gpu_links.end()) return std::string("GPU links unknown");
      if (link->second != "NVLink") {
        return fmt::format("GPUs joined by {}, not NVLink", link->second);
      }
    }
  }
  return std::nullopt;
}

ItemVerdict allreduceItem(int node, const std::vector<CaseResult>& cases,
                          const std::vector<RankInfo>& ranks) {
  ItemVerdict v;
  v.item = VerdictItem::AllreduceBusbw;
  v.unit = rates::kBusbw.unit;
  const auto onNode = [&](int rank) {
    const RankInfo* info = infoOf(rank, ranks);
    return info != nullptr && info->node_index == node;
  };
  bool crosses = false;
  bool touched = false;
  std::vector<AllreduceRun> within;
  for (AllreduceRun& run : ncclAllreduces(cases)) {
    const auto here = std::count_if(run.members.begin(), run.members.end(), onNode);
    if (here == 0) continue;
    touched = true;
    if (static_cast<std::size_t>(here) < run.members.size()) {
      crosses = true;
    } else if (run.members.size() > 1 && run.busbw) {
      within.push_back(std::move(run));
    }
  }
  if (within.empty()) {
    v.not_judged = !touched  ? "no NCCL allreduce case"
                   : crosses ? "it crosses nodes: no network figures"
                             : "one GPU";
    return v;
  }
  // The most GPUs, then the largest size, then the best of its cases (dtypes, placements).
  const auto widest =
      std::max_element(within.begin(), within.end(), [](const auto& a, const auto& b) {
        return std::pair(a.members.size(), a.bytes) < std::pair(b.members.size(), b.bytes);
      });
  double busbw = 0;
  for (const AllreduceRun& run : within) {
    if (run.members.size() == widest->members.size() && run.bytes == widest->bytes) {
      busbw = std::max(busbw, *run.busbw);
    }
  }
  const int gpus = static_cast<int>(widest->members.size());
  v.what = fmt::format("{} GPUs, {}", gpus, formatBytes(widest->bytes));
  const RankInfo* first = infoOf(widest->members.front(), ranks);
  const GpuReference* reference = first ? findReference(first->device_name) : nullptr;
  const AllreduceReference* figures = reference ? findAllreduce(*reference, gpus) : nullptr;
  if (static_cast<double>(widest->bytes) < kAllreducePlateauBytes) {
    v.not_judged = fmt::format("largest size {}, under the 1 GiB of busbw's plateau",
                               formatBytes(widest->bytes));
  } else if (const auto why = notNvlink(widest->members, ranks)) {
    v.not_judged = *why;
  } else if (figures == nullptr) {
    v.not_judged = fmt::format("no reference figure for {} GPUs", gpus);
  } else {
    v.measured = busbw;
    v.expected = figures->ring.expected;
    v.expected_source = figures->ring.expected_source;
    v.expected_on = figures->ring.measured_on;
  }
  return v;
}

std::string formatValue(VerdictItem item, double value) {
  switch (item) {
    case VerdictItem::GemmBf16:
      return fmt::format("{:.0f} TFLOP/s", value);
    case VerdictItem::HbmTriad:
      return fmt::format("{:.2f} TB/s", value / 1000);
    case VerdictItem::HostDevice:
      return fmt::format("{:.1f} GB/s", value);
    case VerdictItem::AllreduceBusbw:
      return fmt::format("{:.0f} GB/s", value);
  }
  return fmt::format("{}", value);
}

// A verdict figure's key: the item, which of its figures, the case it judged and that case's
// family, and for the GEMM item the dtype that places it among the matmul cases in a plot.
TypedFields itemKey(const ItemVerdict& i, std::string_view figure) {
  TypedFields key = {{"figure", typedName(fmt::format("verdict/{}", figure))},
                     {"item", typedName(toString(i.item))},
                     {"case", typedName(i.what)}};
  switch (i.item) {
    case VerdictItem::GemmBf16:
      key.emplace_back("family", typedName(MatmulCase::family().name));
      key.emplace_back("dtype", typedName(toString(MatmulDtype::Bf16)));
      break;
    case VerdictItem::HbmTriad:
    case VerdictItem::HostDevice:
      key.emplace_back("family", typedName(MembwCase::family().name));
      break;
    case VerdictItem::AllreduceBusbw:
      key.emplace_back("family", typedName(CollectiveCase::family().name));
      break;
  }
  return key;
}

std::string knownGpus() {
  std::vector<std::string_view> names;
  for (const GpuReference& g : referenceGpus()) names.push_back(g.gpu);
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

std::string_view itemLabel(VerdictItem item) {
  switch (item) {
    case VerdictItem::GemmBf16:
      return "bf16 GEMM";
    case VerdictItem::HbmTriad:
      return "HBM";
    case VerdictItem::HostDevice:
      return "host<->device";
    case VerdictItem::AllreduceBusbw:
      return "allreduce busbw";
  }
  return "";
}

bool NodeVerdict::healthy() const {
  return has_reference &&
         std::any_of(items.begin(), items.end(),
                     [](const auto& i) { return i.measured.has_value(); }) &&
         std::none_of(items.begin(), items.end(), [](const auto& i) { return i.below(); });
}

std::string NodeVerdict::line(const std::vector<RankInfo>& ranks) const {
  if (!has_reference) {
    return fmt::format("node {}: no reference figures for {}: not judged", host,
                       gpu.empty() ? "this device" : gpu);
  }
  std::vector<std::string> below;
  std::vector<std::string> fine;
  // Expected figures measured on another GPU model than this node's, by model.
  std::map<std::string_view, std::vector<std::string_view>> borrowed;
  for (const ItemVerdict& i : items) {
    const std::string_view label = itemLabel(i.item);
    if (!i.measured) continue;
    if (!i.expected_on.empty() && i.expected_on != gpu) borrowed[i.expected_on].push_back(label);
    // A clock held down is why a figure may fall short, whatever the device could do unheld.
    const std::string clock =
        i.clock_limit.empty() ? std::string() : fmt::format(", clock: {}", i.clock_limit);
    if (i.below()) {
      const RankInfo* info = i.rank >= 0 ? infoOf(i.rank, ranks) : nullptr;
      below.push_back(fmt::format(
          "{} {}{} is {:.0f}% of the expected {} ({:.0f}% short{})", label,
          formatValue(i.item, *i.measured),
          info ? fmt::format(" on rank {} ({})", i.rank, info->device) : std::string(),
          100 * i.ratio(), formatValue(i.item, i.expected), 100 * (1 - i.ratio()), clock));
    } else {
      fine.push_back(fmt::format("{} {} ({:.0f}%{}{})", label, formatValue(i.item, *i.measured),
                                 100 * i.ratio(), fine.empty() ? " of expected" : "", clock));
    }
  }
  if (below.empty() && fine.empty()) {
    return fmt::format("node {}: {}, nothing judged", host, gpu);
  }
  std::vector<std::string> parts = below;
  parts.insert(parts.end(), fine.begin(), fine.end());
  std::string line = fmt::format(
      "node {}: {} — {}", host,
      below.empty()
          ? fmt::format("healthy (each at least {:.0f}% of expected)", 100 * kBelowExpected)
          : fmt::format("below expected (under {:.0f}%)", 100 * kBelowExpected),
      fmt::join(parts, ", "));
  const std::size_t judged = below.size() + fine.size();
  for (const auto& [model, labels] : borrowed) {
    // Every figure from one other model: the model alone says it.
    line += labels.size() == judged
                ? fmt::format("; expected figures of an {}", model)
                : fmt::format("; expected {} of an {}", fmt::join(labels, ", "), model);
  }
  return line;
}

std::string NodeVerdict::notJudged() const {
  if (!has_reference) return fmt::format("the reference table has {}", knownGpus());
  std::vector<std::string> skipped;
  for (const ItemVerdict& i : items) {
    if (!i.measured) skipped.push_back(fmt::format("{} ({})", itemLabel(i.item), i.not_judged));
  }
  return skipped.empty() ? std::string() : fmt::format("not judged: {}", fmt::join(skipped, ", "));
}

std::vector<NodeVerdict> judgeNodes(const std::vector<CaseResult>& cases,
                                    const std::vector<RankInfo>& ranks) {
  std::map<int, std::vector<int>> node_ranks;
  for (const RankInfo& r : ranks) node_ranks[r.node_index].push_back(r.rank);
  const std::map<int, Best> gemm = bestPerRank(
      cases,
      [](const CaseResult& c) {
        const auto fields = MatmulCase::decode(c.fields);
        return fields && fields->dtype == MatmulDtype::Bf16;
      },
      rates::kTflops);
  const std::map<int, Best> triad = bestPerRank(
      cases, [](const CaseResult& c) { return isMembw(c, "triad"); }, rates::kMemoryBandwidth);
  const std::map<int, Best> host_device = hostDevicePerRank(cases);
  std::vector<NodeVerdict> verdicts;
  for (const auto& [node, members] : node_ranks) {
    NodeVerdict v;
    v.node = node;
    std::set<std::string> gpus;
    for (int rank : members) {
      const RankInfo* info = infoOf(rank, ranks);
      v.host = info->host;
      gpus.insert(info->device_name);
      v.has_reference = v.has_reference || findReference(info->device_name) != nullptr;
    }
    v.gpu = fmt::format("{}", fmt::join(gpus, ", "));
    v.items.push_back(perGpuItem(
        VerdictItem::GemmBf16, gemm, members, ranks,
        [](const GpuReference& g) { return g.gemm_bf16; }, rates::kTflops.unit,
        "no bf16 matmul case"));
    v.items.push_back(perGpuItem(
        VerdictItem::HbmTriad, triad, members, ranks,
        [](const GpuReference& g) { return g.hbm_triad; }, rates::kMemoryBandwidth.unit,
        "no membw triad case"));
    v.items.push_back(perGpuItem(
        VerdictItem::HostDevice, host_device, members, ranks,
        [](const GpuReference& g) { return g.host_device; }, rates::kMemoryBandwidth.unit,
        "no pinned h2d/d2h case"));
    v.items.push_back(allreduceItem(node, cases, ranks));
    verdicts.push_back(std::move(v));
  }
  return verdicts;
}

std::vector<DerivedResult> deriveVerdict(const std::vector<NodeVerdict>& verdicts,
                                         const std::vector<RankInfo>& ranks) {
  std::vector<DerivedResult> results;
  for (const NodeVerdict& node : verdicts) {
    DerivedResult& d = results.emplace_back();
    d.suite = "verdict";
    d.subject = "node " + node.host;
    d.title =
        (node.has_reference ? "against the reference figures of " : "no reference figures for ") +
        node.gpu;
    for (const ItemVerdict& i : node.items) {
      if (!i.measured) continue;
      const std::string tag = fmt::format("verdict/{}/", toString(i.item));
      const std::string_view label = itemLabel(i.item);
      DerivedFigure& measured =
          d.addFigure(tag + "measured", fmt::format("{} ({})", label, i.what), i.unit, *i.measured);
      measured.per_rank = i.per_rank;
      if (i.rank >= 0) measured.note = fmt::format("rank {}, the node's lowest", i.rank);
      measured.key = itemKey(i, "measured");
      DerivedFigure& expected =
          d.addFigure(tag + "expected", fmt::format("{} expected", label), i.unit, i.expected);
      expected.note = std::string(i.expected_source);
      expected.key = itemKey(i, "expected");
      DerivedFigure& ratio = d.addFigure(tag + "ratio", fmt::format("{} against expected", label),
                                         "%", 100 * i.ratio());
      ratio.note = i.below() ? fmt::format("below expected (under {:.0f}%)", 100 * kBelowExpected)
                             : std::string();
      ratio.key = itemKey(i, "ratio");
    }
    d.findings.push_back(node.line(ranks));
    if (std::string rest = node.notJudged(); !rest.empty()) d.findings.push_back(std::move(rest));
    d.notes.push_back(fmt::format(
        "a figure under {:.0f}% of its expected one is below expected; the reference figures "
        "and their sources are in docs/verdict.md",
        100 * kBelowExpected));
  }
  return results;
}

}  // namespace splitstep
