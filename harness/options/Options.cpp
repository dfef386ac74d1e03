#include "options/Options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cerrno>
#include <cstring>
#include <set>
#include <sstream>

#include "options/OptionTable.hpp"
#include "options/Spelling.hpp"
#include "options/Usage.hpp"

namespace po = boost::program_options;

namespace splitstep {
namespace {

// Paths are echoed whole up to this length, shortened beyond: an error stays one short line.
constexpr std::size_t kPathLimit = 200;
// The positional name that stands for every suite of the catalogue.
constexpr std::string_view kAllSuites = "all";
// A config file holds a few dozen keys; anything larger is not one (or /dev/zero).
constexpr std::size_t kMaxConfigBytes = 1 << 20;

[[noreturn]] void refuseConfig(const std::string& path, std::string_view why) {
  throw UsageError(fmt::format("--config: '{}' {}", printable(path, kPathLimit), why));
}

// The whole file, read before parsing: a regular file (a directory, a device or a pipe would
// never end or never start), at most kMaxConfigBytes, and text (no NUL or other control bytes
// besides tab and line ends).
std::string readConfigFile(const std::string& path) {
  // Non-blocking, so that opening a pipe without a writer returns; fstat then refuses it.
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) refuseConfig(path, fmt::format("cannot be read: {}", std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  struct stat info {};
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) refuseConfig(path, "is not a regular file");
  std::string text(kMaxConfigBytes + 1, '\0');
  std::size_t length = 0;
  while (length < text.size()) {
    const ssize_t got = read(fd, text.data() + length, text.size() - length);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) refuseConfig(path, fmt::format("cannot be read: {}", std::strerror(errno)));
    if (got == 0) break;
    length += static_cast<std::size_t>(got);
  }
  if (length > kMaxConfigBytes) refuseConfig(path, "is larger than 1 MiB: not a config file");
  text.resize(length);
  const auto control = std::find_if(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 && c != '\t' && c != '\n' && c != '\r';
  });
  if (control != text.end()) {
    refuseConfig(path, fmt::format("is not a text file (byte 0x{:02x} at offset {})",
                                   static_cast<unsigned char>(*control), control - text.begin()));
  }
  return text;
}

