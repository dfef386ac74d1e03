#include "report/AtomicFile.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace splitstep {

void writeFileAtomically(const std::string& path, const std::string& content) {
  const std::string temporary = fmt::format("{}.tmp.{}", path, getpid());
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (!file) {
      throw std::runtime_error(fmt::format("cannot write {}: {}", temporary, std::strerror(errno)));
    }
    file << content;
    file.flush();
    if (!file) {
      std::filesystem::remove(temporary);
      throw std::runtime_error(fmt::format("writing {} failed", temporary));
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::filesystem::remove(temporary);
    throw std::runtime_error(
        fmt::format("cannot rename {} to {}: {}", temporary, path, error.message()));
  }
}

}  // namespace splitstep
