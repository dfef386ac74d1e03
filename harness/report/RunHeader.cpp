#include "report/RunHeader.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "common/Units.hpp"
#include "derived/NodeSpread.hpp"
#include "report/ConsoleText.hpp"
#include "stats/MedianInterval.hpp"

namespace splitstep {
namespace {

// Rank 0's launch environment: NCCL_*, UCX_* and CUDA_* in full, OMPI_* counted (Open MPI's
// launcher sets dozens; the JSON holds them all).
// Whether a variable tunes NCCL or its transports: NCCL_* and UCX_*, but not a container's
// NCCL_VERSION, which says what is installed.
bool tunes(const std::string& name) {
  return (name.starts_with("NCCL_") || name.starts_with("UCX_")) && !name.ends_with("_VERSION");
}

// Verbose: every variable but OMPI_*'s, which are counted. Compact: the tuning ones, the rest
// counted.
std::string environmentLine(const EnvironmentList& environment, bool verbose) {
  std::vector<std::string> shown;
  std::size_t counted = 0;
  for (const auto& [name, value] : environment) {
    if (verbose ? name.starts_with("OMPI_") : !tunes(name)) {
      ++counted;
    } else {
      shown.push_back(name + "=" + value);
    }
  }
  if (shown.empty() && counted == 0) return "no NCCL_*, UCX_*, OMPI_* or CUDA_* variables";
  if (counted > 0) {
    shown.push_back(
        verbose ? fmt::format("and {} OMPI_* (in the JSON)", counted)
                : fmt::format("and {} more NCCL_*, UCX_*, OMPI_*, CUDA_* (in the JSON)", counted));
  }
  return fmt::format("{}", fmt::join(shown, " "));
}

bool tunesTransport(const EnvironmentList& environment) {
  return std::any_of(environment.begin(), environment.end(),
                     [](const auto& variable) { return tunes(variable.first); });
}

// One line per node: how its ranks' GPUs connect.
std::vector<std::string> gpuLinkLines(const std::vector<RankLink>& links,
                                      const std::vector<RankInfo>& ranks) {
  std::map<int, std::vector<const RankLink*>> by_node;
  for (const RankLink& link : links) by_node[link.node].push_back(&link);
  std::vector<std::string> lines;
  for (const auto& [node, node_links] : by_node) {
    const auto info = std::find_if(ranks.begin(), ranks.end(), [node = node](const RankInfo& r) {
      return r.node_index == node;
    });
    const std::string host = info == ranks.end() ? std::to_string(node) : info->host;
    std::map<std::string, std::vector<std::string>> pairs;  // by link
    for (const RankLink* link : node_links) {
      pairs[link->link].push_back(fmt::format("r{}-r{}", link->first, link->second));
    }
    if (pairs.size() == 1 && node_links.size() == 1) {
      lines.push_back(fmt::format("{}: {} between ranks {} and {}", host, pairs.begin()->first,
                                  node_links.front()->first, node_links.front()->second));
      continue;
    }
    if (pairs.size() == 1) {
      lines.push_back(fmt::format("{}: {} between every pair of its ranks ({} pairs)", host,
                                  pairs.begin()->first, node_links.size()));
      continue;
    }
    std::vector<std::string> kinds;
    for (const auto& [link, list] : pairs) {
      kinds.push_back(fmt::format("{} {}", link, fmt::join(list, " ")));
    }
    lines.push_back(fmt::format("{}: {}", host, fmt::join(kinds, "; ")));
  }
  return lines;
}

// The ranks of each node with the same device name on one line: "ranks 0-7 on node01: NVIDIA H200".
std::vector<std::string> rankGroupLines(const std::vector<RankInfo>& ranks) {
  std::vector<std::pair<std::pair<std::string, std::string>, std::vector<int>>> groups;
  for (const RankInfo& r : ranks) {
    const std::pair key{r.host, r.device_name.empty() ? r.device : r.device_name};
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&key](const auto& group) { return group.first == key; });
    if (it == groups.end()) it = groups.insert(groups.end(), {key, {}});
    it->second.push_back(r.rank);
  }
  std::vector<std::string> lines;
  for (const auto& [key, members] : groups) {
    lines.push_back(fmt::format("  rank{} {} on {}: {}", members.size() == 1 ? "" : "s",
                                rankRanges(members), key.first, key.second));
  }
  return lines;
}

