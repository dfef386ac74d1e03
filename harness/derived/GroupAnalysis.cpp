#include "derived/GroupAnalysis.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "cases/CollectiveCase.hpp"
#include "cases/Rates.hpp"
#include "cluster/RankGroups.hpp"
#include "common/Units.hpp"
#include "stats/Statistics.hpp"

namespace splitstep {
namespace {

struct GroupRate {
  std::string group;       // "0,1"
  std::vector<int> ranks;  // its ranks
  double busbw = 0;
  double noise = 0;  // the largest std/mean of its ranks' samples
};

// Groups comparable with each other: cases that differ only in their group (the same
// collective, backend, dtype, placement and size) whose groups span as many nodes. A group
// within a node moves its data over the node's links, one across nodes over the network too.
struct Series {
  std::string suite;
  std::string subject;    // the case name without its group: "nccl fp32 256 MiB"
  std::string tag;        // "groups/busbw/allreduce/nccl/fp32/out-of-place/268435456"
  std::string size;       // "256 MiB"
  std::string mode;       // "sequential", "concurrent"
  std::size_t nodes = 1;  // how many nodes each group spans
  std::vector<GroupRate> groups;
};

std::string slug(std::string text) {
  std::replace(text.begin(), text.end(), ' ', '-');
  return text;
}

std::size_t nodesSpanned(const std::vector<int>& group, const std::vector<RankInfo>& ranks) {
  std::set<int> nodes;
  for (int rank : group) {
    const RankInfo* info = infoOf(rank, ranks);
    nodes.insert(info != nullptr ? info->node_index : -1 - rank);
  }
  return nodes.size();
}

std::string nodesText(std::size_t nodes) {
  return nodes == 1 ? "within a node" : fmt::format("across {} nodes", nodes);
}

std::string describeRank(int rank, const std::vector<RankInfo>& ranks) {
  const RankInfo* info = infoOf(rank, ranks);
  return info != nullptr ? fmt::format("{} ({} {})", rank, info->host, info->device)
                         : std::to_string(rank);
}

std::string describeRanks(const std::vector<int>& group, const std::vector<RankInfo>& ranks) {
  std::vector<std::string> described;
  for (int rank : group) described.push_back(describeRank(rank, ranks));
  if (group.size() == 2) {
    return fmt::format("the link between rank {} and rank {}", described[0], described[1]);
  }
  return fmt::format("the links among ranks {}", fmt::join(described, ", "));
}

std::vector<Series> collectSeries(const std::vector<CaseResult>& cases,
                                  const std::vector<RankInfo>& ranks) {
  std::vector<Series> series;
  std::map<std::pair<std::string, std::size_t>, std::size_t> found;  // (tag, nodes) -> series
  for (const CaseResult& c : cases) {
    const auto fields = CollectiveCase::decode(c.fields);
    if (!fields || !fields->group || c.skipped()) continue;
    const auto busbw = c.rate(rates::kBusbw);
    if (!busbw) continue;
    const std::vector<int> members(fields->group->ranks.begin(), fields->group->ranks.end());
    const std::string group = groupName(members);
    const std::string tag = fmt::format(
        "groups/busbw/{}/{}/{}/{}/{}", c.suite, fields->backend, toString(fields->dtype),
        fields->inPlace() ? "in-place" : "out-of-place", fields->size);
    const std::size_t nodes = nodesSpanned(members, ranks);
    auto [it, added] = found.emplace(std::pair(tag, nodes), series.size());
    if (added) {
      series.push_back({c.suite,
                        fields->label(),
                        tag,
                        formatBytes(fields->size),
                        std::string(toString(fields->group->mode)),
                        nodes,
                        {}});
    }
    double noise = 0;
    for (const RankResult& r : c.ranks) noise = std::max(noise, r.measurement.noise);
    series[it->second].groups.push_back({group, members, *busbw, noise});
  }
  return series;
}

DerivedResult deriveSeries(const Series& s, bool name_nodes, const std::vector<RankInfo>& ranks) {
  DerivedResult d;
  d.suite = s.suite;
  d.subject = name_nodes ? s.subject + ", groups " + nodesText(s.nodes) : s.subject;
  d.title = fmt::format("bus bandwidth by group of ranks ({} group{}{})", s.groups.size(),
                        s.groups.size() == 1 ? "" : "s",
                        s.mode == "concurrent" ? ", at the same time"
                        : s.groups.size() > 1  ? ", one at a time"
                                               : "");
  std::vector<double> busbws;
  for (const GroupRate& g : s.groups) busbws.push_back(g.busbw);
  const double median = quantile(busbws, 0.5);
  if (s.groups.size() > 1) {
    d.figures.push_back({fmt::format("{}/median/{}", s.tag, slug(nodesText(s.nodes))),
                         "median of the groups",
                         std::string(rates::kBusbw.unit),
                         median,
                         {},
                         ""});
  }
  std::vector<const GroupRate*> flagged;
  for (const GroupRate& g : s.groups) {
    std::string note;
    if (s.groups.size() > 1 && median > 0) {
      const double share = g.busbw / median;
      note = fmt::format("{:.0f}% of the median", share * 100);
      if (share < kGroupFarBelowMedian) {
        note += ": far below";
        flagged.push_back(&g);
      }
    }
    d.figures.push_back({s.tag + "/" + g.group,
                         "group " + g.group,
                         std::string(rates::kBusbw.unit),
                         g.busbw,
                         {},
                         note});
  }
  if (s.groups.size() == 1) {
    d.findings.push_back(fmt::format(
        "a single group {}: there is no other group to compare it with", nodesText(s.nodes)));
    return d;
  }
  for (const GroupRate* g : flagged) {
    d.findings.push_back(
        fmt::format("group {} reaches {:.0f}% of the median group's busbw at {}: check {}",
                    g->group, g->busbw / median * 100, s.size, describeRanks(g->ranks, ranks)));
  }
  if (flagged.empty()) {
    d.findings.push_back(
        fmt::format("every group reaches at least {:.0f}% of the median group's busbw at {}",
                    kGroupFarBelowMedian * 100, s.size));
  } else if (flagged.size() > 1) {
    // In pairs, a slow rank slows every pair it is in: the rank they share is the suspect.
    std::set<int> common(flagged.front()->ranks.begin(), flagged.front()->ranks.end());
    for (const GroupRate* g : flagged) {
      std::set<int> both;
      for (int r : g->ranks) {
        if (common.count(r) != 0) both.insert(r);
      }
      common = std::move(both);
    }
    for (int r : common) {
      d.findings.push_back(fmt::format(
          "rank {} is in every flagged group: suspect its GPU, its links or its node first",
          describeRank(r, ranks)));
    }
  }
  const auto noisiest =
      std::max_element(s.groups.begin(), s.groups.end(),
                       [](const GroupRate& a, const GroupRate& b) { return a.noise < b.noise; });
  if (noisiest->noise > kGroupNoiseCaution) {
    d.findings.push_back(fmt::format(
        "the samples of group {} spread by {:.0f}% (std/mean): differences that large can be "
        "noise rather than links; give each case more time (--min-time) or each rank a core",
        noisiest->group, noisiest->noise * 100));
  }
  return d;
}

}  // namespace

std::vector<DerivedResult> deriveGroupFigures(const std::vector<CaseResult>& cases,
                                              const std::vector<RankInfo>& ranks) {
  const std::vector<Series> series = collectSeries(cases, ranks);
  std::set<std::string> across_nodes;  // series (by tag) with groups across nodes
  for (const Series& s : series) {
    if (s.nodes > 1) across_nodes.insert(s.tag);
  }
  std::vector<DerivedResult> derived;
  for (const Series& s : series) {
    derived.push_back(deriveSeries(s, across_nodes.count(s.tag) != 0, ranks));
  }
  return derived;
}

}  // namespace splitstep
