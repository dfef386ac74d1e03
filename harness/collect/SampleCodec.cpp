#include "collect/SampleCodec.hpp"

namespace splitstep {

void to_json(nlohmann::json& json, const Sample& sample) {
  json = {{"suite", sample.suite},  {"case", sample.case_name}, {"series", sample.series},
          {"unit", sample.unit},    {"clock", sample.clock},    {"params", sample.params},
          {"rates", sample.rates},  {"checks", sample.checks},  {"notes", sample.notes},
          {"values", sample.values}};
}
void from_json(const nlohmann::json& json, Sample& sample) {
  json.at("suite").get_to(sample.suite);
  json.at("case").get_to(sample.case_name);
  json.at("series").get_to(sample.series);
  json.at("unit").get_to(sample.unit);
  json.at("clock").get_to(sample.clock);
  json.at("params").get_to(sample.params);
  json.at("rates").get_to(sample.rates);
  json.at("checks").get_to(sample.checks);
  json.at("notes").get_to(sample.notes);
  json.at("values").get_to(sample.values);
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
