#include "suites/CaseRunner.hpp"

#include <algorithm>
#include <utility>

#include "measure/Measurer.hpp"

namespace splitstep {

CaseRunner::CaseRunner(const SuiteContext& context, std::string suite, Publish when)
    : context_(context), suite_(std::move(suite)), when_(when) {}

void CaseRunner::begin(const std::string& case_name) {
  // A case's series (a step's phases) share its name: the case begins once.
  if (case_name.empty() || case_name == current_case_) return;
  current_case_ = case_name;
  if (context_.progress != nullptr) context_.progress->caseStarted(suite_, case_name);
}

Sample& CaseRunner::add(std::string case_name, std::string series, CaseFields fields,
                        const MeasureDevice* clock) {
  if (when_ == Publish::EachCase && !samples_.empty()) publish(take());
  begin(case_name);
  // Named from the start: a case may agree on a decision with the other ranks before it is timed.
  context_.watchdog.setOperation(suite_ + " " + case_name);
  Sample& sample = samples_.emplace_back();
  sample.suite = suite_;
  sample.case_name = std::move(case_name);
  sample.series = std::move(series);
  sample.fields = std::move(fields);
  sample.measurement.clock = (clock != nullptr ? *clock : context_.device).clockName();
  return sample;
}

void CaseRunner::skip(Sample& sample, const std::string& why) {
  sample.notes.push_back("skipped: " + why);
}

Timeline* CaseRunner::timeline() const {
  Timeline* timeline = context_.timeline;
  return timeline != nullptr && timeline->enabled() ? timeline : nullptr;
}

void CaseRunner::measure(Sample& sample, const MeasureSettings& settings,
                         const std::function<void()>& body,
                         const std::function<void()>& after_sample, MeasureDevice* clock,
                         RankAgreement* agreement) {
  begin(sample.case_name);
  const std::string label = suite_ + " " + sample.case_name;
  context_.watchdog.setOperation(label);
  MeasureDevice& timer = clock != nullptr ? *clock : context_.device;
  RankAgreement& deciding = agreement != nullptr ? *agreement : context_.agreement;
  Timeline* recording = timeline();
  if (recording == nullptr) {
    sample.measurement = Measurer(timer, deciding, settings).measure(body, after_sample);
    return;
  }
  // Without a trace, the previous case's spans have served their purpose.
  recording->forget();
  recording->setCase(label);
  const std::size_t first = recording->spans().size();
  {
    Timeline::HostScope whole(*recording, span_kind::kCase, label);
    sample.measurement = Measurer(timer, deciding, settings, recording).measure(body, after_sample);
  }
  std::vector<HostSpan> samples;
  for (std::size_t i = first; i < recording->spans().size(); ++i) {
    const TimelineSpan& span = recording->spans()[i];
    if (span.track == Track::Work && span.kind == span_kind::kSample) samples.push_back(span.span);
  }
  sample.telemetry = telemetryDuring(samples);
}

std::optional<TelemetrySummary> CaseRunner::telemetryDuring(
    const std::vector<HostSpan>& windows) const {
  if (context_.telemetry == nullptr || windows.empty()) return std::nullopt;
  double from = windows.front().start;
  double to = windows.front().end;
  for (const HostSpan& w : windows) {
    from = std::min(from, w.start);
    to = std::max(to, w.end);
  }
  TelemetrySummary summary = summarizeTelemetry(context_.telemetry->readings(from, to), windows);
  if (summary.empty()) return std::nullopt;
  return summary;
}

std::vector<Sample> CaseRunner::take() {
  // Spans between cases belong to none.
  if (Timeline* recording = timeline()) recording->setCase("");
  return std::exchange(samples_, {});
}

void CaseRunner::publish(std::vector<Sample> samples) {
  if (!samples.empty()) context_.sink.publish(std::move(samples));
}

void CaseRunner::finish() { publish(take()); }

}  // namespace splitstep
