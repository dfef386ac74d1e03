// The option and INI parser under generated hostile input: every one of kInputs command lines
// (a tenth with a generated config file) either yields a valid plan (or help, or the version)
// or a UsageError whose message is one printable line of bounded length. Anything else (another
// exception, a plan that breaks a documented bound, a message with a line break or a terminal
// escape) is a finding, reported with the input that caused it. Two more properties: INI file
// contents alone (random bytes, long lines, odd characters, nested and broken sections,
// mutations of the presets) and paths (random bytes, long names, '..', files where directories
// should be) for every path option and the start-up path checks, which answer with a reason or
// nothing and never throw. The seed is fixed and printed, so a finding reproduces;
// SPLITSTEP_FUZZ_SEED and SPLITSTEP_FUZZ_INPUTS explore further.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "TempPath.hpp"
#include "options/OptionTable.hpp"
#include "options/Options.hpp"
#include "report/OutputCatalogue.hpp"
#include "report/OutputFiles.hpp"
#include "suites/SuiteCatalog.hpp"

namespace splitstep {
namespace {

constexpr long kInputs = 100'000;
constexpr std::uint64_t kSeed = 14;
// The longest message a refusal may print: an option name, two echoed values of at most 200
// characters each, escaped (4 bytes per byte), and the reason.
constexpr std::size_t kMaxMessage = 2048;

long fromEnvironment(const char* name, long fallback) {
  const char* text = std::getenv(name);
  return text != nullptr ? std::strtol(text, nullptr, 10) : fallback;
}

class Generator {
 public:
  explicit Generator(std::uint64_t seed) : random_(seed) {
    for (const OptionSection& section : optionSections(outputInfos())) {
      for (const OptionSpec& spec : section.options) names_.push_back(spec.name);
    }
    for (const char* extra : {"config", "help", "version", "h", "bogus", "json=", "", "-"}) {
      names_.emplace_back(extra);
    }
    for (const SuiteInfo& suite : suiteCatalog()) suites_.emplace_back(suite.name);
  }

  // One command line, and the config file it names (empty: none).
  std::vector<std::string> commandLine(const std::string& config_path, std::string& config) {
    std::vector<std::string> args;
    const int count = below(8);
    for (int i = 0; i < count; ++i) {
      switch (below(10)) {
        case 0:
          args.push_back(below(4) == 0 ? text() : pick(suites_));
          break;
        case 1:
          args.push_back(fmt::format("--{}={}", pick(names_), value()));
          break;
        case 2:
          args.push_back(fmt::format("-{}", text()));
          break;
        default:
          args.push_back(fmt::format("--{}", pick(names_)));
          if (below(8) != 0) args.push_back(value());
          break;
      }
    }
    config.clear();
    if (below(10) == 0) {
      config = iniText();
      args.push_back("--config");
      args.push_back(config_path);
    }
    return args;
  }

