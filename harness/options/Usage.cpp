#include "options/Usage.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <boost/program_options.hpp>
#include <sstream>
#include <vector>

namespace po = boost::program_options;

namespace splitstep {
namespace {

// --help's width: a terminal's 100 columns, of which an option's help keeps at least 62 (the
// longer option names stand on a line of their own).
constexpr unsigned kColumns = 100;
constexpr unsigned kHelpColumns = 62;
// Examples and exit statuses: the command (or status) at this indent, its meaning below it or
// beside it.
constexpr std::string_view kIndent = "  ";
constexpr std::size_t kStatusWidth = 9;

void addOptions(po::options_description& description, const std::vector<OptionSpec>& specs,
                bool hidden) {
  for (const OptionSpec& spec : specs) {
    if (spec.hidden != hidden) continue;
    if (spec.is_switch) {
      description.add_options()(spec.name.c_str(), po::bool_switch(), spec.help.c_str());
    } else if (spec.default_text) {
      description.add_options()(spec.name.c_str(),
                                po::value<std::string>()->default_value(*spec.default_text),
                                spec.help.c_str());
    } else {
      description.add_options()(spec.name.c_str(), po::value<std::string>(), spec.help.c_str());
    }
  }
}

// `text` wrapped at kColumns, each line after `indent`.
std::string wrapped(std::string_view text, std::size_t indent) {
  std::string out;
  std::size_t column = indent;
  std::istringstream words{std::string(text)};
  for (std::string word; words >> word;) {
    if (column > indent && column + 1 + word.size() > kColumns) {
      out += '\n' + std::string(indent, ' ');
      column = indent;
    } else if (column > indent) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
  }
  return out;
}

constexpr std::array kExamples = {
    UsageExample{"mpirun -np 8 splitstep",
                 "the default suites on a node of 8 GPUs, one rank per GPU"},
    UsageExample{"mpirun -np 2 --oversubscribe splitstep --config configs/cpu-quick.ini",
                 "2 ranks on the CPU with small cases (what a run that finds no GPU on any rank "
                 "takes by itself)"},
    UsageExample{"mpirun -np 8 splitstep allreduce --min-bytes 8 --max-bytes 8G --step-factor 2",
                 "an allreduce sweep from 8 B to 8 GiB, each size twice the last, as nccl-tests' "
                 "-b 8 -e 8G -f 2"},
    UsageExample{"mpirun -np 8 splitstep step --step-models gpt2 --sync-modes none,overlap",
                 "Hugging Face GPT-2's training step, compute alone and with DDP-style "
                 "overlapped gradient sync"},
    UsageExample{"sbatch --nodes 2 --ntasks-per-node 8 --gpus-per-node 8 slurm/step-scaling.sbatch",
                 "under Slurm: the step on 16 GPUs against one GPU, and the scaling efficiency "
                 "(docs/slurm.md)"},
    UsageExample{"mpirun -np 8 splitstep --json results.json --csv rows.csv",
                 "every figure in a JSON file and one row per case and rank in a CSV file"},
    UsageExample{"splitstep-analysis report results.json -o report.html",
                 "then a report page of that run (docs/analysis.md)"},
};

constexpr std::array kExitStatuses = {
    ExitStatus{"0",
               "the run completed and every check found its elements right (--help and "
               "--version too)"},
    ExitStatus{"1",
               "a check found wrong elements (a line per case names it and the ranks), or the "
               "run failed after its start: an error on a rank, a wait past --timeout, a rank "
               "that died or stopped answering; the cases measured so far are kept"},
    ExitStatus{"2",
               "refused at start, on every rank, with one line: an unknown or malformed "
               "option, suite or config key, contradictory settings, ranks with different "
               "plans or binaries, an output that cannot be written, no device or memory "
               "for the cases"},
    ExitStatus{"3",
               "with --fail-below-expected: the verdict found a figure below expected (a node "
               "it could not judge does not fail)"},
    ExitStatus{"128+N",
               "ended by signal N, the results so far kept: 130 SIGINT (Ctrl-C), "
               "143 SIGTERM, 129 SIGHUP or the launcher gone"},
    ExitStatus{"138",
               "Slurm's early warning, SIGUSR1 (128+10): left once the case in flight "
               "was kept"},
};

constexpr std::array kPresets = {
    HelpEntry{"quick.ini",
              "a first look at a GPU node in seconds: every suite at a few sizes, every result "
              "checked (splitstep all --config configs/quick.ini)"},
    HelpEntry{"cpu-quick.ini",
              "small cases for a CPU-only machine; a run given --device cpu, or that finds no "
              "GPU on any rank, takes it as its defaults"},
    HelpEntry{"sweep.ini",
              "nccl-tests' 8 B - 4 GiB sweep at factor 2 in seconds: the sizes share 3 s "
              "(splitstep allreduce --config configs/sweep.ini)"},
    HelpEntry{"h200-reference.ini",
              "the cases of the H200 reference figures: GEMM, copies, allreduce 8 B - 4 GiB"},
    HelpEntry{"h200-step.ini", "the reference step comparison on 2 x H200: MLP and ViT-B/16"},
    HelpEntry{"resnet50.ini", "torchvision's ResNet-50 training step (splitstep step --config)"},
    HelpEntry{"vit-b16.ini", "timm's vit_base_patch16_224 training step"},
    HelpEntry{"gpt2.ini", "Hugging Face GPT-2 small's training step"},
    HelpEntry{"llama.ini", "Hugging Face Llama at Llama-3.2-1B's config: its training step"},
};

constexpr std::array kEnvironment = {
    HelpEntry{"CUDA_VISIBLE_DEVICES",
              "the GPUs a rank may use; each rank takes the one of its local rank among them"},
    HelpEntry{"NCCL_*, UCX_*, OMPI_*, CUDA_*",
              "recorded in the results (JSON \"environment\"); those that tune NCCL's transports "
              "are shown in the header, and ranks whose values differ are named"},
    HelpEntry{"NCCL_PROFILER_PLUGIN",
              "left as set: a user's own NCCL profiler comes first, and NCCL's algorithm per "
              "collective is then not read"},
    HelpEntry{"SLURM_JOB_ID, SLURM_JOB_NODELIST",
              "the Slurm job, named in the header, the results and the outputs' locks"},
    HelpEntry{"OMPI_COMM_WORLD_SIZE, SLURM_STEP_NUM_TASKS, SLURM_NTASKS",
              "how many processes the launcher started: an MPI world of another size (an "
              "mpirun of another MPI than splitstep's) is refused"},
};

constexpr std::array kFiles = {
    HelpEntry{"--config FILE.ini",
              "read: options as keys without the dashes; configs/ holds the presets above"},
    HelpEntry{"--json, --csv, --metrics, --trace",
              "written whole or not at all (a temporary file renamed over it), after every "
              "case; FILE.lock beside each while a run writes it; --overwrite to replace"},
    HelpEntry{"--model-file, --batch-file",
              "read: a torch.export archive (.pt2) and its batch (docs/own-model.md); never "
              "an output"},
};

// A section of name/meaning entries, the meaning beside the name where it fits.
void printEntries(std::ostringstream& text, std::string_view title,
                  std::span<const HelpEntry> entries) {
  text << '\n' << title << ":\n";
  for (const HelpEntry& entry : entries) {
    text << kIndent << entry.name << '\n'
         << std::string(3 * kIndent.size(), ' ') << wrapped(entry.meaning, 3 * kIndent.size())
         << '\n';
  }
}

}  // namespace

std::span<const HelpEntry> presetEntries() { return kPresets; }

po::options_description generalOptions() {
  po::options_description general(kColumns);
  // clang-format off
  general.add_options()
    ("help,h", "print this help and exit")
    ("version", "print the version and exit")
    ("config", po::value<std::string>(), "read options from this INI file (the command line wins)");
  // clang-format on
  return general;
}

po::options_description planOptions(std::span<const OutputInfo> outputs) {
  po::options_description options;
  for (const OptionSection& section : optionSections(outputs)) {
    addOptions(options, section.options, false);
    addOptions(options, section.options, true);
  }
  return options;
}

std::span<const UsageExample> usageExamples() { return kExamples; }

std::span<const ExitStatus> exitStatuses() { return kExitStatuses; }

std::string usageText(std::span<const SuiteInfo> suites, std::span<const OutputInfo> outputs) {
  std::vector<std::string_view> defaults;
  for (const SuiteInfo& suite : suites) {
    if (suite.in_default_run) defaults.push_back(suite.name);
  }
  std::ostringstream text;
  text << "Usage: mpirun -np N splitstep [SUITE...] [--config FILE.ini] [--option value...]\n\n"
       << wrapped(
              "Every rank runs the same timed workloads, computation and communication "
              "timed apart on the device; rank 0 reports. Every option is also a key of the "
              "--config file, without the dashes; the command line wins.",
              0)
       << "\n\n"
       << fmt::format("Suites (default: {}; all: every suite):\n", fmt::join(defaults, " "));
  for (const SuiteInfo& suite : suites) {
    text << kIndent << fmt::format("{:<16}", suite.name) << wrapped(suite.help, 18) << '\n';
  }
  // One description holding every section, so that their columns line up.
  po::options_description sections(kColumns, kHelpColumns);
  const po::options_description general = generalOptions();
  const std::vector<OptionSection> option_sections = optionSections(outputs);
  for (const OptionSection& section : option_sections) {
    po::options_description part(section.title, kColumns, kHelpColumns);
    if (&section == &option_sections.front()) {
      for (const auto& option : general.options()) part.add(option);
    }
    addOptions(part, section.options, false);
    sections.add(part);
  }
  text << sections;
  printEntries(text, "Presets (configs/, for --config)", kPresets);
  text << "\nExamples:\n";
  for (const UsageExample& example : kExamples) {
    text << kIndent << example.command << '\n'
         << std::string(3 * kIndent.size(), ' ') << wrapped(example.meaning, 3 * kIndent.size())
         << '\n';
  }
  printEntries(text, "Environment", kEnvironment);
  printEntries(text, "Files", kFiles);
  text << "\nExit status:\n";
  for (const ExitStatus& status : kExitStatuses) {
    text << kIndent << fmt::format("{:<{}}", status.status, kStatusWidth)
         << wrapped(status.meaning, kIndent.size() + kStatusWidth) << '\n';
  }
  // Boost's wrapping leaves a space at the end of a wrapped line.
  std::string manual;
  std::istringstream lines(text.str());
  for (std::string line; std::getline(lines, line);) {
    line.erase(line.find_last_not_of(' ') + 1);
    manual += line + '\n';
  }
  return manual;
}

}  // namespace splitstep