// How each case is measured, in words: the loops and the stopping rule, in two lines of the
// console.
std::string measurementLine(const MeasureSettings& ms) {
  const std::string loops = ms.loops > 0
                                ? fmt::format("of {} loops", ms.loops)
                                : fmt::format("of >= {}", formatSeconds(ms.min_sample_time));
  const std::string samples =
      ms.samples > 0
          ? fmt::format("{} samples {}", ms.samples, loops)
          : fmt::format(
                "samples {} until the median's {:g}% interval is within ±{:g}%, std/mean "
                "<= {:g}% or the noise is stable; >= {} samples{}, <= {}",
                loops, kMedianConfidence * 100, ms.ci_target * 100, ms.max_noise * 100,
                ms.min_samples,
                ms.min_time > 0
                    ? fmt::format(" ({} for interval or noise)", formatSeconds(ms.min_time))
                    : "",
                formatSeconds(ms.max_time));
  return fmt::format(
      "Each case: a timed cold start, {} warm-up(s){}, then {}.", ms.warmup,
      ms.warmup_time > 0 ? fmt::format(" and {} of warm-up", formatSeconds(ms.warmup_time)) : "",
      samples);
}

}  // namespace

void printRunHeader(std::ostream& out, const RunContext& context, bool verbose) {
  const Versions& v = context.versions;
  out << fmt::format("splitstep {} ({}) | {} rank(s) on {} node(s) | {}\n", v.splitstep,
                     v.git_revision, context.ranks.size(), nodeCount(context.ranks),
                     context.started_utc)
      << fmt::format("  LibTorch {} | CUDA {} (driver {}) | NCCL {} | {} | collectives: {}\n",
                     v.libtorch, v.cuda_runtime, v.cuda_driver, v.nccl, v.mpi,
                     context.backend.empty() ? "none" : context.backend);
  if (verbose) {
    for (const RankInfo& r : context.ranks) {
      out << fmt::format("  rank {}: {} {} {}{}\n", r.rank, r.host, r.device, r.device_name,
                         r.pci_bus_id.empty() ? std::string()
                                              : fmt::format(" (PCI {}, {})", r.pci_bus_id, r.uuid));
    }
  } else {
    for (const std::string& line : rankGroupLines(context.ranks)) printWrapped(out, line);
  }
  if (!context.job.scheduler.empty()) {
    printWrapped(out, fmt::format("  job: {} {} on {}", context.job.scheduler, context.job.id,
                                  context.job.node_list));
  }
  for (const std::string& line : gpuLinkLines(context.gpu_links, context.ranks)) {
    printWrapped(out, "  GPU links on " + line);
  }
  // The compact header names the variables that tune NCCL and its transports; the JSON has all.
  if (verbose || tunesTransport(context.environment)) {
    printWrapped(out, "  environment (rank 0): " + environmentLine(context.environment, verbose));
  }
  if (!context.environment_differs.empty()) {
    printWrapped(out, fmt::format("  note: the NCCL_*, UCX_*, OMPI_* or CUDA_* variables of "
                                  "rank(s) {} differ from rank 0's",
                                  fmt::join(context.environment_differs, ", ")));
  }
  for (const std::string& note : context.notes) printWrapped(out, "  note: " + note);
  if (!verbose) {
    printWrapped(out, measurementLine(context.measure), 2);
    return;
  }
  out << measurementLine(context.measure) << '\n';
  out << fmt::format(
      "min / median / max: across ranks, of each rank's median; rates at that median.\n"
      "noise: std/mean of a rank's samples, the workload's spread; ±ci: how far the {:g}% "
      "confidence interval of a rank's median reaches from it, the estimate's uncertainty (both "
      "the largest over ranks); stop: the rule that ended sampling.\n"
      "host: how long the host took to queue one loop; far below the device time, it shows the "
      "host returning long before the GPU finishes.\n",
      kMedianConfidence * 100);
}

}  // namespace splitstep
