#include "options/Options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace po = boost::program_options;

namespace splitstep {
namespace {

const std::vector<std::string> kSuiteNames = {"matmul",         "membw",     "allreduce",
                                              "reduce_scatter", "allgather", "broadcast"};
// Without suites on the command line: the compute and memory ceilings and the allreduce.
const std::vector<std::string> kDefaultSuites = {"matmul", "membw", "allreduce"};

// Defaults are sized for a GPU; configs/cpu-quick.ini holds sizes a CPU finishes in seconds.
constexpr const char* kDefaultMatmulSizes = "4096,8192";
constexpr const char* kDefaultMatmulDtypes = "fp32,tf32,fp16,bf16";
constexpr const char* kDefaultMembwBytes = "1G";
constexpr const char* kDefaultCollectiveBytes = "8,1K,64K,1M,16M,64M,256M,1G";
constexpr std::int64_t kMaxMatmulSize = 65536;
constexpr std::uint64_t kMaxBufferBytes = 64ull << 30;
constexpr int kMaxCount = 1'000'000;

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> items;
  std::string item;
  std::istringstream stream(text);
  while (std::getline(stream, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    items.push_back(item);
  }
  return items;
}

bool parseNumber(std::string_view text, double& out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && std::isfinite(out);
}

template <typename Int>
bool parseInteger(std::string_view text, Int& out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

[[noreturn]] void fail(const std::string& option, const std::string& reason) {
  throw UsageError(fmt::format("--{}: {}", option, reason));
}

std::vector<std::string> nonEmptyList(const std::string& option, const std::string& text) {
  std::vector<std::string> items = splitList(text);
  if (items.empty()) fail(option, "the list is empty");
  for (const std::string& item : items) {
    if (item.empty()) fail(option, fmt::format("empty entry in '{}'", text));
  }
  return items;
}

int boundedCount(const std::string& option, int value, int min) {
  if (value < min || value > kMaxCount) {
    fail(option, fmt::format("{} is out of range [{}, {}]", value, min, kMaxCount));
  }
  return value;
}

// "8192" (square) or "MxNxK".
std::vector<MatmulShape> parseMatmulSizes(const std::string& text) {
  std::vector<MatmulShape> shapes;
  for (const std::string& item : nonEmptyList("matmul-sizes", text)) {
    std::vector<std::int64_t> dims;
    std::string_view rest = item;
    for (;;) {
      const std::size_t cross = rest.find('x');
      std::int64_t dim = 0;
      if (!parseInteger(rest.substr(0, cross), dim) || dim < 1 || dim > kMaxMatmulSize) {
        fail("matmul-sizes",
             fmt::format("'{}' is not N or MxNxK with each in [1, {}]", item, kMaxMatmulSize));
      }
      dims.push_back(dim);
      if (cross == std::string_view::npos) break;
      rest.remove_prefix(cross + 1);
    }
    if (dims.size() == 1) {
      shapes.push_back({dims[0], dims[0], dims[0]});
    } else if (dims.size() == 3) {
      shapes.push_back({dims[0], dims[1], dims[2]});
    } else {
      fail("matmul-sizes", fmt::format("'{}' is not N or MxNxK", item));
    }
  }
  return shapes;
}

// Byte sizes of fp32 buffers; `granule` is what each size must be a multiple of.
std::vector<std::uint64_t> parseBufferBytes(const std::string& option, const std::string& text,
                                            std::uint64_t granule) {
  std::vector<std::uint64_t> sizes;
  for (const std::string& item : nonEmptyList(option, text)) {
    const std::uint64_t bytes = parseByteSize(option, item);
    if (bytes < granule || bytes % granule != 0 || bytes > kMaxBufferBytes) {
      fail(option,
           fmt::format("'{}' is not a multiple of {} B in [{} B, 64 GiB]", item, granule, granule));
    }
    sizes.push_back(bytes);
  }
  return sizes;
}

double boundedSeconds(const std::string& option, const std::string& text, double min, double max) {
  const double seconds = parseDuration(option, text);
  if (seconds < min || seconds > max) {
    fail(option, fmt::format("'{}' is out of range [{}s, {}s]", text, min, max));
  }
  return seconds;
}

double parsePercent(const std::string& option, const std::string& text) {
  std::string_view digits = text;
  if (digits.ends_with('%')) digits.remove_suffix(1);
  double percent = 0;
  if (!parseNumber(digits, percent) || percent <= 0 || percent > 100) {
    fail(option, fmt::format("'{}' is not a percentage in (0, 100]", text));
  }
  return percent / 100;
}

DeviceKind parseDevice(const std::string& text) {
  for (DeviceKind kind : {DeviceKind::Auto, DeviceKind::Cuda, DeviceKind::Cpu}) {
    if (toString(kind) == text) return kind;
  }
  fail("device", fmt::format("unknown device '{}' (auto, cuda, cpu)", text));
}

template <typename Enum>
std::vector<Enum> parseEnumList(const std::string& option, const std::string& text,
                                std::initializer_list<Enum> known) {
  std::vector<Enum> values;
  for (const std::string& item : nonEmptyList(option, text)) {
    const auto it = std::find_if(known.begin(), known.end(),
                                 [&item](Enum value) { return toString(value) == item; });
    if (it == known.end()) {
      std::vector<std::string> names;
      for (Enum value : known) names.emplace_back(toString(value));
      fail(option, fmt::format("unknown value '{}' ({})", item, fmt::join(names, ", ")));
    }
    if (std::find(values.begin(), values.end(), *it) != values.end()) {
      fail(option, fmt::format("'{}' given twice", item));
    }
    values.push_back(*it);
  }
  return values;
}

// --bytes, or a nccl-tests style sweep: --min-bytes, --max-bytes and --step-factor (-b -e -f).
std::vector<std::uint64_t> collectiveSizes(const po::variables_map& vm) {
  const bool sweep = vm.count("min-bytes") || vm.count("max-bytes");
  if (!sweep) return parseBufferBytes("bytes", vm["bytes"].as<std::string>(), 4);
  if (!vm["bytes"].defaulted()) {
    throw UsageError("--bytes: give a list or --min-bytes/--max-bytes, not both");
  }
  if (!vm.count("min-bytes") || !vm.count("max-bytes")) {
    throw UsageError("--min-bytes and --max-bytes go together");
  }
  const std::uint64_t min =
      parseBufferBytes("min-bytes", vm["min-bytes"].as<std::string>(), 4).front();
  const std::uint64_t max =
      parseBufferBytes("max-bytes", vm["max-bytes"].as<std::string>(), 4).front();
  const int factor = vm["step-factor"].as<int>();
  if (factor < 2 || factor > 1024)
    fail("step-factor", fmt::format("{} is out of range [2, 1024]", factor));
  if (min > max) fail("min-bytes", "is larger than --max-bytes");
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t size = min; size <= max; size *= static_cast<std::uint64_t>(factor)) {
    sizes.push_back(size / 4 * 4);  // whole fp32 elements, as --bytes demands
  }
  return sizes;
}

std::vector<std::string> parseSuites(const std::vector<std::string>& names) {
  if (names.empty()) return kDefaultSuites;
  std::set<std::string> seen;
  for (const std::string& name : names) {
    if (std::find(kSuiteNames.begin(), kSuiteNames.end(), name) == kSuiteNames.end()) {
      throw UsageError(fmt::format("unknown suite '{}' ({})", name, fmt::join(kSuiteNames, ", ")));
    }
    if (!seen.insert(name).second) throw UsageError(fmt::format("suite '{}' given twice", name));
  }
  return names;
}

po::options_description describeOptions() {
  po::options_description options("Options (also INI keys of --config, without the dashes)");
  // clang-format off
  options.add_options()
    ("matmul-sizes", po::value<std::string>()->default_value(kDefaultMatmulSizes),
     "matmul: square sizes n of the n x n x n products")
    ("matmul-dtypes", po::value<std::string>()->default_value(kDefaultMatmulDtypes),
     "matmul: fp32 (TF32 off), tf32, fp16, bf16")
    ("membw-bytes", po::value<std::string>()->default_value(kDefaultMembwBytes),
     "membw: size of each array (copy, triad, host<->device copies)")
    ("bytes", po::value<std::string>()->default_value(kDefaultCollectiveBytes),
     "collectives: message sizes in bytes (suffixes K, M, G are powers of 1024)")
    ("min-bytes", po::value<std::string>(), "collectives: sweep from this size (nccl-tests -b)")
    ("max-bytes", po::value<std::string>(), "collectives: sweep to this size (nccl-tests -e)")
    ("step-factor", po::value<int>()->default_value(2),
     "collectives: multiply the size by this between sweep steps (nccl-tests -f)")
    ("collective-dtypes", po::value<std::string>()->default_value("fp32"),
     "collectives: fp32, bf16, fp16 (sum for reductions)")
    ("placement", po::value<std::string>()->default_value("out"),
     "collectives: out (of place), in (place), or both: out,in")
    ("backend", po::value<std::string>()->default_value("auto"),
     "collectives: nccl, mpi, or both side by side: nccl,mpi; auto: nccl on GPUs, mpi on CPUs")
    ("check", po::value<std::string>()->default_value("on"),
     "collectives: verify every element after the timed samples (on, off)")
    ("timeout", po::value<std::string>()->default_value("300s"),
     "longest wait on another rank before the job is ended with an error")
    ("test-stall-rank", po::value<int>()->default_value(-1),
     "for tests of --timeout only: this rank stalls before its first collective")
    ("warmup", po::value<int>()->default_value(3),
     "untimed executions after the timed cold start")
    ("warmup-time", po::value<std::string>()->default_value("0"),
     "then more warm-up until this much time (e.g. 500ms) has passed")
    ("loops", po::value<int>()->default_value(0),
     "executions per sample; 0: autorange to --min-sample-time")
    ("min-sample-time", po::value<std::string>()->default_value("2ms"),
     "autorange: shortest sample (and at least 1000x the timer's overhead)")
    ("samples", po::value<int>()->default_value(0),
     "fixed number of samples; 0: sample until the stopping rule holds")
    ("min-samples", po::value<int>()->default_value(10), "stopping rule: at least this many samples")
    ("min-time", po::value<std::string>()->default_value("0.5s"),
     "stopping rule: at least this much timed work per case")
    ("max-noise", po::value<std::string>()->default_value("0.5%"),
     "stopping rule: stop once std/mean of the samples is at most this")
    ("max-time", po::value<std::string>()->default_value("15s"),
     "stopping rule: stop anyway after this much wall time per case")
    ("queued-start", po::bool_switch(),
     "hold the stream with a spin kernel while a sample is queued (no launch gaps)")
    ("l2-flush", po::bool_switch(), "clear the L2 cache before every sample (one loop per sample)")
    ("cuda-graph", po::bool_switch(), "capture the body as a CUDA graph and time its replays")
    ("device", po::value<std::string>()->default_value("auto"),
     "auto (one GPU per rank if any, else CPU), cuda, cpu")
    ("allow-gpu-sharing", po::bool_switch(), "let several ranks of a node share one GPU")
    ("json", po::value<std::string>()->default_value(""), "write the full results to this JSON file");
  // clang-format on
  return options;
}

std::string usage(const po::options_description& options, const po::options_description& generic) {
  std::ostringstream text;
  text << "Usage: mpirun -np N splitstep [SUITE...] [--config FILE.ini] [--option value...]\n"
       << "Suites: matmul, membw, allreduce, reduce_scatter, allgather, broadcast\n"
       << "  (default: matmul membw allreduce)\n\n"
       << generic << "\n"
       << options;
  return text.str();
}

RunPlan buildPlan(const po::variables_map& vm) {
  RunPlan plan;
  plan.suites = parseSuites(vm.count("suite") ? vm["suite"].as<std::vector<std::string>>()
                                              : std::vector<std::string>{});
  plan.config_file = vm.count("config") ? vm["config"].as<std::string>() : "";
  auto text = [&vm](const char* option) { return vm[option].as<std::string>(); };
  MeasureSettings& m = plan.measure;
  m.warmup = boundedCount("warmup", vm["warmup"].as<int>(), 0);
  m.warmup_time = boundedSeconds("warmup-time", text("warmup-time"), 0, 3600);
  m.loops = boundedCount("loops", vm["loops"].as<int>(), 0);
  m.min_sample_time = boundedSeconds("min-sample-time", text("min-sample-time"), 1e-6, 60);
  m.samples = boundedCount("samples", vm["samples"].as<int>(), 0);
  m.min_samples = boundedCount("min-samples", vm["min-samples"].as<int>(), 1);
  m.min_time = boundedSeconds("min-time", text("min-time"), 0, 3600);
  m.max_noise = parsePercent("max-noise", text("max-noise"));
  m.max_time = boundedSeconds("max-time", text("max-time"), 1e-3, 86400);
  m.queued_start = vm["queued-start"].as<bool>();
  m.l2_flush = vm["l2-flush"].as<bool>();
  m.cuda_graph = vm["cuda-graph"].as<bool>();
  plan.matmul.shapes = parseMatmulSizes(text("matmul-sizes"));
  plan.matmul.dtypes =
      parseEnumList("matmul-dtypes", text("matmul-dtypes"),
                    {MatmulDtype::Fp32, MatmulDtype::Tf32, MatmulDtype::Fp16, MatmulDtype::Bf16});
  // Copy and triad kernels move 16-byte vectors.
  plan.membw.bytes = parseBufferBytes("membw-bytes", text("membw-bytes"), 16);
  CollectivesPlan& c = plan.collectives;
  c.bytes = collectiveSizes(vm);
  c.dtypes = parseEnumList("collective-dtypes", text("collective-dtypes"),
                           {CollectiveDtype::Fp32, CollectiveDtype::Bf16, CollectiveDtype::Fp16});
  c.placements =
      parseEnumList("placement", text("placement"), {Placement::OutOfPlace, Placement::InPlace});
  if (text("backend") != "auto") {
    c.backends = parseEnumList("backend", text("backend"), {Backend::Nccl, Backend::Mpi});
  }
  if (text("check") != "on" && text("check") != "off") {
    fail("check", fmt::format("'{}' is neither on nor off", text("check")));
  }
  c.check = text("check") == "on";
  c.stall_rank = vm["test-stall-rank"].as<int>();
  plan.launch.timeout = boundedSeconds("timeout", text("timeout"), 0.1, 7 * 86400);
  plan.launch.device = parseDevice(vm["device"].as<std::string>());
  plan.launch.allow_gpu_sharing = vm["allow-gpu-sharing"].as<bool>();
  plan.output.json_path = vm["json"].as<std::string>();
  return plan;
}

}  // namespace

std::uint64_t parseByteSize(const std::string& option, const std::string& text) {
  static const std::vector<std::pair<std::string, std::uint64_t>> kSuffixes = {{"KiB", 1ull << 10},
                                                                               {"MiB", 1ull << 20},
                                                                               {"GiB", 1ull << 30},
                                                                               {"K", 1ull << 10},
                                                                               {"M", 1ull << 20},
                                                                               {"G", 1ull << 30},
                                                                               {"B", 1}};
  std::string_view digits = text;
  std::uint64_t multiplier = 1;
  for (const auto& [suffix, factor] : kSuffixes) {
    if (digits.size() > suffix.size() && digits.ends_with(suffix)) {
      digits.remove_suffix(suffix.size());
      multiplier = factor;
      break;
    }
  }
  std::uint64_t count = 0;
  if (!parseInteger(digits, count)) {
    fail(option, fmt::format("'{}' is not a byte count (e.g. 8, 64K, 1M, 4G)", text));
  }
  if (count > std::numeric_limits<std::uint64_t>::max() / multiplier) {
    fail(option, fmt::format("'{}' is too large", text));
  }
  return count * multiplier;
}

double parseDuration(const std::string& option, const std::string& text) {
  static const std::vector<std::pair<std::string, double>> kUnits = {
      {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {"s", 1}, {"min", 60}};
  std::string_view digits = text;
  double unit = 1;
  for (const auto& [suffix, factor] : kUnits) {
    if (digits.size() > suffix.size() && digits.ends_with(suffix)) {
      digits.remove_suffix(suffix.size());
      unit = factor;
      break;
    }
  }
  double value = 0;
  if (!parseNumber(digits, value) || value < 0) {
    fail(option, fmt::format("'{}' is not a duration (e.g. 500us, 2ms, 0.5s, 15)", text));
  }
  return value * unit;
}

ParsedCommand parseCommandLine(const std::vector<std::string>& args) {
  po::options_description generic("General");
  // clang-format off
  generic.add_options()
    ("help,h", "print this help and exit")
    ("version", "print the version and exit")
    ("config", po::value<std::string>(), "read options from this INI file (the command line wins)");
  // clang-format on
  po::options_description options = describeOptions();
  po::options_description hidden;
  hidden.add_options()("suite", po::value<std::vector<std::string>>());
  po::positional_options_description positional;
  positional.add("suite", -1);

  po::options_description command_line;
  command_line.add(generic).add(options).add(hidden);

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(command_line).positional(positional).run(), vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }

  ParsedCommand parsed;
  if (vm.count("help")) {
    parsed.action = ParsedCommand::Action::Help;
    parsed.help = usage(options, generic);
    return parsed;
  }
  if (vm.count("version")) {
    parsed.action = ParsedCommand::Action::Version;
    return parsed;
  }
  if (vm.count("config")) {
    const std::string path = vm["config"].as<std::string>();
    std::ifstream file(path);
    if (!file) throw UsageError(fmt::format("--config: cannot read '{}'", path));
    try {
      po::store(po::parse_config_file(file, options), vm);
    } catch (const po::error& e) {
      throw UsageError(fmt::format("{}: {}", path, e.what()));
    }
  }
  try {
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  parsed.plan = buildPlan(vm);
  return parsed;
}

}  // namespace splitstep
