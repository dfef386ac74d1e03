// Where one rank ran: what reports need to name a rank.
#pragma once

#include <string>

namespace splitstep {

struct RankInfo {
  int rank = 0;
  std::string host;
  int local_rank = 0;
  std::string device;       // "cuda:0" or "cpu"
  std::string device_name;  // "NVIDIA H200"
};

}  // namespace splitstep
