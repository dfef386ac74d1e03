// Samples and rank descriptions to and from JSON text, the form they travel to rank 0 in.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "measure/Sample.hpp"
#include "meta/RankInfo.hpp"

namespace splitstep {

void to_json(nlohmann::json& json, const Sample& sample);
void from_json(const nlohmann::json& json, Sample& sample);
void to_json(nlohmann::json& json, const RankInfo& info);
void from_json(const nlohmann::json& json, RankInfo& info);

std::string encodeSamples(const std::vector<Sample>& samples);
std::vector<Sample> decodeSamples(const std::string& text);
std::string encodeRankInfo(const RankInfo& info);
RankInfo decodeRankInfo(const std::string& text);

}  // namespace splitstep
