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

const std::vector<std::string> kSuiteNames = {
    "matmul", "membw", "allreduce", "reduce_scatter", "allgather", "broadcast", "step"};
// Without suites on the command line: the compute and memory ceilings and the allreduce.
const std::vector<std::string> kDefaultSuites = {"matmul", "membw", "allreduce"};

// Defaults are sized for a GPU; configs/cpu-quick.ini holds sizes a CPU finishes in seconds.
constexpr const char* kDefaultMatmulSizes = "4096,8192";
constexpr const char* kDefaultMatmulDtypes = "fp32,tf32,fp16,bf16";
constexpr const char* kDefaultMembwBytes = "1G";
constexpr const char* kDefaultCollectiveBytes = "8,1K,64K,1M,16M,64M,256M,1G";
constexpr const char* kDefaultSyncModes = "none,sequential,overlap,single";
constexpr std::int64_t kMaxMatmulSize = 65536;
constexpr std::uint64_t kMaxBufferBytes = 64ull << 30;
constexpr int kMaxCount = 1'000'000;
constexpr std::uint64_t kMaxBucketBytes = 16ull << 30;
constexpr int kMaxLayers = 1024;  // also blocks and heads
constexpr int kMaxWidth = 65536;  // also channels
constexpr int kMaxBatch = 1 << 20;
constexpr int kMaxSeq = 1 << 20;
constexpr int kMaxImage = 8192;
constexpr double kMaxHostWorkMs = 60000;

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

int boundedInt(const std::string& option, int value, int min, int max) {
  if (value < min || value > max) {
    fail(option, fmt::format("{} is out of range [{}, {}]", value, min, max));
  }
  return value;
}

