#include "fault/ProcessState.hpp"

#include <fstream>

namespace splitstep {

ProcessState processState(long pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!file || !std::getline(file, stat)) return ProcessState::Gone;
  // "pid (command) S ...": the command may hold spaces and parentheses, the state follows the
  // last closing one.
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return ProcessState::Alive;
  switch (stat[close + 2]) {
    case 'T':  // stopped by a signal
    case 't':  // stopped by a tracer
      return ProcessState::Stopped;
    case 'Z':
    case 'X':
      return ProcessState::Gone;
    default:
      return ProcessState::Alive;
  }
}

std::string_view describe(ProcessState state) {
  switch (state) {
    case ProcessState::Stopped:
      return "stopped";
    case ProcessState::Gone:
      return "gone";
    case ProcessState::Alive:
      break;
  }
  return "";
}

}  // namespace splitstep
