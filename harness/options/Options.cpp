#include "options/Options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <charconv>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace po = boost::program_options;

namespace splitstep {
namespace {

const std::vector<std::string> kSuiteNames = {"matmul", "allreduce"};

// Defaults are sized for a GPU; configs/cpu-quick.ini holds sizes a CPU finishes in seconds.
constexpr const char* kDefaultMatmulSizes = "4096,8192";
constexpr const char* kDefaultMatmulDtypes = "fp32,tf32,fp16,bf16";
constexpr const char* kDefaultAllreduceBytes = "8,1K,64K,1M,16M,64M,256M,1G";
constexpr std::int64_t kMaxMatmulSize = 65536;
constexpr std::uint64_t kMaxAllreduceBytes = 64ull << 30;
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

std::vector<std::int64_t> parseMatmulSizes(const std::string& text) {
  std::vector<std::int64_t> sizes;
  for (const std::string& item : nonEmptyList("matmul-sizes", text)) {
    std::int64_t n = 0;
    if (!parseInteger(item, n) || n < 1 || n > kMaxMatmulSize) {
      fail("matmul-sizes", fmt::format("'{}' is not an integer in [1, {}]", item, kMaxMatmulSize));
    }
    sizes.push_back(n);
  }
  return sizes;
}

std::vector<MatmulDtype> parseMatmulDtypes(const std::string& text) {
  std::vector<MatmulDtype> dtypes;
  for (const std::string& item : nonEmptyList("matmul-dtypes", text)) {
    const auto known = {MatmulDtype::Fp32, MatmulDtype::Tf32, MatmulDtype::Fp16, MatmulDtype::Bf16};
    const auto it = std::find_if(known.begin(), known.end(),
                                 [&item](MatmulDtype d) { return toString(d) == item; });
    if (it == known.end()) {
      fail("matmul-dtypes", fmt::format("unknown dtype '{}' (fp32, tf32, fp16, bf16)", item));
    }
    dtypes.push_back(*it);
  }
  return dtypes;
}

std::vector<std::uint64_t> parseAllreduceBytes(const std::string& text) {
  std::vector<std::uint64_t> sizes;
  for (const std::string& item : nonEmptyList("allreduce-bytes", text)) {
    const std::uint64_t bytes = parseByteSize("allreduce-bytes", item);
    if (bytes < 4 || bytes % 4 != 0 || bytes > kMaxAllreduceBytes) {
      fail("allreduce-bytes",
           fmt::format("'{}' is not a whole number of fp32 elements in [4 B, 64 GiB]", item));
    }
    sizes.push_back(bytes);
  }
  return sizes;
}

DeviceKind parseDevice(const std::string& text) {
  for (DeviceKind kind : {DeviceKind::Auto, DeviceKind::Cuda, DeviceKind::Cpu}) {
    if (toString(kind) == text) return kind;
  }
  fail("device", fmt::format("unknown device '{}' (auto, cuda, cpu)", text));
}

std::vector<std::string> parseSuites(const std::vector<std::string>& names) {
  if (names.empty()) return kSuiteNames;
  std::set<std::string> seen;
  for (const std::string& name : names) {
    if (std::find(kSuiteNames.begin(), kSuiteNames.end(), name) == kSuiteNames.end()) {
      throw UsageError(fmt::format("unknown suite '{}' (matmul, allreduce)", name));
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
    ("allreduce-bytes", po::value<std::string>()->default_value(kDefaultAllreduceBytes),
     "allreduce: message sizes in bytes (suffixes K, M, G are powers of 1024), fp32 sum")
    ("warmup", po::value<int>()->default_value(5), "untimed executions before timing each case")
    ("iters", po::value<int>()->default_value(20), "timed samples per case")
    ("loops", po::value<int>()->default_value(1), "executions per timed sample")
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
       << "Suites: matmul, allreduce (default: all, in that order)\n\n"
       << generic << "\n"
       << options;
  return text.str();
}

RunPlan buildPlan(const po::variables_map& vm) {
  RunPlan plan;
  plan.suites = parseSuites(vm.count("suite") ? vm["suite"].as<std::vector<std::string>>()
                                              : std::vector<std::string>{});
  plan.config_file = vm.count("config") ? vm["config"].as<std::string>() : "";
  plan.measure.warmup = boundedCount("warmup", vm["warmup"].as<int>(), 0);
  plan.measure.samples = boundedCount("iters", vm["iters"].as<int>(), 1);
  plan.measure.loops = boundedCount("loops", vm["loops"].as<int>(), 1);
  plan.matmul.sizes = parseMatmulSizes(vm["matmul-sizes"].as<std::string>());
  plan.matmul.dtypes = parseMatmulDtypes(vm["matmul-dtypes"].as<std::string>());
  plan.allreduce.bytes = parseAllreduceBytes(vm["allreduce-bytes"].as<std::string>());
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
