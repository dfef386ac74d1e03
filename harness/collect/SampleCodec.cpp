#include "collect/SampleCodec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace splitstep {
namespace {

// nlohmann's macros cannot express optional fields; absent clocks are written as null.
template <typename T>
void putOptional(nlohmann::json& json, const char* key, const std::optional<T>& value) {
  json[key] = value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

template <typename T>
void getOptional(const nlohmann::json& json, const char* key, std::optional<T>& value) {
  const nlohmann::json& entry = json.at(key);
  value = entry.is_null() ? std::nullopt : std::optional<T>(entry.get<T>());
}

}  // namespace

void to_json(nlohmann::json& json, const TelemetrySummary& summary) {
  json = {{"readings", summary.readings},
          {"limit_readings", summary.limit_readings},
          {"clock_limits", summary.clock_limits}};
  for (const auto& [name, range] : summary.ranges) json[name] = range;
}

void from_json(const nlohmann::json& json, TelemetrySummary& summary) {
  json.at("readings").get_to(summary.readings);
  json.at("limit_readings").get_to(summary.limit_readings);
  json.at("clock_limits").get_to(summary.clock_limits);
  summary.ranges.clear();
  for (const auto& [quantity, name] : EnumNames<TelemetryQuantity>::values) {
    if (json.contains(std::string(name)))
      json.at(std::string(name)).get_to(summary.ranges[std::string(name)]);
  }
}

void to_json(nlohmann::json& json, const Measurement& m) {
  json = {{"clock", m.clock},
          {"method", m.method},
          {"values", m.values},
          {"host_values", m.host_values},
          {"arrival_waits", m.arrival_waits},
          {"cold", m.cold},
          {"cold_host", m.cold_host},
          {"loops", m.loops},
          {"timer_overhead", m.timer_overhead},
          {"noise", m.noise},
          {"noise_target_met", m.noise_target_met},
          {"stop_rule", toString(m.stop_rule)},
          {"stop_reason", m.stop_reason},
          {"wall", m.wall},
          {"notes", m.notes}};
  putOptional(json, "clock_at_start", m.clock_at_start);
  putOptional(json, "clock_at_end", m.clock_at_end);
}

void from_json(const nlohmann::json& json, Measurement& m) {
  json.at("clock").get_to(m.clock);
  json.at("method").get_to(m.method);
  json.at("values").get_to(m.values);
  json.at("host_values").get_to(m.host_values);
  json.at("arrival_waits").get_to(m.arrival_waits);
  json.at("cold").get_to(m.cold);
  json.at("cold_host").get_to(m.cold_host);
  json.at("loops").get_to(m.loops);
  json.at("timer_overhead").get_to(m.timer_overhead);
  json.at("noise").get_to(m.noise);
  json.at("noise_target_met").get_to(m.noise_target_met);
  const auto rule = enumFromString<StopRule>(json.at("stop_rule").get<std::string>());
  if (!rule) throw std::invalid_argument("unknown stop_rule in a sample");
  m.stop_rule = *rule;
  json.at("stop_reason").get_to(m.stop_reason);
  json.at("wall").get_to(m.wall);
  json.at("notes").get_to(m.notes);
  getOptional(json, "clock_at_start", m.clock_at_start);
  getOptional(json, "clock_at_end", m.clock_at_end);
}

nlohmann::json fieldsJson(const CaseFields& fields) {
  nlohmann::json values = nlohmann::json::object();
  for (const auto& [name, value] : fields.values) {
    std::visit([&values, &name](const auto& v) { values[name] = v; }, value);
  }
  return values;
}

FieldValue fieldValue(FieldType type, const nlohmann::json& value) {
  const bool fits = [&] {
    switch (type) {
      case FieldType::String:
        return value.is_string();
      case FieldType::Integer:
        return value.is_number_integer();
      case FieldType::Number:
        return value.is_number();
      case FieldType::Integers:
        return value.is_array() &&
               std::all_of(value.begin(), value.end(),
                           [](const nlohmann::json& v) { return v.is_number_integer(); });
    }
    return false;
  }();
  if (!fits) {
    throw std::invalid_argument(
        fmt::format("a case field of type {} holds {}", toString(type), value.dump()));
  }
  switch (type) {
    case FieldType::String:
      return value.get<std::string>();
    case FieldType::Integer:
      return value.get<std::int64_t>();
    case FieldType::Number:
      return value.get<double>();
    case FieldType::Integers:
      return value.get<IntegerList>();
  }
  return {};
}

void to_json(nlohmann::json& json, const CaseFields& fields) {
  json = {{"family", fields.family}, {"values", nlohmann::json::object()}};
  for (const auto& [name, value] : fields.values) {
    nlohmann::json& entry = json["values"][name];
    entry = nlohmann::json::array({toString(typeOf(value))});
    std::visit([&entry](const auto& v) { entry.push_back(v); }, value);
  }
}

void from_json(const nlohmann::json& json, CaseFields& fields) {
  json.at("family").get_to(fields.family);
  fields.values.clear();
  for (const auto& [name, typed] : json.at("values").items()) {
    const auto type = enumFromString<FieldType>(typed.at(0).get<std::string>());
    if (!type) throw std::invalid_argument("case field '" + name + "' of an unknown type");
    fields.values.emplace(name, fieldValue(*type, typed.at(1)));
  }
}

void to_json(nlohmann::json& json, const Sample& sample) {
  json = caseIdentityJson(sample);
  json.update({{"fields", sample.fields},
               {"rates", sample.rates},
               {"checks", sample.checks},
               {"notes", sample.notes},
               {"comparison", sample.comparison},
               {"measurement", sample.measurement}});
  putOptional(json, "telemetry", sample.telemetry);
}
void from_json(const nlohmann::json& json, Sample& sample) {
  json.at("suite").get_to(sample.suite);
  json.at("case").get_to(sample.case_name);
  json.at("series").get_to(sample.series);
  json.at("part_of").get_to(sample.part_of);
  json.at("detail").get_to(sample.detail);
  json.at("unit").get_to(sample.unit);
  json.at("fields").get_to(sample.fields);
  json.at("rates").get_to(sample.rates);
  json.at("checks").get_to(sample.checks);
  json.at("notes").get_to(sample.notes);
  json.at("comparison").get_to(sample.comparison);
  json.at("measurement").get_to(sample.measurement);
  getOptional(json, "telemetry", sample.telemetry);
}

std::string encodeSamples(const std::vector<Sample>& samples) {
  return nlohmann::json(samples).dump();
}
std::vector<Sample> decodeSamples(const std::string& text) {
  return nlohmann::json::parse(text).get<std::vector<Sample>>();
}
std::string encodeRankInfo(const RankInfo& info) { return nlohmann::json(info).dump(); }
RankInfo decodeRankInfo(const std::string& text) {
  return nlohmann::json::parse(text).get<RankInfo>();
}

}  // namespace splitstep
