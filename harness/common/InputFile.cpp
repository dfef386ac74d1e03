#include "common/InputFile.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <system_error>

#include "common/Units.hpp"

namespace splitstep {
namespace {

std::string reasonFor(const std::error_code& error) {
  switch (error.value()) {
    case ENOENT:
    case ENOTDIR:
      return "no such file";
    case ELOOP:
      return "a loop of symbolic links";
    case ENAMETOOLONG:
      return "a name too long for the file system";
    case EACCES:
      return "cannot be read (permission denied)";
    default:
      return "cannot be read (" + error.message() + ")";
  }
}

}  // namespace

std::optional<std::string> inputFileProblem(const std::string& path, std::uintmax_t max_bytes,
                                            const std::string& what) {
  namespace fs = std::filesystem;
  if (path.empty()) return "an empty path";
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error) return reasonFor(error);
  switch (status.type()) {
    case fs::file_type::regular:
      break;
    case fs::file_type::not_found:
      return "no such file";
    case fs::file_type::directory:
      return "is a directory, not a file";
    case fs::file_type::fifo:
      return "is a FIFO, not a file";
    case fs::file_type::block:
    case fs::file_type::character:
      return "is a device, not a file";
    case fs::file_type::socket:
      return "is a socket, not a file";
    default:
      return "is not a regular file";
  }
  if (::access(path.c_str(), R_OK) != 0) return reasonFor({errno, std::generic_category()});
  const std::uintmax_t size = fs::file_size(path, error);
  if (error) return reasonFor(error);
  if (size > max_bytes) {
    return fmt::format("is {}, more than the {} {} may be",
                       formatBytesApprox(static_cast<double>(size)),
                       formatBytesApprox(static_cast<double>(max_bytes)), what);
  }
  return std::nullopt;
}

}  // namespace splitstep
