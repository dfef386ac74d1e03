#include "suites/CaseRunner.hpp"

#include "measure/Measurer.hpp"

namespace splitstep {

CaseRunner::CaseRunner(const SuiteContext& context, std::string suite)
    : context_(context), suite_(std::move(suite)) {}

void CaseRunner::begin(const std::string& case_name) {
  // A case's series (a step's phases) share its name: the case begins once.
  if (case_name.empty() || case_name == current_case_) return;
  current_case_ = case_name;
  if (context_.progress != nullptr) context_.progress->caseStarted(suite_, case_name);
}

Sample& CaseRunner::add(std::string case_name, std::string series,
                        std::map<std::string, std::string> params, const MeasureDevice* clock) {
  begin(case_name);
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
  begin(sample.case_name);
  context_.watchdog.setOperation(suite_ + " " + sample.case_name);
  MeasureDevice& timer = clock != nullptr ? *clock : context_.device;
  RankAgreement& deciding = agreement != nullptr ? *agreement : context_.agreement;
  sample.measurement = Measurer(timer, deciding, settings).measure(body, after_sample);
}

std::vector<Sample> CaseRunner::take() {
  context_.watchdog.setOperation("between suites");
  return std::exchange(samples_, {});
}

}  // namespace splitstep
