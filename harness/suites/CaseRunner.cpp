#include "suites/CaseRunner.hpp"

#include <utility>

#include "measure/Measurer.hpp"

namespace splitstep {

CaseRunner::CaseRunner(const SuiteContext& context, std::string suite, Publish when)
    : context_(context), suite_(std::move(suite)), when_(when) {}

Sample& CaseRunner::add(std::string case_name, std::string series,
                        std::map<std::string, std::string> params, const MeasureDevice* clock) {
  if (when_ == Publish::EachCase && !samples_.empty()) publish(std::exchange(samples_, {}));
  // Named from the start: a case may agree on a decision with the other ranks before it is timed.
  context_.watchdog.setOperation(suite_ + " " + case_name);
  Sample& sample = samples_.emplace_back();
  sample.suite = suite_;
  sample.case_name = std::move(case_name);
  sample.series = std::move(series);
  sample.params = std::move(params);
  sample.measurement.clock = (clock != nullptr ? *clock : context_.device).clockName();
  return sample;
}

void CaseRunner::skip(Sample& sample, const std::string& why) {
  sample.notes.push_back("skipped: " + why);
}

void CaseRunner::measure(Sample& sample, const MeasureSettings& settings,
                         const std::function<void()>& body,
                         const std::function<void()>& after_sample, MeasureDevice* clock,
                         RankAgreement* agreement) {
  context_.watchdog.setOperation(suite_ + " " + sample.case_name);
  MeasureDevice& timer = clock != nullptr ? *clock : context_.device;
  RankAgreement& deciding = agreement != nullptr ? *agreement : context_.agreement;
  sample.measurement = Measurer(timer, deciding, settings).measure(body, after_sample);
}

std::vector<Sample> CaseRunner::take() { return std::exchange(samples_, {}); }

void CaseRunner::publish(std::vector<Sample> samples) {
  if (!samples.empty()) context_.sink.publish(std::move(samples));
}

void CaseRunner::finish() { publish(std::exchange(samples_, {})); }

}  // namespace splitstep
