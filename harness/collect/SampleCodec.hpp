// Samples and rank descriptions to and from JSON text, the form they travel to rank 0 in.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "measure/Sample.hpp"
#include "meta/RankInfo.hpp"

namespace splitstep {

// JSON keys are the field names, except Sample's case_name, written as "case".
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Rate, name, amount_per_loop, scale)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Check, name, checked, wrong)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RankInfo, rank, host, local_rank, device, device_name,
                                   node_index, pci_bus_id, uuid, gpu_links)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Comparison, group, baseline, is_baseline)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SmClock, current_mhz, max_mhz, limited_by)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TelemetryRange, n, min, mean, max)
// {"readings": 52, "sm_clock_mhz": {"n", "min", "mean", "max"}, ..., "limit_readings": 50,
//  "clock_limits": {"power cap": 0.85}}: one key per quantity read.
void to_json(nlohmann::json& json, const TelemetrySummary& summary);
void from_json(const nlohmann::json& json, TelemetrySummary& summary);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PhaseWallTimes, cold_start, warm_up, prepare, sampling)
void to_json(nlohmann::json& json, const Measurement& m);
void from_json(const nlohmann::json& json, Measurement& m);
// A case's fields as one JSON object, numbers as numbers and lists as arrays: the results file's
// "fields", whose types its catalogue names.
nlohmann::json fieldsJson(const CaseFields& fields);
// `value` read as a field of `type`; throws std::invalid_argument where it holds another.
FieldValue fieldValue(FieldType type, const nlohmann::json& value);
// A Sample's fields travel typed: {"name": ["integer", 5], ...}, each value beside the name of
// the type it was encoded as, so that decoding reads that type instead of guessing it from the
// JSON (a number that happens to be whole, an empty list). The family travels with them.
void to_json(nlohmann::json& json, const CaseFields& fields);
void from_json(const nlohmann::json& json, CaseFields& fields);
// What names a case, as a sample and a results file's case write it: suite, case, series,
// part_of, detail and unit (a Sample's or a CaseResult's, which share these members).
template <typename Case>
nlohmann::json caseIdentityJson(const Case& c) {
  return {{"suite", c.suite},     {"case", c.case_name}, {"series", c.series},
          {"part_of", c.part_of}, {"detail", c.detail},  {"unit", c.unit}};
}
void to_json(nlohmann::json& json, const Sample& sample);
void from_json(const nlohmann::json& json, Sample& sample);

std::string encodeSamples(const std::vector<Sample>& samples);
std::vector<Sample> decodeSamples(const std::string& text);
std::string encodeRankInfo(const RankInfo& info);
RankInfo decodeRankInfo(const std::string& text);

}  // namespace splitstep
