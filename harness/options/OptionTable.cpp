#include "options/OptionTable.hpp"

#include "options/OptionBuilders.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace splitstep {
namespace {

// Defaults are sized for a GPU; configs/cpu-quick.ini holds sizes a CPU finishes in seconds, and
// is what a run takes instead where no rank sees a GPU (options/CpuPreset.hpp).
constexpr std::int64_t kMaxMatmulSize = 65536;
constexpr std::uint64_t kMaxBufferBytes = 64ull << 30;
constexpr int kMaxProjectedRanks = 1 << 20;
constexpr int kMaxGpusPerNode = 1 << 16;
constexpr int kMaxRank = 1 << 20;
constexpr double kMaxSlowMs = 60000;

// "8192" (square) or "MxNxK".
std::vector<MatmulShape> matmulShapes(const OptionValue& value) {
  std::vector<MatmulShape> shapes;
  for (const std::string& item : value.list()) {
    std::vector<std::int64_t> dims;
    std::string_view rest = item;
    for (;;) {
      const std::size_t cross = rest.find('x');
      const OptionValue dim(value.option(), std::string(rest.substr(0, cross)));
      std::int64_t parsed = 0;
      try {
        parsed = dim.integer(1, kMaxMatmulSize);
      } catch (const UsageError&) {
        value.fail(fmt::format("'{}' is not N or MxNxK with each in [1, {}]", printable(item),
                               kMaxMatmulSize));
      }
      dims.push_back(parsed);
      if (cross == std::string_view::npos) break;
      rest.remove_prefix(cross + 1);
    }
    if (dims.size() == 1) {
      shapes.push_back({dims[0], dims[0], dims[0]});
    } else if (dims.size() == 3) {
      shapes.push_back({dims[0], dims[1], dims[2]});
    } else {
      value.fail(fmt::format("'{}' is not N or MxNxK", printable(item)));
    }
  }
  return shapes;
}

// off, on (the default interval) or an interval.
TelemetryPlan telemetryPlan(const OptionValue& value) {
  constexpr double kShortest = 0.005;
  constexpr double kLongest = 10;
  if (value.text() == "off") return {false, TelemetryPlan{}.interval};
  if (value.text() == "on") return {};
  try {
    return {true, value.seconds(kShortest, kLongest)};
  } catch (const UsageError&) {
    value.fail(
        fmt::format("'{}' is not off, on or an interval from 5ms to 10s", printable(value.text())));
  }
}

// --groups: all, pairs, nodes, size:N, or groups of ranks "0,1;2,3". A group needs two ranks
// (the two ends of a link); whether the ranks exist is known only at start-up.
GroupSpec groupSpec(const OptionValue& value) {
  const std::string& text = value.text();
  if (text == "all") return {GroupKind::All, 0, {}};
  if (text == "pairs") return {GroupKind::Pairs, 0, {}};
  if (text == "nodes") return {GroupKind::Nodes, 0, {}};
  const auto malformed = [&value, &text] {
    value.fail(fmt::format("'{}' is not all, pairs, nodes, size:N or groups such as 0,1;2,3",
                           printable(text)));
  };
  if (text.starts_with("size:")) {
    return {
        GroupKind::Size, integerIn(OptionValue(value.option(), text.substr(5)), 2, kMaxRank), {}};
  }
  GroupSpec spec{GroupKind::List, 0, {}};
  std::set<std::vector<int>> seen;
  std::string_view rest = text;
  for (;;) {
    const std::size_t semicolon = rest.find(';');
    const std::string item(rest.substr(0, semicolon));
    if (item.empty() || item.find_first_not_of("0123456789,") != std::string::npos) malformed();
    std::vector<int> group;
    for (const std::string& rank : OptionValue(value.option(), item).list()) {
      group.push_back(integerIn(OptionValue(value.option(), rank), 0, kMaxRank));
    }
    if (group.size() < 2) {
      value.fail(fmt::format("group '{}' has one rank; a group needs two or more", item));
    }
    std::sort(group.begin(), group.end());
    if (!seen.insert(group).second) value.fail(fmt::format("group '{}' given twice", item));
    spec.list.push_back(std::move(group));
    if (semicolon == std::string_view::npos) break;
    rest.remove_prefix(semicolon + 1);
  }
  return spec;
}

// --groups typed: all, pairs, nodes by name, size:N as the group size N, and groups of ranks as
// lists of ranks.
TypedValue groupsValue(const GroupSpec& spec) {
  switch (spec.kind) {
    case GroupKind::All:
      return text("all");
    case GroupKind::Pairs:
      return text("pairs");
    case GroupKind::Nodes:
      return text("nodes");
    case GroupKind::Size:
      return integer(spec.size);
    case GroupKind::List:
      break;
  }
  TypedValue::List groups;
  for (const std::vector<int>& group : spec.list) groups.push_back(list(group));
  return typedList(std::move(groups));
}

bool slowMs(double x) { return x >= 0 && x <= kMaxSlowMs; }

std::vector<int> rankCounts(const OptionValue& value) {
  std::vector<int> ranks;
  for (const std::string& item : value.list()) {
    ranks.push_back(integerIn(OptionValue(value.option(), item), 2, kMaxProjectedRanks));
  }
  return ranks;
}

// Run: where the ranks run.
std::vector<OptionSpec> runOptions() {
  // clang-format off
  return {
    option("device", "auto",
      "auto (one GPU per rank if any; else the CPU, with the CPU preset), cuda, cpu (with the CPU "
      "preset)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.launch.device = v.choice<DeviceKind>("device"); },
      [](const RunPlan& p) { return text(toString(p.launch.device)); }),
    flagOption("allow-gpu-sharing", "let several ranks of a node share one GPU",
      [](const OptionValue& v, PlanDraft& d) { d.plan.launch.allow_gpu_sharing = v.onOff(); },
      [](const RunPlan& p) { return flag(p.launch.allow_gpu_sharing); }),
  };
  // clang-format on
}

// Measurement: how every suite times its cases, and what is read beside them.
std::vector<OptionSpec> measurementOptions() {
  const MeasureSettings m{};
  // clang-format off
  return {
    option("warmup", std::to_string(m.warmup), "untimed executions after the timed cold start",
      [](const OptionValue& v, PlanDraft& d) { d.plan.measure.warmup = v.count(0); },
      [](const RunPlan& p) { return integer(p.measure.warmup); }),
    option("warmup-time", "0", "then more warm-up until this much time (e.g. 500ms) has passed",
      [](const OptionValue& v, PlanDraft& d) { d.plan.measure.warmup_time = v.seconds(0, 3600); },
      [](const RunPlan& p) { return number(p.measure.warmup_time); }),
    option("loops", "0", "executions per sample; 0: autorange to --min-sample-time",
      [](const OptionValue& v, PlanDraft& d) { d.plan.measure.loops = v.count(0); },
      [](const RunPlan& p) { return integer(p.measure.loops); }),
    option("min-sample-time", "2ms",
      "autorange: shortest sample (and at least 1000x the timer's overhead)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.measure.min_sample_time = v.seconds(1e-6, 60); },
      [](const RunPlan& p) { return number(p.measure.min_sample_time); }),
    option("samples", "0", "fixed number of samples; 0: sample until the stopping rule holds",
      [](const OptionValue& v, PlanDraft& d) { d.plan.measure.samples = v.count(0); },
      [](const RunPlan& p) { return integer(p.measure.samples); }),
    option("min-samples", std::to_string(m.min_samples), "stopping rule: at least this many samples",
      [](const OptionValue& v, PlanDraft& d) { d.plan.measure.min_samples = v.count(1); },
      [](const RunPlan& p) { return integer(p.measure.min_samples); }),
    option("min-time", "0.5s",
      "stopping rule: at least this much timed work before the median's interval or a stable "
      "noise may end a case (a quiet one ends once --min-samples show it within --max-noise)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.measure.min_time = v.seconds(0, 3600); },
      [](const RunPlan& p) { return number(p.measure.min_time); }),
    option("max-noise", "0.5%",
      "stopping rule: stop once std/mean of the samples (their spread) is at most this",
      [](const OptionValue& v, PlanDraft& d) { d.plan.measure.max_noise = v.percent(); },
      [](const RunPlan& p) { return number(p.measure.max_noise); }),
    option("ci-target", "0.5%",
      "stopping rule: stop once the 95% confidence interval of the median reaches at most this "
      "far from it (the estimate is known well enough)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.measure.ci_target = v.percent(); },
      [](const RunPlan& p) { return number(p.measure.ci_target); }),
    option("max-time", "15s", "stopping rule: stop anyway after this much wall time per case",
      [](const OptionValue& v, PlanDraft& d) { d.plan.measure.max_time = v.seconds(1e-3, 86400); },
      [](const RunPlan& p) { return number(p.measure.max_time); }),
    flagOption("queued-start", "hold the stream with a spin kernel while a sample is queued (no launch gaps)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.measure.queued_start = v.onOff(); },
      [](const RunPlan& p) { return flag(p.measure.queued_start); }),
    flagOption("l2-flush", "clear the L2 cache before every sample (one loop per sample)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.measure.l2_flush = v.onOff(); },
      [](const RunPlan& p) { return flag(p.measure.l2_flush); }),
    flagOption("cuda-graph", "capture the body as a CUDA graph and time its replays",
      [](const OptionValue& v, PlanDraft& d) { d.plan.measure.cuda_graph = v.onOff(); },
      [](const RunPlan& p) { return flag(p.measure.cuda_graph); }),
    option("check", "on",
      "verify results after the timed samples (on, off): every element of a collective; step: "
      "ranks hold identical parameters equal to a one-process reference",
      [](const OptionValue& v, PlanDraft& d) { d.plan.collectives.check = d.plan.step.check = v.onOff(); },
      [](const RunPlan& p) {
        // One option sets both; a plan built otherwise may differ, and must hash differently.
        if (p.collectives.check == p.step.check) return flag(p.step.check);
        return text(fmt::format("collectives {}, step {}", p.collectives.check ? "on" : "off",
                                p.step.check ? "on" : "off"));
      }),
    option("telemetry", "on",
      "read GPU clocks, power, temperature, clock limits and NVLink/PCIe throughput on a thread "
      "of each rank during every case: off, on (every 20ms) or an interval from 5ms to 10s",
      [](const OptionValue& v, PlanDraft& d) { d.plan.telemetry = telemetryPlan(v); },
      [](const RunPlan& p) { return p.telemetry.enabled ? number(p.telemetry.interval) : text("off"); }),
  };
  // clang-format on
}

// The matmul suite.
std::vector<OptionSpec> matmulOptions() {
  // clang-format off
  return {
    option("matmul-sizes", "4096,8192", "matmul: square sizes n of the n x n x n products, or MxNxK",
      [](const OptionValue& v, PlanDraft& d) { d.plan.matmul.shapes = matmulShapes(v); },
      [](const RunPlan& p) {
        // A square product as its n, any other as [m, n, k].
        TypedValue::List shapes;
        for (const MatmulShape& shape : p.matmul.shapes) {
          shapes.push_back(shape.m == shape.n && shape.n == shape.k
                               ? integer(shape.n)
                               : typedList({integer(shape.m), integer(shape.n), integer(shape.k)}));
        }
        return typedList(std::move(shapes));
      }),
    option("matmul-dtypes", "fp32,tf32,fp16,bf16", "matmul: " + enumChoices<MatmulDtype>() + " (fp32: TF32 off)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.matmul.dtypes = v.choices<MatmulDtype>(); },
      [](const RunPlan& p) { return names(p.matmul.dtypes); }),
  };
  // clang-format on
}

// The membw suite.
std::vector<OptionSpec> membwOptions() {
  // clang-format off
  return {
    // Copy and triad kernels move 16-byte vectors.
    option("membw-bytes", "1G", "membw: size of each array (copy, triad, host<->device copies)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.membw.bytes = v.byteList(16, kMaxBufferBytes); },
      [](const RunPlan& p) { return list(p.membw.bytes); }),
  };
  // clang-format on
}

// The collective suites (allreduce and the others), their test hooks among them.
std::vector<OptionSpec> collectiveOptions() {
  // clang-format off
  return {
    option("bytes", "8,1K,64K,1M,16M,64M,256M,1G",
      "collectives: message sizes in bytes (suffixes K, M, G are powers of 1024)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.collectives.bytes = v.byteList(4, kMaxBufferBytes); },
      [](const RunPlan& p) { return list(p.collectives.bytes); }),
    option("min-bytes", std::nullopt, "collectives: sweep from this size (nccl-tests -b)",
      [](const OptionValue& v, PlanDraft& d) { d.sweep.min_bytes = v.byteList(4, kMaxBufferBytes).front(); },
      nullptr),
    option("max-bytes", std::nullopt, "collectives: sweep to this size (nccl-tests -e)",
      [](const OptionValue& v, PlanDraft& d) { d.sweep.max_bytes = v.byteList(4, kMaxBufferBytes).front(); },
      nullptr),
    option("step-factor", "2", "collectives: multiply the size by this between sweep steps (nccl-tests -f)",
      [](const OptionValue& v, PlanDraft& d) { d.sweep.factor = integerIn(v, 2, 1024); },
      nullptr),
    option("sweep-time", "0",
      "collectives: at most this much time (e.g. 10s) for each collective's cases, spread over "
      "them by what each needs; a case stopped on it says sweep-time (0: none)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.collectives.sweep_time = v.seconds(0, 86400); },
      [](const RunPlan& p) { return number(p.collectives.sweep_time); }),
    option("collective-dtypes", "fp32", "collectives: " + enumChoices<CollectiveDtype>() + " (sum for reductions)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.collectives.dtypes = v.choices<CollectiveDtype>(); },
      [](const RunPlan& p) { return names(p.collectives.dtypes); }),
    option("placement", "out", "collectives: out (of place), in (place), or both: out,in",
      [](const OptionValue& v, PlanDraft& d) { d.plan.collectives.placements = v.choices<Placement>(); },
      [](const RunPlan& p) { return names(p.collectives.placements); }),
    option("backend", "auto",
      "collectives: nccl, mpi, or both side by side: nccl,mpi; auto: nccl on GPUs, mpi on CPUs",
      [](const OptionValue& v, PlanDraft& d) {
        d.plan.collectives.backends.clear();
        if (v.text() != "auto") d.plan.collectives.backends = v.choices<Backend>();
      },
      [](const RunPlan& p) {
        return p.collectives.backends.empty() ? text("auto") : names(p.collectives.backends);
      }),
    option("blocking", "off",
      "collectives: the host waits for each call before the next (on, off; nccl-tests -z)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.collectives.blocking = v.onOff(); },
      [](const RunPlan& p) { return flag(p.collectives.blocking); }),
    option("groups", "all",
      "collectives: run each within groups of ranks: all (every rank together), pairs (every "
      "pair), nodes (the ranks of each node), size:N (consecutive ranks, N at a time) or a list "
      "such as 0,1;2,3",
      [](const OptionValue& v, PlanDraft& d) { d.plan.collectives.groups = groupSpec(v); },
      [](const RunPlan& p) { return groupsValue(p.collectives.groups); }),
    option("group-mode", "sequential",
      "collectives: sequential (one group at a time, alone on its links) or concurrent (every "
      "group at once; groups that share ranks take turns)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.collectives.group_mode = v.choice<GroupMode>(); },
      [](const RunPlan& p) { return text(toString(p.collectives.group_mode)); }),
    testHook("test-slow-rank", "-1",
      "for tests of --groups only: this rank waits --test-slow-ms on the host in every timed collective",
      [](const OptionValue& v, PlanDraft& d) { d.plan.collectives.slow_rank = integerIn(v, -1, kMaxRank); },
      [](const RunPlan& p) { return integer(p.collectives.slow_rank); }),
    testHook("test-slow-ms", "0", "for tests of --groups only: see --test-slow-rank, in [0, 60000]",
      [](const OptionValue& v, PlanDraft& d) {
        d.plan.collectives.slow_seconds = v.number(slowMs, "a number of milliseconds in [0, 60000]") / 1000;
      },
      [](const RunPlan& p) { return number(p.collectives.slow_seconds * 1000); }),
    testHook("test-spoil-rank", "-1",
      "for tests of the exit status only: this rank overwrites one element of each collective's result before its check",
      [](const OptionValue& v, PlanDraft& d) { d.plan.collectives.spoil_rank = integerIn(v, -1, kMaxRank); },
      [](const RunPlan& p) { return integer(p.collectives.spoil_rank); }),
    option("nccl-algorithms", "off",
      "collectives: show the algorithm, protocol and channels NCCL chose per case, from NCCL's "
      "profiler plugin interface (on, off; off until its cost per call is measured)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.collectives.nccl_algorithms = v.onOff(); },
      [](const RunPlan& p) { return flag(p.collectives.nccl_algorithms); }),
  };
  // clang-format on
}

// The projection of the collectives and the step to more ranks.
std::vector<OptionSpec> projectionOptions() {
  // clang-format off
  return {
    option("project-ranks", "4,8,16,32,64,128,256,512,1024",
      "analysis: rank counts to project the collectives and the step to",
      [](const OptionValue& v, PlanDraft& d) { d.plan.projection.ranks = rankCounts(v); },
      [](const RunPlan& p) { return list(p.projection.ranks); }),
    option("project-gpus-per-node", "8",
      "analysis: ranks per node in the projection, joined by the measured link; more cross the network",
      [](const OptionValue& v, PlanDraft& d) { d.plan.projection.gpus_per_node = integerIn(v, 1, kMaxGpusPerNode); },
      [](const RunPlan& p) { return integer(p.projection.gpus_per_node); }),
    option("project-internode-bw", "50",
      "analysis: network bandwidth per rank between nodes in GB/s (a 400 Gb/s NIC per GPU: 50)",
      [](const OptionValue& v, PlanDraft& d) {
        d.plan.projection.internode_bandwidth = v.number(positive, "a positive number of GB/s") * 1e9;
      },
      [](const RunPlan& p) { return number(p.projection.internode_bandwidth / 1e9); }),
    option("project-internode-latency", "measured",
      "analysis: network latency per message between nodes (e.g. 5us); measured: the measured link's",
      [](const OptionValue& v, PlanDraft& d) {
        d.plan.projection.internode_latency.reset();
        if (v.text() != "measured") d.plan.projection.internode_latency = v.seconds(0, 1);
      },
      [](const RunPlan& p) {
        return p.projection.internode_latency ? number(*p.projection.internode_latency)
                                              : text("measured");
      }),
  };
  // clang-format on
}

// An output file's option: its path, kept in the plan's list of output files (whose entries are
// the plan's, not the option's).
OptionSpec outputFileOption(const OutputInfo& info) {
  const std::string name(info.name);
  const bool timelines = info.needs_timelines;
  return {.name = name,
          .default_text = std::nullopt,
          .help = std::string(info.help),
          .parse =
              [name, timelines](const OptionValue& v, PlanDraft& d) {
                // The path is checked whatever the draft holds: a config file's value that the
                // command line overrides is parsed into a draft with no output entries.
                const std::string& path = v.path();
                auto& files = d.plan.output.files;
                const auto file = std::find_if(files.begin(), files.end(),
                                               [&](const OutputFile& f) { return f.name == name; });
                if (file == files.end()) {
                  files.push_back({name, path});
                } else {
                  file->path = path;
                }
                d.plan.output.timelines = d.plan.output.timelines || timelines;
              },
          .canonical = nullptr};
}

// The outputs' settings.
std::vector<OptionSpec> outputOptions() {
  // clang-format off
  return {
    flagOption("quiet", "no progress line on stderr (rank 0 prints one where stderr is a terminal)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.output.quiet = v.onOff(); },
      [](const RunPlan& p) { return flag(p.output.quiet); }),
    flagOption("verbose",
      "the console adds each case's %timeit lines, per-rank figures, the projection and the "
      "collectives' model (the files hold them either way)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.output.verbose = v.onOff(); },
      [](const RunPlan& p) { return flag(p.output.verbose); }),
    option("format", "console",
      "the console's layout: console (one line per case) or nccl-tests (nccl-tests' table of "
      "the collectives)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.output.format = v.choice<ConsoleFormat>("format"); },
      [](const RunPlan& p) { return text(toString(p.output.format)); }),
    flagOption("fail-below-expected",
      "exit with status 3 when the verdict finds a figure below expected (a node check's failure; "
      "wrong elements exit 1 without it)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.output.fail_below_expected = v.onOff(); },
      [](const RunPlan& p) { return flag(p.output.fail_below_expected); }),
    flagOption("overwrite",
      "let the output files replace a file splitstep did not write (without it, such a file is "
      "refused at start)",
      [](const OptionValue& v, PlanDraft& d) { d.plan.output.overwrite = v.onOff(); },
      [](const RunPlan& p) { return flag(p.output.overwrite); }),
  };
  // clang-format on
}

// Faults: deadlines, and the hooks of their tests.
std::vector<OptionSpec> faultOptions() {
  // clang-format off
  return {
    option("timeout", "300s", "longest wait on another rank before the job is ended with an error",
      [](const OptionValue& v, PlanDraft& d) { d.plan.launch.timeout = v.seconds(0.1, 7 * 86400); },
      [](const RunPlan& p) { return number(p.launch.timeout); }),
    testHook("test-stall-rank", "-1",
      "for tests of --timeout only: this rank stops answering once --test-stall-after cases are done",
      [](const OptionValue& v, PlanDraft& d) { d.plan.launch.stall_rank = integerIn(v, -1, 1 << 30); },
      [](const RunPlan& p) { return integer(p.launch.stall_rank); }),
    testHook("test-stall-after", "0", "for tests of --timeout only: see --test-stall-rank",
      [](const OptionValue& v, PlanDraft& d) { d.plan.launch.stall_after = v.count(0); },
      [](const RunPlan& p) { return integer(p.launch.stall_after); }),
  };
  // clang-format on
}

constexpr std::string_view kOutputsTitle = "Outputs";

std::vector<OptionSection> buildSections() {
  return {
      {"Run", runOptions()},
      {"Measurement (every suite)", measurementOptions()},
      {"matmul suite", matmulOptions()},
      {"membw suite", membwOptions()},
      {"Collective suites (allreduce, reduce_scatter, ...)", collectiveOptions()},
      {"step suite", stepOptions()},
      {"step suite: the models' shapes (each model reads its own)", stepShapeOptions()},
      {"Projection (analysis)", projectionOptions()},
      {std::string(kOutputsTitle), outputOptions()},
      {"Faults", faultOptions()},
  };
}

std::vector<OptionSpec> buildTable() {
  std::vector<OptionSpec> table;
  for (const OptionSection& section : optionSections()) {
    table.insert(table.end(), section.options.begin(), section.options.end());
  }
  return table;
}

}  // namespace

std::vector<OptionSection> optionSections(std::span<const OutputInfo> outputs) {
  std::vector<OptionSection> sections = optionSections();
  for (OptionSection& section : sections) {
    if (section.title != kOutputsTitle) continue;
    std::vector<OptionSpec> files;
    for (const OutputInfo& info : outputs) files.push_back(outputFileOption(info));
    section.options.insert(section.options.begin(), files.begin(), files.end());
  }
  return sections;
}

const std::vector<OptionSection>& optionSections() {
  static const std::vector<OptionSection> sections = buildSections();
  return sections;
}

const std::vector<OptionSpec>& optionTable() {
  static const std::vector<OptionSpec> table = buildTable();
  return table;
}

}  // namespace splitstep
