// Is this node as fast as it should be? Each node's best bf16 GEMM, HBM triad, host<->device copy
// and NVLink allreduce busbw held to the reference figures of its GPU model
// (derived/ReferenceFigures), in one closing line per node (docs/verdict.md).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/EnumNames.hpp"
#include "derived/CaseResult.hpp"
#include "derived/Derived.hpp"
#include "meta/RankInfo.hpp"

namespace splitstep {

// A measured figure under this share of its expected one is "below expected". The committed
// healthy H200 runs (results/) reach 85% to 104% of the expected figures (the quick preset's
// 4096 GEMM the least: 679 of 797 TFLOP/s, with the clock held by the power cap), while the
// faults the verdict is for cost far more: a competing GEMM loop halves the GEMM, a PCIe link at
// Gen4 halves host<->device, NCCL_MAX_NCHANNELS=1 leaves allreduce a fraction of its busbw.
inline constexpr double kBelowExpected = 0.80;

enum class VerdictItem { GemmBf16, HbmTriad, HostDevice, AllreduceBusbw };

template <>
struct EnumNames<VerdictItem> {
  // The tags' and the metrics' names.
  static constexpr std::array values = {
      std::pair{VerdictItem::GemmBf16, std::string_view("gemm-bf16")},
      std::pair{VerdictItem::HbmTriad, std::string_view("hbm-triad")},
      std::pair{VerdictItem::HostDevice, std::string_view("host-device")},
      std::pair{VerdictItem::AllreduceBusbw, std::string_view("allreduce-busbw")}};
};

// For people: "bf16 GEMM", "HBM", "host<->device", "allreduce busbw".
std::string_view itemLabel(VerdictItem item);

struct ItemVerdict {
  VerdictItem item = VerdictItem::GemmBf16;
  std::string unit;  // of measured and expected: "TFLOP/s" or "GB/s"
  // Unset where the item was not judged; `not_judged` then says why ("membw not run").
  std::optional<double> measured;
  double expected = 0;
  std::string not_judged;
  // The rank whose figure `measured` is (the node's lowest against its expectation); -1 for
  // allreduce, a figure of all its ranks together.
  int rank = -1;
  std::vector<std::pair<int, double>> per_rank;  // each rank's figure, for per-GPU items
  std::string what;  // the case it is: "bf16 n=8192", "triad 256 MiB", "2 GPUs, 4 GiB"
  std::string expected_source;
  // The GPU model the expected figure was measured on, where another than the node's
  // (ReferenceFigure::measured_on); the line says so.
  std::string_view expected_on;
  std::string clock_limit;  // what held the SM clock down while `what` was timed, if anything

  double ratio() const { return measured && expected > 0 ? *measured / expected : 0; }
  bool below() const { return measured && ratio() < kBelowExpected; }
};

struct NodeVerdict {
  int node = 0;
  std::string host;
  std::string gpu;  // the node's GPU model as NVML names it; several joined by ", "
  bool has_reference = false;
  std::vector<ItemVerdict> items;  // every item, judged or not, in VerdictItem order

  bool healthy() const;
  // The closing line: "node vm: healthy — bf16 GEMM 672 TFLOP/s (91% of expected), ...", of
  // the judged items (or why none was judged).
  std::string line(const std::vector<RankInfo>& ranks) const;
  // "not judged: HBM (no membw triad case), ..." where some item was not; else empty.
  std::string notJudged() const;
};

// One verdict per node of `ranks` (in node order), from the cases measured so far.
std::vector<NodeVerdict> judgeNodes(const std::vector<CaseResult>& cases,
                                    const std::vector<RankInfo>& ranks);

// `verdicts` (judgeNodes') as derived results, one per node: suite "verdict", subject "node
// <host>", figures "verdict/<item>/measured|expected|ratio" for each judged item, findings[0]
// the line, findings[1] (where there is one) what was not judged and why.
std::vector<DerivedResult> deriveVerdict(const std::vector<NodeVerdict>& verdicts,
                                         const std::vector<RankInfo>& ranks);

}  // namespace splitstep
