// Replays the samples of a results file through the stopping rule, sample by sample, as the
// Measurer judges them: where would the rule of this build have stopped each case, and what
// would it have left out? It reads rank 0's samples of every case (seconds per execution, in
// the order they were taken) and its loop count, and counts the time of a sample as its
// samples' sum (the host's share between samples is not in the file). A case whose samples run
// out before the rule holds needed more than the file holds.
//
//   splitstep_stop_replay RESULTS.json [MAX_TIME_SECONDS]
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <fstream>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "measure/MeasureSettings.hpp"
#include "measure/StoppingRule.hpp"
#include "stats/Statistics.hpp"

namespace {

int replay(const std::string& path, const splitstep::MeasureSettings& settings) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "splitstep_stop_replay: cannot read %s\n", path.c_str());
    return 2;
  }
  const nlohmann::json document = nlohmann::json::parse(in);
  double before = 0;
  double after = 0;
  std::printf("%-40s %8s %10s %8s %10s  %-12s %9s %8s\n", "case", "samples", "seconds", "stop at",
              "seconds", "rule", "left out", "median");
  for (const nlohmann::json& c : document.at("cases")) {
    if (c.value("skipped", false) || c.at("ranks").empty()) continue;
    const nlohmann::json& rank = c.at("ranks").at(0);
    const auto values = rank.value("values", std::vector<double>{});
    if (values.empty()) continue;
    const double loops = rank.value("loops", 1);
    double timed = 0;
    splitstep::StopCheck check;
    std::size_t n = 0;
    while (n < values.size() && check.state == splitstep::StopState::Continue) {
      timed += values[n++] * loops;
      check = splitstep::evaluateStop(settings, std::span(values).first(n), timed, timed);
    }
    double all = 0;
    for (double v : values) all += v * loops;
    const bool ran_out = check.state == splitstep::StopState::Continue;
    const std::span<const double> kept = std::span(values).first(n).subspan(check.transient);
    const double change = splitstep::quantile(kept, 0.5) / splitstep::quantile(values, 0.5) - 1;
    before += all;
    after += timed;
    const std::string name =
        fmt::format("{} {} {}", c.at("suite").get<std::string>(), c.at("case").get<std::string>(),
                    c.at("series").get<std::string>());
    std::printf("%-40s %8zu %10.2f %8zu %10.2f  %-12s %9zu %+7.2f%%%s\n", name.c_str(),
                values.size(), all, n, timed,
                ran_out ? "-" : std::string(splitstep::toString(check.rule)).c_str(),
                check.transient, change * 100, ran_out ? "  (needs more samples)" : "");
  }
  std::printf("sampling: %.2f s in the file, %.2f s replayed\n", before, after);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: splitstep_stop_replay RESULTS.json [MAX_TIME_SECONDS]\n");
    return 2;
  }
  splitstep::MeasureSettings settings;  // the defaults a run gets
  try {
    if (argc == 3) settings.max_time = std::stod(argv[2]);
    return replay(argv[1], settings);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "splitstep_stop_replay: %s: %s\n", argv[1], error.what());
    return 2;
  }
}
