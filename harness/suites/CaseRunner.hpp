// What every suite does for each of its cases: a Sample named and labelled the same way, a
// skipped case with its reason, and the Measurer run under the watchdog's name for the case.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "measure/MeasureDevice.hpp"
#include "measure/MeasureSettings.hpp"
#include "measure/Sample.hpp"
#include "suites/Suite.hpp"

namespace splitstep {

class CaseRunner {
 public:
  CaseRunner(const SuiteContext& context, std::string suite);

  // A new case's Sample, timed on the device's clock unless `clock` says otherwise. The
  // reference is valid until the next add().
  Sample& add(std::string case_name, std::string series, std::map<std::string, std::string> params,
              const MeasureDevice* clock = nullptr);
  // Marks `sample` skipped, with the reason.
  static void skip(Sample& sample, const std::string& why);
  // Times `body` for `sample` with `settings` on `clock` (the device's by default), deciding
  // with `agreement` (the context's by default); the watchdog names the case while it runs.
  void measure(Sample& sample, const MeasureSettings& settings, const std::function<void()>& body,
               const std::function<void()>& after_sample = nullptr, MeasureDevice* clock = nullptr,
               RankAgreement* agreement = nullptr);
  // Times `body` with the context's settings on the device's clock.
  void measure(Sample& sample, const std::function<void()>& body) {
    measure(sample, context_.measure, body);
  }

  // The timeline spans are recorded on while a case is measured; nullptr when none is.
  Timeline* timeline() const;
  // The telemetry read within `windows` (host spans of what ran); empty without a sampler or
  // without a reading in them.
  std::optional<TelemetrySummary> telemetryDuring(const std::vector<HostSpan>& windows) const;

  const SuiteContext& context() const { return context_; }
  // Cases added since the last take().
  std::size_t size() const { return samples_.size(); }
  // The case added `index`-th since the last take(); valid until the next add().
  Sample& at(std::size_t index) { return samples_.at(index); }
  // Every case added so far, in order; the runner is empty afterwards.
  std::vector<Sample> take();

 private:
  // Tells the context's progress when a case other than the last one begins.
  void begin(const std::string& case_name);

  const SuiteContext& context_;
  std::string suite_;
  std::string current_case_;
  std::vector<Sample> samples_;
};

}  // namespace splitstep