int boundedCount(const std::string& option, int value, int min) {
  return boundedInt(option, value, min, kMaxCount);
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
Enum parseEnum(const std::string& option, const std::string& text,
               std::initializer_list<Enum> known) {
  const auto it = std::find_if(known.begin(), known.end(),
                               [&text](Enum value) { return toString(value) == text; });
  if (it == known.end()) {
    std::vector<std::string> names;
    for (Enum value : known) names.emplace_back(toString(value));
    fail(option, fmt::format("unknown value '{}' ({})", text, fmt::join(names, ", ")));
  }
  return *it;
}

template <typename Enum>
std::vector<Enum> parseEnumList(const std::string& option, const std::string& text,
                                std::initializer_list<Enum> known) {
  std::vector<Enum> values;
  for (const std::string& item : nonEmptyList(option, text)) {
    const Enum value = parseEnum(option, item, known);
    if (std::find(values.begin(), values.end(), value) != values.end()) {
      fail(option, fmt::format("'{}' given twice", item));
    }
    values.push_back(value);
  }
  return values;
}

bool parseSwitch(const std::string& option, const std::string& text) {
  if (text != "on" && text != "off") fail(option, fmt::format("'{}' is neither on nor off", text));
  return text == "on";
}

// A step bucket: a positive number of MiB (decimals allowed), rounded to whole bytes.
std::uint64_t parseBucketMiB(const std::string& option, const std::string& text) {
  double mib = 0;
  if (!parseNumber(text, mib) || mib <= 0) {
    fail(option, fmt::format("'{}' is not a positive number of MiB (e.g. 25, 0.5)", text));
  }
  const double bytes = std::round(mib * static_cast<double>(1ull << 20));
  if (bytes < 4 || bytes > static_cast<double>(kMaxBucketBytes)) {
    fail(option, fmt::format("'{}' is out of range [4 B, 16 GiB]", text));
  }
  return static_cast<std::uint64_t>(bytes);
}

StepPlan buildStepPlan(const po::variables_map& vm) {
  auto text = [&vm](const char* option) { return vm[option].as<std::string>(); };
  auto integer = [&vm](const char* option, int min, int max) {
    return boundedInt(option, vm[option].as<int>(), min, max);
  };
  StepPlan s;
  s.models = parseEnumList("step-models", text("step-models"),
                           {StepModel::Mlp, StepModel::Transformer, StepModel::Cnn});
  s.precisions = parseEnumList("precision", text("precision"),
                               {StepPrecision::Fp32, StepPrecision::Bf16, StepPrecision::Fp16});
  s.modes =
      parseEnumList("sync-modes", text("sync-modes"),
                    {SyncMode::None, SyncMode::Sequential, SyncMode::Overlap, SyncMode::Single});
  s.optimizer =
      parseEnum("optimizer", text("optimizer"), {StepOptimizer::Sgd, StepOptimizer::AdamW});
  if (!parseNumber(text("lr"), s.learning_rate) || s.learning_rate <= 0) {
    fail("lr", fmt::format("'{}' is not a positive number", text("lr")));
  }
  if (!parseNumber(text("momentum"), s.momentum) || s.momentum < 0 || s.momentum >= 1) {
    fail("momentum", fmt::format("'{}' is not a number in [0, 1)", text("momentum")));
  }
  if (s.momentum != 0 && s.optimizer != StepOptimizer::Sgd) fail("momentum", "applies to sgd only");
  s.input = parseEnum("input", text("input"),
                      {InputSource::Pinned, InputSource::Pageable, InputSource::Device});
  s.non_blocking = parseSwitch("non-blocking", text("non-blocking"));
  double host_work_ms = 0;
  if (!parseNumber(text("host-work-ms"), host_work_ms) || host_work_ms < 0 ||
      host_work_ms > kMaxHostWorkMs) {
    fail("host-work-ms", fmt::format("'{}' is not a number of milliseconds in [0, {}]",
                                     text("host-work-ms"), kMaxHostWorkMs));
  }
  s.host_work = host_work_ms / 1000;
  s.bucket_bytes = parseBucketMiB("bucket-mb", text("bucket-mb"));
  s.first_bucket_bytes = parseBucketMiB("first-bucket-mb", text("first-bucket-mb"));
  s.check = parseSwitch("check", text("check"));
  s.mlp.layers = integer("mlp-layers", 1, kMaxLayers);
  s.mlp.width = integer("mlp-width", 1, kMaxWidth);
  s.mlp.batch = integer("mlp-batch", 1, kMaxBatch);
  TransformerShape& t = s.transformer;
  t.layers = integer("transformer-layers", 1, kMaxLayers);
  t.width = integer("transformer-width", 1, kMaxWidth);
  t.heads = integer("transformer-heads", 1, kMaxLayers);
  t.seq = integer("transformer-seq", 1, kMaxSeq);
  t.batch = integer("transformer-batch", 1, kMaxBatch);
  if (t.width % t.heads != 0) {
    fail("transformer-heads",
         fmt::format("{} does not divide --transformer-width {}", t.heads, t.width));
  }
  s.cnn.blocks = integer("cnn-blocks", 1, kMaxLayers);
  s.cnn.channels = integer("cnn-channels", 1, kMaxWidth);
  s.cnn.image = integer("cnn-image", 8, kMaxImage);
  s.cnn.batch = integer("cnn-batch", 1, kMaxBatch);
  return s;
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
     "verify results after the timed samples (on, off): every element of a collective; step: "
     "ranks hold identical parameters equal to a one-process reference")
    ("step-models", po::value<std::string>()->default_value("mlp"),
     "step: models to train: mlp, transformer, cnn")
    ("precision", po::value<std::string>()->default_value("bf16"),
     "step: fp32 (TF32 off); bf16 = autocast to bf16 with fp32 weights; "
     "fp16 = autocast with dynamic loss scaling")
    ("sync-modes", po::value<std::string>()->default_value(kDefaultSyncModes),
     "step: gradient sync: none (compute only), sequential (bucketed allreduce after backward), "
     "overlap (DDP: buckets reduced during backward), single (rank 0 alone)")
    ("optimizer", po::value<std::string>()->default_value("sgd"), "step: sgd, adamw")
    ("lr", po::value<std::string>()->default_value("0.01"), "step: learning rate (> 0)")
    ("momentum", po::value<std::string>()->default_value("0"), "step: SGD momentum in [0, 1)")
    ("input", po::value<std::string>()->default_value("pinned"),
     "step: where each batch comes from: pinned or pageable host memory (copied every step), "
     "or device (already there: no copy)")
    ("non-blocking", po::value<std::string>()->default_value("on"),
     "step: queue the host-to-device copy without waiting for it (on, off)")
    ("host-work-ms", po::value<std::string>()->default_value("0"),
     "step: milliseconds of host work per batch before its copy, in [0, 60000]")
    ("bucket-mb", po::value<std::string>()->default_value("25"),
     "step: gradient bucket size in MiB (decimals allowed, e.g. 0.5)")
    ("first-bucket-mb", po::value<std::string>()->default_value("1"),
     "step: size of the first bucket (the last layers' gradients) in MiB")
    ("mlp-layers", po::value<int>()->default_value(MlpShape{}.layers),
     "step mlp: Linear(width, width) + GELU layers")
    ("mlp-width", po::value<int>()->default_value(MlpShape{}.width), "step mlp: width")
    ("mlp-batch", po::value<int>()->default_value(MlpShape{}.batch), "step mlp: batch per rank")
    ("transformer-layers", po::value<int>()->default_value(TransformerShape{}.layers),
     "step transformer: pre-norm encoder blocks")
    ("transformer-width", po::value<int>()->default_value(TransformerShape{}.width),
     "step transformer: model width (a multiple of --transformer-heads)")
    ("transformer-heads", po::value<int>()->default_value(TransformerShape{}.heads),
     "step transformer: attention heads")
    ("transformer-seq", po::value<int>()->default_value(TransformerShape{}.seq),
     "step transformer: tokens per sample")
    ("transformer-batch", po::value<int>()->default_value(TransformerShape{}.batch),
     "step transformer: batch per rank")
    ("cnn-blocks", po::value<int>()->default_value(CnnShape{}.blocks),
     "step cnn: residual blocks")
    ("cnn-channels", po::value<int>()->default_value(CnnShape{}.channels), "step cnn: channels")
    ("cnn-image", po::value<int>()->default_value(CnnShape{}.image),
     "step cnn: image side in pixels (at least 8)")
    ("cnn-batch", po::value<int>()->default_value(CnnShape{}.batch), "step cnn: batch per rank")
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
       << "Suites: matmul, membw, allreduce, reduce_scatter, allgather, broadcast, step\n"
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
  c.check = parseSwitch("check", text("check"));
  c.stall_rank = vm["test-stall-rank"].as<int>();
  plan.step = buildStepPlan(vm);
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
