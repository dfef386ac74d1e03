#include "report/AtomicFile.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string_view>

namespace splitstep {

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path, int error = errno) {
  throw std::runtime_error(fmt::format("cannot {} {}: {}", what, path, std::strerror(error)));
}

struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) close(fd);
  }
};

// A new file beside `path`, `PATH.tmp.XXXXXX` with a random suffix, as mkstemp makes one: created
// by this call alone (O_EXCL) and never through a symbolic link (O_NOFOLLOW), so that a name
// planted there beforehand, a link to another file among them, is never written through; another
// name is drawn instead. Unlike mkstemp's, its mode is a plain file's under the umask.
struct Temporary {
  std::string path;
  int fd = -1;
  int error = 0;  // errno, where fd is -1
};

Temporary createTemporaryBeside(const std::string& path) {
  static constexpr std::string_view kLetters =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::random_device seed;
  std::mt19937_64 draw((static_cast<std::uint64_t>(seed()) << 32) ^ seed());
  std::uniform_int_distribution<std::size_t> letter(0, kLetters.size() - 1);
  Temporary temporary;
  for (int attempt = 0; attempt < 100; ++attempt) {
    temporary.path = path + ".tmp.";
    for (int i = 0; i < 6; ++i) temporary.path += kLetters[letter(draw)];
    temporary.fd =
        open(temporary.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    temporary.error = errno;
    if (temporary.fd >= 0 || temporary.error != EEXIST) break;
  }
  return temporary;
}

// The whole content, on the disk: a rename made durable before its file's data could leave an
// empty file after a crash where a complete one stood.
void writeDurably(const Temporary& temporary, const std::string& content) {
  Descriptor file{temporary.fd};
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t wrote = write(file.fd, content.data() + written, content.size() - written);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0) fail("write", temporary.path);
    written += static_cast<std::size_t>(wrote);
  }
  if (fsync(file.fd) != 0) fail("flush to disk", temporary.path);
  const int closing = file.fd;
  file.fd = -1;
  if (close(closing) != 0) fail("write", temporary.path);
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
  const Temporary temporary = createTemporaryBeside(path);
  if (temporary.fd < 0) fail("create", temporary.path, temporary.error);
  try {
    writeDurably(temporary, content);
  } catch (const std::runtime_error&) {
    unlink(temporary.path.c_str());
    throw;
  }
  if (rename(temporary.path.c_str(), path.c_str()) != 0) {
    const int error = errno;
    unlink(temporary.path.c_str());
    throw std::runtime_error(
        fmt::format("cannot rename {} to {}: {}", temporary.path, path, std::strerror(error)));
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
  const Temporary probe = createTemporaryBeside(path);
  if (probe.fd < 0) return fmt::format("cannot be created: {}", std::strerror(probe.error));
  close(probe.fd);
  unlink(probe.path.c_str());
  return std::nullopt;
}

}  // namespace splitstep
