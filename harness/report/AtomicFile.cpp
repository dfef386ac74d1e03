#include "report/AtomicFile.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace splitstep {

namespace {

std::string temporaryBeside(const std::string& path) {
  return fmt::format("{}.tmp.{}", path, getpid());
}

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw std::runtime_error(fmt::format("cannot {} {}: {}", what, path, std::strerror(errno)));
}

struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) close(fd);
  }
};

// The whole content, on the disk: a rename made durable before its file's data could leave an
// empty file after a crash where a complete one stood.
void writeDurably(const std::string& temporary, const std::string& content) {
  Descriptor file{open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
  if (file.fd < 0) fail("write", temporary);
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t wrote = write(file.fd, content.data() + written, content.size() - written);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0) fail("write", temporary);
    written += static_cast<std::size_t>(wrote);
  }
  if (fsync(file.fd) != 0) fail("flush to disk", temporary);
  const int fd = file.fd;
  file.fd = -1;
  if (close(fd) != 0) fail("write", temporary);
}

// The rename itself, on the disk: the directory's entry is what names the new file.
void syncDirectoryOf(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::absolute(path).parent_path();
  Descriptor directory{open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (directory.fd < 0) fail("open the directory", parent.string());
  if (fsync(directory.fd) != 0) fail("flush to disk the directory", parent.string());
}

}  // namespace

void writeFileAtomically(const std::string& path, const std::string& content) {
  const std::string temporary = temporaryBeside(path);
  try {
    writeDurably(temporary, content);
  } catch (const std::runtime_error&) {
    unlink(temporary.c_str());
    throw;
  }
  if (rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    unlink(temporary.c_str());
    throw std::runtime_error(
        fmt::format("cannot rename {} to {}: {}", temporary, path, std::strerror(error)));
  }
  syncDirectoryOf(path);
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