std::string suiteNames(std::span<const SuiteInfo> suites) {
  std::vector<std::string_view> names;
  for (const SuiteInfo& suite : suites) names.push_back(suite.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

std::vector<std::string> parseSuites(const std::vector<std::string>& names,
                                     std::span<const SuiteInfo> suites) {
  if (names.empty()) {
    std::vector<std::string> defaults;
    for (const SuiteInfo& suite : suites) {
      if (suite.in_default_run) defaults.emplace_back(suite.name);
    }
    return defaults;
  }
  if (std::find(names.begin(), names.end(), kAllSuites) != names.end()) {
    if (names.size() > 1) throw UsageError("suite 'all' stands alone: it names every suite");
    std::vector<std::string> every;
    for (const SuiteInfo& suite : suites) every.emplace_back(suite.name);
    return every;
  }
  std::set<std::string> seen;
  for (const std::string& name : names) {
    if (std::none_of(suites.begin(), suites.end(),
                     [&name](const SuiteInfo& suite) { return suite.name == name; })) {
      std::vector<std::string_view> known;
      for (const SuiteInfo& suite : suites) known.push_back(suite.name);
      throw UsageError(fmt::format("unknown suite '{}'{} ({})", printable(name),
                                   didYouMean(name, known), suiteNames(suites)));
    }
    if (!seen.insert(name).second) {
      throw UsageError(fmt::format("suite '{}' given twice", printable(name)));
    }
  }
  return names;
}

// Boost's "unrecognised option" with the closest valid name: the table's options (not the test
// hooks, which users are not pointed to), and, on the command line, --help, --version, --config.
std::string unknownOption(const po::unknown_option& error, bool command_line,
                          std::span<const OptionSpec> table) {
  std::string given = error.get_option_name();
  given.erase(0, given.find_first_not_of('-'));
  std::vector<std::string_view> names;
  if (command_line) names = {"help", "version", "config"};
  for (const OptionSpec& spec : table) {
    if (!spec.hidden) names.push_back(spec.name);
  }
  return printable(error.what(), 200) + didYouMean(given, names, command_line ? "--" : "");
}

// Names given (not defaulted) in `vm` that `sources` does not hold yet, recorded as `source`.
void recordSources(const po::variables_map& vm, OptionSource source,
                   std::map<std::string, OptionSource>& sources) {
  for (const auto& [name, value] : vm) {
    if (!value.defaulted()) sources.try_emplace(name, source);
  }
}

// The option's text as its parser reads it (a switch's is "on" or "off").
std::string optionText(const OptionSpec& spec, const po::variable_value& value) {
  return spec.is_switch ? (value.as<bool>() ? "on" : "off") : value.as<std::string>();
}

// Every value of `file` that the command line overrides, parsed all the same: a file with a
// value the options refuse is refused, whichever of its values a run ends up using.
void checkOverridden(const po::variables_map& file,
                     const std::map<std::string, OptionSource>& command_line,
                     std::span<const OptionSpec> table) {
  for (const OptionSpec& spec : table) {
    const auto given = file.find(spec.name);
    if (given == file.end() || given->second.defaulted() || !command_line.contains(spec.name)) {
      continue;
    }
    PlanDraft scratch;
    spec.parse(OptionValue(spec.name, optionText(spec, given->second)), scratch);
  }
}

RunPlan buildPlan(const po::variables_map& vm, const std::map<std::string, OptionSource>& sources,
                  std::span<const SuiteInfo> suites, std::span<const OutputInfo> outputs,
                  std::span<const OptionSpec> table) {
  PlanDraft draft;
  for (const OutputInfo& output : outputs)
    draft.plan.output.files.push_back({std::string(output.name), {}});
  draft.plan.suites = parseSuites(
      vm.count("suite") ? vm["suite"].as<std::vector<std::string>>() : std::vector<std::string>{},
      suites);
  draft.plan.config_file = vm.count("config") ? vm["config"].as<std::string>() : "";
  for (const OptionSpec& spec : table) {
    if (!vm.count(spec.name)) continue;
    spec.parse(OptionValue(spec.name, optionText(spec, vm[spec.name])), draft);
  }
  applyPlanRules(draft, sources);
  return std::move(draft.plan);
}

// Every option `outputs` make: the table's and one for each output file.
std::vector<OptionSpec> everyOption(std::span<const OutputInfo> outputs) {
  std::vector<OptionSpec> table;
  for (const OptionSection& section : optionSections(outputs)) {
    table.insert(table.end(), section.options.begin(), section.options.end());
  }
  return table;
}

}  // namespace

ParsedCommand parseCommandLine(const std::vector<std::string>& args,
                               std::span<const SuiteInfo> suites,
                               std::span<const OutputInfo> outputs, std::string_view preset) {
  const std::vector<OptionSpec> table = everyOption(outputs);
  const po::options_description general = generalOptions();
  const po::options_description options = planOptions(outputs);
  po::options_description hidden;
  hidden.add_options()("suite", po::value<std::vector<std::string>>());
  po::positional_options_description positional;
  positional.add("suite", -1);

  po::options_description command_line;
  command_line.add(general).add(options).add(hidden);

  po::variables_map vm;
  std::map<std::string, OptionSource> sources;
  try {
    po::store(po::command_line_parser(args).options(command_line).positional(positional).run(), vm);
  } catch (const po::unknown_option& e) {
    throw UsageError(unknownOption(e, true, table));
  } catch (const po::error& e) {
    throw UsageError(printable(e.what(), 200));
  }
  recordSources(vm, OptionSource::CommandLine, sources);

  ParsedCommand parsed;
  if (vm.count("help")) {
    parsed.action = ParsedCommand::Action::Help;
    parsed.help = usageText(suites, outputs);
    return parsed;
  }
  if (vm.count("version")) {
    parsed.action = ParsedCommand::Action::Version;
    return parsed;
  }
  if (vm.count("config")) {
    const std::string path = vm["config"].as<std::string>();
    std::istringstream file(readConfigFile(path));
    po::variables_map file_values;
    try {
      const po::parsed_options from_file = po::parse_config_file(file, options);
      po::store(from_file, file_values);
      po::store(from_file, vm);
    } catch (const po::unknown_option& e) {
      throw UsageError(
          fmt::format("{}: {}", printable(path, kPathLimit), unknownOption(e, false, table)));
    } catch (const po::error& e) {
      throw UsageError(
          fmt::format("{}: {}", printable(path, kPathLimit), printable(e.what(), 200)));
    }
    checkOverridden(file_values, sources, table);  // sources: the command line's alone, so far
    recordSources(vm, OptionSource::ConfigFile, sources);
  }
  parsed.device_chosen = sources.contains("device");
  if (!preset.empty()) {
    // Under everything given: a value of the preset only replaces a built-in default.
    std::istringstream file{std::string(preset)};
    po::store(po::parse_config_file(file, options), vm);
    recordSources(vm, OptionSource::Preset, sources);
  }
  try {
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(printable(e.what(), 200));
  }
  parsed.plan = buildPlan(vm, sources, suites, outputs, table);
  return parsed;
}

}  // namespace splitstep
