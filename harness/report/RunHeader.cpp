#include "report/RunHeader.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "analysis/NodeSpread.hpp"
#include "common/Units.hpp"
#include "stats/MedianInterval.hpp"

namespace splitstep {
namespace {

// Rank 0's launch environment: NCCL_*, UCX_* and CUDA_* in full, OMPI_* counted (Open MPI's
// launcher sets dozens; the JSON holds them all).
std::string environmentLine(const EnvironmentList& environment) {
  std::vector<std::string> shown;
  std::size_t ompi = 0;
  for (const auto& [name, value] : environment) {
    if (name.starts_with("OMPI_")) {
      ++ompi;
    } else {
      shown.push_back(name + "=" + value);
    }
  }
  if (shown.empty() && ompi == 0) return "no NCCL_*, UCX_*, OMPI_* or CUDA_* variables";
  if (ompi > 0) shown.push_back(fmt::format("and {} OMPI_* (in the JSON)", ompi));
  return fmt::format("{}", fmt::join(shown, " "));
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

}  // namespace

void printRunHeader(std::ostream& out, const RunContext& context) {
  const Versions& v = context.versions;
  const MeasureSettings& ms = context.measure;
  out << fmt::format("splitstep {} ({}) | {} rank(s) on {} node(s) | {}\n", v.splitstep,
                     v.git_revision, context.ranks.size(), nodeCount(context.ranks),
                     context.started_utc)
      << fmt::format("  LibTorch {} | CUDA {} (driver {}) | NCCL {} | {} | collectives: {}\n",
                     v.libtorch, v.cuda_runtime, v.cuda_driver, v.nccl, v.mpi,
                     context.backend.empty() ? "none" : context.backend);
  for (const RankInfo& r : context.ranks) {
    out << fmt::format(
        "  rank {}: {} {} {}{}\n", r.rank, r.host, r.device, r.device_name,
        r.pci_bus_id.empty() ? std::string() : fmt::format(" (PCI {}, {})", r.pci_bus_id, r.uuid));
  }
  if (!context.job.scheduler.empty()) {
    out << fmt::format("  job: {} {} on {}\n", context.job.scheduler, context.job.id,
                       context.job.node_list);
  }
  for (const std::string& line : gpuLinkLines(context.gpu_links, context.ranks)) {
    out << "  GPU links on " << line << '\n';
  }
  out << "  environment (rank 0): " << environmentLine(context.environment) << '\n';
  if (!context.environment_differs.empty()) {
    out << fmt::format(
        "  note: the NCCL_*, UCX_*, OMPI_* or CUDA_* variables of rank(s) {} differ from rank "
        "0's\n",
        fmt::join(context.environment_differs, ", "));
  }
  for (const std::string& note : context.notes) out << "  note: " << note << '\n';
  const std::string samples =
      ms.samples > 0
          ? fmt::format("{} samples", ms.samples)
          : fmt::format(
                "samples until the median is known within ±{:g}% at {:g}% confidence, std/mean "
                "<= {:g}% or the noise is stable (at least {} samples and {} of them; at most {} "
                "per case)",
                ms.ci_target * 100, kMedianConfidence * 100, ms.max_noise * 100, ms.min_samples,
                formatSeconds(ms.min_time), formatSeconds(ms.max_time));
  const std::string loops = ms.loops > 0 ? fmt::format("{} loops each", ms.loops)
                                         : fmt::format("loops chosen so a sample lasts >= {}",
                                                       formatSeconds(ms.min_sample_time));
  out << fmt::format(
      "Each case: a timed cold start, {} warm-up run(s){}, then {}, {}.\n"
      "min / median / max: across ranks, of each rank's median; rates at that median.\n"
      "noise: std/mean of a rank's samples, the workload's spread; ±ci: how far the {:g}% "
      "confidence interval of a rank's median reaches from it, the estimate's uncertainty (both "
      "the largest over ranks); stop: the rule that ended sampling.\n"
      "host: how long the host took to queue one loop; far below the device time, it shows the "
      "host "
      "returning long before the GPU finishes.\n",
      ms.warmup,
      ms.warmup_time > 0 ? fmt::format(" and {} of warm-up", formatSeconds(ms.warmup_time)) : "",
      samples, loops, kMedianConfidence * 100);
}

}  // namespace splitstep
