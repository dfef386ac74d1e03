#include "collect/SampleCodec.hpp"

#include <nlohmann/json.hpp>

namespace splitstep {

void to_json(nlohmann::json& json, const Rate& rate) {
  json = {{"name", rate.name}, {"amount_per_loop", rate.amount_per_loop}, {"scale", rate.scale}};
}
void from_json(const nlohmann::json& json, Rate& rate) {
  json.at("name").get_to(rate.name);
  json.at("amount_per_loop").get_to(rate.amount_per_loop);
  json.at("scale").get_to(rate.scale);
}
void to_json(nlohmann::json& json, const Check& check) {
  json = {{"name", check.name}, {"checked", check.checked}, {"wrong", check.wrong}};
}
void from_json(const nlohmann::json& json, Check& check) {
  json.at("name").get_to(check.name);
  json.at("checked").get_to(check.checked);
  json.at("wrong").get_to(check.wrong);
}

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

void to_json(nlohmann::json& json, const RankInfo& info) {
  json = {{"rank", info.rank},
          {"host", info.host},
          {"local_rank", info.local_rank},
          {"device", info.device},
          {"device_name", info.device_name}};
}
void from_json(const nlohmann::json& json, RankInfo& info) {
  json.at("rank").get_to(info.rank);
  json.at("host").get_to(info.host);
  json.at("local_rank").get_to(info.local_rank);
  json.at("device").get_to(info.device);
  json.at("device_name").get_to(info.device_name);
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
