// What every suite does for each of its cases: a Sample named and labelled the same way, a
// skipped case with its reason, the Measurer run under the watchdog's name for the case, and
// the finished case published to the context's sink.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "measure/MeasureDevice.hpp"
#include "measure/MeasureSettings.hpp"
#include "measure/Sample.hpp"
#include "suites/Suite.hpp"

namespace splitstep {

class CaseRunner {
 public:
  // When cases are published. EachCase: a case is finished when the next one is added, or at
  // finish(). WhenTold: the suite takes its cases, completes them (a check that needs several
  // cases measured) and publishes them itself.
  enum class Publish { EachCase, WhenTold };

  CaseRunner(const SuiteContext& context, std::string suite, Publish when = Publish::EachCase);

  // A new case's Sample, timed on the device's clock unless `clock` says otherwise. The
  // reference is valid until the next add(). With EachCase, the cases added before are
  // published first.
  Sample& add(std::string case_name, std::string series, CaseFields fields,
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
  // Cases added and not yet taken or published.
  std::size_t size() const { return samples_.size(); }
  // The case added `index`-th since the last take() (WhenTold: a suite completes a batch of
  // cases before it publishes them); valid until the next add().
  Sample& at(std::size_t index) { return samples_.at(index); }
  // The cases added since the last take(), in order, for the suite to complete (WhenTold).
  std::vector<Sample> take();
  // Publishes `samples` to the context's sink (collective).
  void publish(std::vector<Sample> samples);
  // Publishes the cases not published yet; the suite's last call.
  void finish();

 private:
  // Tells the context's progress when a case other than the last one begins.
  void begin(const std::string& case_name);

  const SuiteContext& context_;
  std::string suite_;
  std::string current_case_;
  Publish when_;
  std::vector<Sample> samples_;
};

}  // namespace splitstep
