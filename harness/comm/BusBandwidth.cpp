#include "comm/BusBandwidth.hpp"

#include <stdexcept>

namespace splitstep {

std::optional<double> busBandwidthFactor(Collective collective, int ranks) {
  if (ranks < 1) throw std::invalid_argument("rank count must be positive");
  if (ranks == 1) return std::nullopt;
  const double n = ranks;
  switch (collective) {
    case Collective::AllReduce:
      return 2.0 * (n - 1.0) / n;
    case Collective::ReduceScatter:
    case Collective::AllGather:
      return (n - 1.0) / n;
    case Collective::Broadcast:
      return 1.0;
  }
  throw std::invalid_argument("unknown collective");
}

}  // namespace splitstep
