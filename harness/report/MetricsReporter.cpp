#include "report/MetricsReporter.hpp"

#include <fmt/format.h>

#include <functional>

#include "cases/Rates.hpp"
#include "report/AtomicFile.hpp"

namespace splitstep {
namespace {

// A label value as the exposition format escapes it: backslash, double quote and line feed.
std::string escaped(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    out += c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  return out;
}

// Prometheus wants base units: FLOP/s and bytes/s rather than TFLOP/s and GB/s.
// A verdict item's unit is that of the rate it judges: TFLOP/s or a bandwidth's GB/s.
double baseScale(const std::string& unit) {
  return unit == rates::kTflops.unit ? rates::kTflops.scale : rates::kMemoryBandwidth.scale;
}
std::string baseSuffix(const std::string& unit) {
  return unit == rates::kTflops.unit ? "flop_per_second" : "bytes_per_second";
}

struct Family {
  std::string name;
  std::string help;
  std::vector<std::string> samples;
};

}  // namespace

std::string metricsText(const std::vector<NodeVerdict>& verdicts, bool complete) {
  Family healthy{"splitstep_verdict_healthy",
                 "1 where the node was judged and every judged item reached 80% of its expected "
                 "figure, else 0",
                 {}};
  Family reference{"splitstep_verdict_reference",
                   "1 where the reference table has figures for the node's GPU, else 0",
                   {}};
  Family judged{"splitstep_verdict_judged",
                "1 where the item was measured and judged, 0 where not (the console says why)",
                {}};
  Family ratio{"splitstep_verdict_ratio", "measured over expected (1: as expected)", {}};
  Family below{"splitstep_verdict_below_expected",
               "1 where the measured figure is under 80% of the expected one, else 0",
               {}};
  std::vector<Family> figures;  // measured and expected, per base unit
  // The family of the node's measured figures or of the expected ones, in one base unit.
  const auto figureFamily = [&figures](bool measured, const std::string& suffix) -> Family& {
    const std::string name =
        fmt::format("splitstep_verdict_{}_{}", measured ? "measured" : "expected", suffix);
    for (Family& f : figures) {
      if (f.name == name) return f;
    }
    return figures.emplace_back(Family{
        name,
        measured ? "the node's measured figure (its lowest GPU's, for a per-GPU item)"
                 : "the figure a healthy node of this GPU reaches (docs/verdict.md cites each)",
        {}});
  };
  for (const NodeVerdict& node : verdicts) {
    const std::string labels =
        fmt::format("node=\"{}\",gpu=\"{}\"", escaped(node.host), escaped(node.gpu));
    healthy.samples.push_back(fmt::format("{{{}}} {}", labels, node.healthy() ? 1 : 0));
    reference.samples.push_back(fmt::format("{{{}}} {}", labels, node.has_reference ? 1 : 0));
    for (const ItemVerdict& item : node.items) {
      const std::string item_labels =
          fmt::format("{{{},item=\"{}\"}}", labels, toString(item.item));
      judged.samples.push_back(fmt::format("{} {}", item_labels, item.measured ? 1 : 0));
      if (!item.measured) continue;
      ratio.samples.push_back(fmt::format("{} {}", item_labels, item.ratio()));
      below.samples.push_back(fmt::format("{} {}", item_labels, item.below() ? 1 : 0));
      const double scale = baseScale(item.unit);
      const std::string suffix = baseSuffix(item.unit);
      figureFamily(true, suffix)
          .samples.push_back(fmt::format("{} {}", item_labels, *item.measured * scale));
      figureFamily(false, suffix)
          .samples.push_back(fmt::format("{} {}", item_labels, item.expected * scale));
    }
  }
  Family run{"splitstep_run_complete",
             "1 once the run's last case was measured; 0 while it runs or where it ended early",
             {fmt::format(" {}", complete ? 1 : 0)}};
  std::string text = fmt::format(
      "{}: the verdict of a splitstep run against reference figures (docs/verdict.md)\n",
      kMetricsSchema);
  std::vector<std::reference_wrapper<const Family>> all = {healthy, reference, judged, ratio,
                                                           below};
  for (const Family& f : figures) all.emplace_back(f);
  all.emplace_back(run);
  for (const Family& f : all) {
    text += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", f.name, f.help, f.name);
    for (const std::string& sample : f.samples) text += f.name + sample + '\n';
  }
  return text;
}

void MetricsReporter::reportVerdict(const std::vector<NodeVerdict>& verdicts) {
  verdicts_ = verdicts;
  write(false);
}

void MetricsReporter::write(bool complete) const {
  writeFileAtomically(path_, metricsText(verdicts_, complete));
}

}  // namespace splitstep
