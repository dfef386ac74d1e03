// The host memory a node can give the ranks of a run, and what each rank takes before any case:
// read at start, so that ranks that cannot all fit are refused before anything large is
// allocated, and every case is judged against what is left once the ranks' own memory is taken.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace splitstep {

// What one rank holds before any case, at least: its private memory (RssAnon) at the peak of
// runs whose cases take next to nothing (allreduce of 8 B, the step of configs/cpu-quick.ini)
// on a CPU, LibTorch 2.11 and Open MPI 4.1, measured with /proc/PID/status every 20 ms: 180 to
// 183 MiB at 2, 4 and 8 ranks, already 180 MiB when the start-up checks run (LibTorch's static
// initialisation and MPI_Init). The libraries' code (RssFile, about 290 MiB) is shared by the
// node's ranks through the page cache and counted once, inside MemAvailable. A GPU rank holds
// more (the CUDA context), which its own RssAnon, read after the device is opened, shows.
inline constexpr std::uint64_t kRankBaseBytes = 192ull << 20;

// One node's host memory as the run's ranks on it see it at start.
struct NodeMemory {
  int ranks = 1;                // the run's ranks on the node
  std::uint64_t available = 0;  // MemAvailable, read now
  // What those ranks hold now (the sum of their RssAnon): taken before MemAvailable was read,
  // so the node had this much more for the run.
  std::uint64_t held = 0;
  // What the ranks take before any case: for each, the larger of what it holds and
  // kRankBaseBytes, summed over the node's ranks.
  std::uint64_t base = 0;

  // The node's memory for the run: MemAvailable and what the ranks hold.
  std::uint64_t total() const { return available + held; }
};

// Why the node cannot hold its ranks before any case runs (more than MemoryBudget::kUsable of
// total()), with the numbers and how many ranks would fit; empty when they fit.
std::optional<std::string> ranksRefusal(const NodeMemory& node, std::string_view host);

// One rank's share of the node's memory left for cases once its ranks hold their base, such that
// MemoryBudget::usable of the share, taken by every rank, leaves a tenth (1 - kUsable) of
// total() free: (total() - base / kUsable) / ranks, 0 when nothing is left.
std::uint64_t caseShare(const NodeMemory& node);

// This process's RssAnon (/proc/self/status), in bytes; empty where it cannot be read.
std::optional<std::uint64_t> heldHostMemory();

// The RssAnon line of a /proc/PID/status text, in bytes.
std::optional<std::uint64_t> parseRssAnon(std::string_view status);

}  // namespace splitstep
