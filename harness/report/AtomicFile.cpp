#include "report/AtomicFile.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace splitstep {

namespace {

std::string temporaryBeside(const std::string& path) {
  return fmt::format("{}.tmp.{}", path, getpid());
}

}  // namespace

void writeFileAtomically(const std::string& path, const std::string& content) {
  const std::string temporary = temporaryBeside(path);
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

std::optional<std::string> whyNotWritable(const std::string& path) {
  if (path.empty()) return "is empty";
  struct stat target {};
  if (stat(path.c_str(), &target) == 0) {
    if (S_ISDIR(target.st_mode)) return "is a directory";
    // A device or a pipe would be replaced by a plain file.
    if (!S_ISREG(target.st_mode)) return "is not a regular file";
    // Root may write anything; a file nobody may write is still meant to stay as it is.
    if ((target.st_mode & 0222) == 0 || access(path.c_str(), W_OK) != 0) {
      return "is read-only (it would be replaced)";
    }
  }
  const std::filesystem::path parent = std::filesystem::absolute(path).parent_path();
  std::error_code error;
  if (!std::filesystem::is_directory(parent, error)) return "is in a directory that does not exist";
  const std::string temporary = temporaryBeside(path);
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) return fmt::format("cannot be created: {}", std::strerror(errno));
  close(fd);
  unlink(temporary.c_str());
  return std::nullopt;
}

}  // namespace splitstep