  // An INI file's contents of every kind a user or a broken disk could hand over.
  std::string hostileIni(const std::vector<std::string>& presets) {
    switch (below(8)) {
      case 0:
        return text();
      case 1:  // a long line
        return fmt::format("{} = {}\n", pick(names_),
                           std::string(static_cast<std::size_t>(below(20'000)), pick(kOdd)[0]));
      case 2: {  // a preset, mutated byte by byte
        std::string out = pick(presets);
        for (int i = below(8) + 1; i > 0 && !out.empty(); --i) {
          const auto at = static_cast<std::size_t>(below(static_cast<int>(out.size())));
          switch (below(3)) {
            case 0:
              out[at] = static_cast<char>(below(256));
              break;
            case 1:
              out.erase(at, 1);
              break;
            default:
              out.insert(at, pick(kOdd));
              break;
          }
        }
        return out;
      }
      case 3: {  // sections, nested, doubled, broken
        std::string out;
        for (int i = below(6); i >= 0; --i) {
          static const std::vector<std::string> kHeads = {"[{}]", "[{}.{}]", "[[{}]]", "[{}",
                                                          "{}]",  "[]",      "[ {} ]", "[{}]]"};
          out += fmt::format(fmt::runtime(pick(kHeads)), pick(names_), pick(names_)) + "\n";
          out += fmt::format("{} = {}\n", pick(names_), value());
        }
        return out;
      }
      case 4: {  // odd characters around good lines
        std::string out;
        for (int i = below(10); i >= 0; --i) {
          out += pick(kOdd) + pick(names_) + pick(kOdd) + "=" + pick(kOdd) + value() + pick(kOdd) +
                 (below(2) == 0 ? "\n" : "\r\n");
        }
        return out;
      }
      default:
        return iniText();
    }
  }

  // A path for a path option: relative to `base` (a folder of the test's own, holding a regular
  // file "file") or one of the system's odd places.
  std::string hostilePath(const std::string& base) {
    static const std::vector<std::string> kParts = {
        "file",     "..", ".", "",   "missing", "file/x", "d", std::string(300, 'n'),
        "\xff\xfe", " ",  "-", "\n", "a\tb",    "~",      "*", "lock.lock"};
    static const std::vector<std::string> kPlaces = {
        "/",         "/proc", "/proc/self",        "/dev/null",   "/dev/zero",
        "/dev/full", "/sys",  "/proc/self/status", "/etc/passwd", ""};
    std::string out;
    switch (below(4)) {
      case 0:
        out = pick(kPlaces);
        break;
      case 1:
        out = text();
        break;
      default:
        out = base;
        break;
    }
    for (int i = below(6); i > 0; --i) out += "/" + (below(4) == 0 ? text() : pick(kParts));
    if (below(8) == 0) out += "/";
    if (below(50) == 0) out += std::string(static_cast<std::size_t>(below(6000)), 'p');
    // Paths reach the program through argv and the INI file: no NUL.
    std::erase(out, '\0');
    return out;
  }

 private:
  // Characters that break naive parsers: NUL, a byte-order mark, CR, escapes, invalid UTF-8.
  inline static const std::vector<std::string> kOdd = {std::string(1, '\0'),
                                                       "\xef\xbb\xbf",
                                                       "\r",
                                                       "\x1b[2J",
                                                       "\xff",
                                                       "\xc3",
                                                       "\t",
                                                       " ",
                                                       "=",
                                                       "[",
                                                       "]",
                                                       "#",
                                                       ";",
                                                       "\"",
                                                       "'",
                                                       "\\",
                                                       "\x7f",
                                                       "\x0c"};

  int below(int n) { return std::uniform_int_distribution<int>(0, n - 1)(random_); }
  template <typename T>
  const T& pick(const std::vector<T>& from) {
    return from[static_cast<std::size_t>(below(static_cast<int>(from.size())))];
  }

  // Any bytes, short or (rarely) long.
  std::string text() {
    const int length = below(50) == 0 ? below(5000) : below(24);
    std::string out;
    for (int i = 0; i < length; ++i) out += static_cast<char>(below(256));
    return out;
  }

  // Values near the bounds the options check, and noise.
  std::string value() {
    static const std::vector<std::string> kValues = {"0",
                                                     "1",
                                                     "3",
                                                     "-1",
                                                     "1000000",
                                                     "1000001",
                                                     "1000000000000",
                                                     "99999999999999999999",
                                                     "1e3",
                                                     "0.5",
                                                     "nan",
                                                     "inf",
                                                     "-inf",
                                                     "1e999",
                                                     "1e-999",
                                                     "0x10",
                                                     " 8",
                                                     "8 ",
                                                     "+8",
                                                     "2ms",
                                                     "0.5s",
                                                     "1min",
                                                     "-1s",
                                                     "100ns",
                                                     "s",
                                                     "8",
                                                     "1K",
                                                     "64K",
                                                     "4G",
                                                     "64G",
                                                     "65G",
                                                     "6",
                                                     "8B",
                                                     "1KiB",
                                                     "16",
                                                     "1G",
                                                     "8,8",
                                                     "8,1K,8G",
                                                     "1%",
                                                     "0.5%",
                                                     "101%",
                                                     "0%",
                                                     "%",
                                                     "on",
                                                     "off",
                                                     "true",
                                                     "yes",
                                                     "fp32",
                                                     "fp32,bf16",
                                                     "fp32,fp32",
                                                     "tf32",
                                                     "fp16,bf16",
                                                     "a,,b",
                                                     ",",
                                                     "",
                                                     "out,in",
                                                     "in",
                                                     "nccl,mpi",
                                                     "mpi",
                                                     "auto",
                                                     "gloo",
                                                     "cpu",
                                                     "cuda",
                                                     "mlp",
                                                     "mlp,gpt2,resnet50",
                                                     "none,sequential,overlap,single",
                                                     "sgd",
                                                     "adamw",
                                                     "pinned",
                                                     "device",
                                                     "8x8x8",
                                                     "65536",
                                                     "65537",
                                                     "0x1x1",
                                                     "1x2",
                                                     "64x64x64x64",
                                                     "25",
                                                     "0.5",
                                                     "16384",
                                                     "16385",
                                                     "0.000001",
                                                     "/tmp/x.json",
                                                     "/",
                                                     "/dev/null"};
    switch (below(4)) {
      case 0:
        return text();
      case 1: {
        // A list of known values.
        std::string list = pick(kValues);
        for (int i = below(4); i > 0; --i) list += fmt::format(",{}", pick(kValues));
        return list;
      }
      default:
        return pick(kValues);
    }
  }

  std::string iniText() {
    std::string out;
    for (int line = below(12); line > 0; --line) {
      switch (below(6)) {
        case 0:
          out += fmt::format("{}\n", text());
          break;
        case 1:
          out += fmt::format("[{}]\n", text());
          break;
        case 2:
          out += fmt::format("# {}\n", text());
          break;
        default:
          out += fmt::format("{}{}{}\n", pick(names_), below(2) == 0 ? " = " : "=", value());
          break;
      }
    }
    return out;
  }

  std::mt19937_64 random_;
  std::vector<std::string> names_;
  std::vector<std::string> suites_;
};

// The input as a reader can paste it: each argument escaped.
std::string show(const std::vector<std::string>& args, const std::string& config) {
  std::string out;
  for (const std::string& arg : args) out += fmt::format(" '{}'", printable(arg, 120));
  if (!config.empty()) out += fmt::format(" config: '{}'", printable(config, 400));
  return out;
}

// What the options promise of a plan they accepted; empty when it holds.
std::string brokenBound(const RunPlan& plan) {
  const auto& m = plan.measure;
  if (plan.suites.empty()) return "no suite";
  if (std::set<std::string>(plan.suites.begin(), plan.suites.end()).size() != plan.suites.size()) {
    return "a suite twice";
  }
  if (m.warmup < 0 || m.loops < 0 || m.samples < 0 || m.min_samples < 1) return "a count";
  if (!(m.max_noise > 0 && m.max_noise <= 1) || !(m.max_time > 0) || !(m.min_sample_time > 0)) {
    return "a measurement bound";
  }
  if (plan.matmul.shapes.empty() || plan.matmul.dtypes.empty()) return "an empty matmul list";
  for (const MatmulShape& s : plan.matmul.shapes) {
    for (std::int64_t d : {s.m, s.n, s.k}) {
      if (d < 1 || d > 65536) return "a matmul size";
    }
  }
  if (plan.membw.bytes.empty()) return "no membw size";
  for (std::uint64_t b : plan.membw.bytes) {
    if (b == 0 || b % 16 != 0 || b > (64ull << 30)) return "a membw size";
  }
  const auto& c = plan.collectives;
  if (c.bytes.empty() || c.dtypes.empty() || c.placements.empty()) return "an empty list";
  for (std::uint64_t b : c.bytes) {
    if (b == 0 || b % 4 != 0 || b > (64ull << 30)) return "a collective size";
  }
  const auto& s = plan.step;
  if (s.models.empty() || s.precisions.empty() || s.modes.empty()) return "an empty step list";
  if (s.shape.at("gpt2-heads") < 1 || s.shape.at("gpt2-width") % s.shape.at("gpt2-heads") != 0)
    return "heads";
  if (s.momentum != 0 && s.optimizer != StepOptimizer::Sgd) return "momentum";
  if (!(s.learning_rate > 0) || s.bucket_bytes < 4 || s.first_bucket_bytes < 4) return "step";
  if (!(plan.launch.timeout >= 0.1 && plan.launch.timeout <= 7 * 86400)) return "timeout";
  if (plan.entries().empty()) return "no entries";
  return "";
}

// Empty when `message` is one printable line of bounded length.
std::string brokenMessage(const std::string& message) {
  if (message.empty()) return "an empty message";
  if (message.size() > kMaxMessage) return fmt::format("a message of {}", message.size());
  const auto bad = std::find_if(message.begin(), message.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7f;
  });
  if (bad != message.end()) return "a control byte in the message";
  return "";
}

// How the inputs of one property came out.
struct Outcomes {
  long plans = 0;
  long refusals = 0;
  long other_actions = 0;
  std::vector<std::string> findings;

  void print(long inputs, std::uint64_t seed, const char* what) const {
    std::cout << "[ fuzz     ] " << inputs << " " << what << " (seed " << seed << "): " << plans
              << " plans, " << refusals << " refusals, " << other_actions << " help/version, "
              << findings.size() << " findings\n";
    for (const std::string& finding : findings) ADD_FAILURE() << finding;
    EXPECT_EQ(plans + refusals + other_actions, inputs);
  }
};

// Parses `args`; a plan accepted is handed to `check`, which says what it breaks (empty:
// nothing). What went wrong is kept in `outcomes`, with the input.
template <typename Check>
void judge(const std::vector<std::string>& args, const std::string& config, Outcomes& outcomes,
           Check check) {
  std::string finding;
  try {
    const ParsedCommand parsed = parseCommandLine(args, suiteCatalog(), outputInfos());
    if (parsed.action == ParsedCommand::Action::Run) {
      ++outcomes.plans;
      finding = check(parsed.plan);
    } else {
      ++outcomes.other_actions;
      if (parsed.action == ParsedCommand::Action::Help && parsed.help.empty()) finding = "help";
    }
  } catch (const UsageError& e) {
    ++outcomes.refusals;
    finding = brokenMessage(e.what());
  } catch (const std::exception& e) {
    finding = fmt::format("not a UsageError: {}", printable(e.what(), 200));
  }
  if (!finding.empty() && outcomes.findings.size() < 20) {
    outcomes.findings.push_back(fmt::format("{} for{}", finding, show(args, config)));
  }
}

std::uint64_t fuzzSeed() {
  return static_cast<std::uint64_t>(fromEnvironment("SPLITSTEP_FUZZ_SEED", kSeed));
}

TEST(OptionsFuzz, EveryConfigFileGivesAValidPlanOrOneLineRefusal) {
  const long inputs = fromEnvironment("SPLITSTEP_FUZZ_INPUTS", kInputs) / 10;
  const std::uint64_t seed = fuzzSeed();
  Generator generator(seed);
  std::vector<std::string> presets;
  for (const auto& entry : std::filesystem::directory_iterator(SPLITSTEP_CONFIGS_DIR)) {
    std::ifstream file(entry.path(), std::ios::binary);
    presets.emplace_back(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  }
  ASSERT_FALSE(presets.empty());
  const std::string config_path = testing::tempPathForThisTest(".ini").string();
  Outcomes outcomes;
  for (long i = 0; i < inputs; ++i) {
    const std::string config = generator.hostileIni(presets);
    std::ofstream(config_path, std::ios::binary | std::ios::trunc) << config;
    judge({"--config", config_path}, config, outcomes, brokenBound);
  }
  std::filesystem::remove(config_path);
  outcomes.print(inputs, seed, "INI files");
  // Mutated presets still parse now and then; most hostile files are refused.
  EXPECT_GT(outcomes.plans, inputs / 100);
  EXPECT_GT(outcomes.refusals, inputs / 2);
}

TEST(OptionsFuzz, EveryPathGivesAPlanOrOneLineRefusalAndTheStartChecksAnswer) {
  const long inputs = fromEnvironment("SPLITSTEP_FUZZ_INPUTS", kInputs) / 20;
  const std::uint64_t seed = fuzzSeed();
  Generator generator(seed);
  const std::filesystem::path base = testing::tempPathForThisTest("");
  std::filesystem::create_directories(base);
  std::ofstream(base / "file") << "not splitstep's\n";
  static const std::vector<std::string> kPathOptions = {"--config", "--json", "--csv", "--trace",
                                                        "--torch-profile"};
  // The start-up checks of the outputs a plan names: a reason or nothing, never an exception.
  const auto startChecks = [](const RunPlan& plan) -> std::string {
    std::vector<OutputPath> outputs;
    for (const OutputFile& file : plan.output.files) {
      if (!file.path.empty()) {
        outputs.push_back({"--" + file.name, file.path, findOutput(file.name)->kind});
      }
    }
    try {
      if (const auto why = outputRefusal(outputs, {{"--config", plan.config_file}}, false)) {
        if (auto broken = brokenMessage(*why); !broken.empty()) return broken;
      }
      if (!plan.step.torch_profile_dir.empty()) {
        if (const auto why = whyNoOutputDirectory(plan.step.torch_profile_dir)) {
          if (auto broken = brokenMessage(*why); !broken.empty()) return broken;
        }
      }
    } catch (const std::exception& e) {
      return fmt::format("a start-up check threw: {}", printable(e.what(), 200));
    }
    return brokenBound(plan);
  };
  Outcomes outcomes;
  for (long i = 0; i < inputs; ++i) {
    std::vector<std::string> args = {"allreduce"};
    for (int n = 1 + static_cast<int>(i % 3); n > 0; --n) {
      args.push_back(kPathOptions[static_cast<std::size_t>(i * 7 + n) % kPathOptions.size()]);
      args.push_back(generator.hostilePath(base.string()));
    }
    judge(args, "", outcomes, startChecks);
  }
  std::filesystem::remove_all(base);
  outcomes.print(inputs, seed, "paths");
  EXPECT_GT(outcomes.refusals, inputs / 10);
}

TEST(OptionsFuzz, EveryInputGivesAValidPlanOrOneLineRefusal) {
  const long inputs = fromEnvironment("SPLITSTEP_FUZZ_INPUTS", kInputs);
  const std::uint64_t seed = fuzzSeed();
  Generator generator(seed);
  const std::string config_path = testing::tempPathForThisTest(".ini").string();
  Outcomes outcomes;
  for (long i = 0; i < inputs; ++i) {
    std::string config;
    const std::vector<std::string> args = generator.commandLine(config_path, config);
    if (!config.empty()) std::ofstream(config_path, std::ios::binary | std::ios::trunc) << config;
    judge(args, config, outcomes, brokenBound);
  }
  std::filesystem::remove(config_path);
  outcomes.print(inputs, seed, "inputs");
  // The generator reaches both outcomes: a fuzzer that only ever refuses tests little.
  EXPECT_GT(outcomes.plans, inputs / 100);
  EXPECT_GT(outcomes.refusals, inputs / 2);
}

}  // namespace
}  // namespace splitstep
