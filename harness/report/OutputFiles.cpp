#include "report/OutputFiles.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "options/OptionValue.hpp"
#include "report/AtomicFile.hpp"

namespace splitstep {
namespace {

// Paths are echoed up to this length, escaped, in refusals.
constexpr std::size_t kPathEcho = 200;
// How a lock file starts: a file of that name that says anything else is not splitstep's.
constexpr std::string_view kLockTag = "splitstep output lock:";

// The schema a results file names at its top level, or a trace in its otherData, read without
// building the document: a trace's otherData comes before its events, so reading stops early.
class SchemaFinder : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit SchemaFinder(bool in_other_data) : in_other_data_(in_other_data) {}
  const std::optional<std::string>& schema() const { return schema_; }

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool string(string_t& text) override {
    if (!schema_next_) return value();
    schema_ = text;
    return false;  // found: stop reading
  }
  bool start_object(std::size_t) override {
    if (depth_ == 1) inside_other_data_ = other_data_next_;
    ++depth_;
    return value();
  }
  bool end_object() override {
    if (--depth_ == 1) inside_other_data_ = false;
    return true;
  }
  bool start_array(std::size_t) override {
    ++depth_;
    return value();
  }
  bool end_array() override {
    --depth_;
    return true;
  }
  bool key(string_t& name) override {
    const int schema_depth = in_other_data_ ? 2 : 1;
    schema_next_ =
        name == "schema" && depth_ == schema_depth && inside_other_data_ == in_other_data_;
    other_data_next_ = depth_ == 1 && name == "otherData";
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool value() {
    schema_next_ = false;
    other_data_next_ = false;
    return true;
  }
  const bool in_other_data_;
  int depth_ = 0;
  bool schema_next_ = false;
  bool other_data_next_ = false;
  bool inside_other_data_ = false;
  std::optional<std::string> schema_;
};

std::string quoted(const std::string& path) {
  return fmt::format("'{}'", printable(path, kPathEcho));
}

std::string holderText(const LockHolder& holder) {
  return fmt::format("{} pid={} host={} slurm_job={}\n", kLockTag, holder.pid, holder.host,
                     holder.slurm_job.empty() ? "-" : holder.slurm_job);
}

// "pid 4321 on node7, Slurm job 77", from what holderText wrote.
std::string describeHolder(const std::string& text) {
  std::istringstream fields(text.substr(kLockTag.size()));
  std::string pid = "?", host = "?", job;
  for (std::string field; fields >> field;) {
    const std::size_t equals = field.find('=');
    const std::string name = field.substr(0, equals);
    const std::string value = equals == std::string::npos ? "" : field.substr(equals + 1);
    if (name == "pid") pid = value;
    if (name == "host") host = value;
    if (name == "slurm_job" && value != "-") job = value;
  }
  return fmt::format("pid {} on {}{}", printable(pid, 20), printable(host, 80),
                     job.empty() ? "" : fmt::format(", Slurm job {}", printable(job, 40)));
}

std::string readAll(int fd) {
  std::string text;
  char buffer[512];
  for (ssize_t got;
       (got = pread(fd, buffer, sizeof buffer, static_cast<off_t>(text.size()))) > 0;) {
    text.append(buffer, static_cast<std::size_t>(got));
    if (text.size() > 4096) break;  // a lock file names one holder
  }
  return text;
}

}  // namespace

bool holdsOnlyOwnOutput(const std::string& path, const OutputKind& kind) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return true;
  if (std::filesystem::is_regular_file(path, error) &&
      std::filesystem::file_size(path, error) == 0 && !error) {
    return true;
  }
  std::ifstream file(path, std::ios::binary);
  return file && kind.holds_own(file);
}

bool namesSchema(std::istream& file, bool in_other_data, std::string_view family) {
  SchemaFinder finder(in_other_data);
  nlohmann::json::sax_parse(file, &finder);
  return finder.schema() && finder.schema()->starts_with(family);
}

bool startsWith(std::istream& file, std::string_view prefix) {
  std::string first(prefix.size(), '\0');
  file.read(first.data(), static_cast<std::streamsize>(first.size()));
  return file.gcount() == static_cast<std::streamsize>(prefix.size()) && first == prefix;
}

bool firstLineStartsWith(std::istream& file, std::string_view fields, char separator) {
  // A header is one line of a few hundred bytes; whatever has no line end early is not one.
  std::string first(64 * 1024, '\0');
  file.read(first.data(), static_cast<std::streamsize>(first.size()));
  first.resize(static_cast<std::size_t>(file.gcount()));
  first.resize(std::min(first.find('\n'), first.size()));
  return first.starts_with(fields) &&
         (first.size() == fields.size() || first[fields.size()] == separator);
}

std::string_view schemaFamily(std::string_view schema) {
  return schema.substr(0, schema.find('/') + 1);
}

bool sameFile(const std::string& a, const std::string& b) {
  struct stat first {};
  struct stat second {};
  if (stat(a.c_str(), &first) == 0 && stat(b.c_str(), &second) == 0) {
    return first.st_dev == second.st_dev && first.st_ino == second.st_ino;
  }
  std::error_code error_a;
  std::error_code error_b;
  const auto resolved_a = std::filesystem::weakly_canonical(std::filesystem::absolute(a), error_a);
  const auto resolved_b = std::filesystem::weakly_canonical(std::filesystem::absolute(b), error_b);
  if (error_a || error_b) return std::filesystem::absolute(a) == std::filesystem::absolute(b);
  return resolved_a == resolved_b;
}

std::optional<std::string> outputRefusal(
    const std::vector<OutputPath>& outputs,
    const std::vector<std::pair<std::string, std::string>>& inputs, bool overwrite) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const OutputPath& out = outputs[i];
    const auto refuse = [&out](const std::string& why) {
      return fmt::format("{}: {} {}", out.option, quoted(out.path), why);
    };
    if (out.path.empty()) return refuse("is empty");
    for (std::size_t j = 0; j < i; ++j) {
      if (sameFile(out.path, outputs[j].path)) {
        return refuse(fmt::format("is also the {} file: each output needs a file of its own",
                                  outputs[j].option));
      }
    }
    for (const auto& [option, input] : inputs) {
      if (!input.empty() && sameFile(out.path, input)) {
        return refuse(
            fmt::format("is the {} file, which the run reads (it would be replaced)", option));
      }
    }
    if (const auto why = whyNotWritable(out.path)) return refuse(*why);
    if (!overwrite && !holdsOnlyOwnOutput(out.path, out.kind)) {
      return refuse(
          fmt::format("holds something other than splitstep's {}: pass --overwrite to replace it",
                      out.kind.what));
    }
  }
  return std::nullopt;
}

std::optional<std::string> whyNoOutputDirectory(const std::string& path) {
  if (path.empty()) return "is empty";
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path wanted = fs::absolute(path);
  if (fs::exists(wanted, error)) {
    if (!fs::is_directory(wanted, error)) return "is not a directory";
    if (access(wanted.c_str(), W_OK | X_OK) != 0) return "is not writable";
    return std::nullopt;
  }
  // The nearest part that exists is where the missing directories would be made.
  fs::path existing = wanted.parent_path();
  while (!existing.empty() && !fs::exists(existing, error) && existing != existing.root_path()) {
    existing = existing.parent_path();
  }
  if (!fs::is_directory(existing, error)) {
    return fmt::format("is under {}, which is not a directory", quoted(existing.string()));
  }
  if (access(existing.c_str(), W_OK | X_OK) != 0) {
    return fmt::format("cannot be made in {}: it is not writable", quoted(existing.string()));
  }
  // Permissions do not tell it all (root in /proc, a read-only mount, a name over NAME_MAX):
  // the names are held to the file system's longest, and the first missing directory is made
  // and taken away again; the run makes them for good.
  const long name_max = pathconf(existing.c_str(), _PC_NAME_MAX);
  bool too_long = wanted.native().size() >= PATH_MAX;
  for (const fs::path& part : wanted.lexically_relative(existing)) {
    too_long =
        too_long || (name_max > 0 && part.native().size() > static_cast<std::size_t>(name_max));
  }
  if (too_long) return fmt::format("cannot be made: {}", std::strerror(ENAMETOOLONG));
  fs::path first = wanted;
  while (first.parent_path() != existing) first = first.parent_path();
  if (mkdir(first.c_str(), 0755) != 0) {
    // Every rank of a host probes the same path at once: another one's probe, or run, made it
    // first, which shows that it can be made.
    if (errno == EEXIST) return std::nullopt;
    return fmt::format("cannot be made: {}", std::strerror(errno));
  }
  rmdir(first.c_str());
  return std::nullopt;
}

std::variant<OutputLock, std::string> OutputLock::take(const std::string& path,
                                                       const LockHolder& me) {
  const std::string lock_path = lockPathOf(path);
  const auto refuse = [&lock_path](const std::string& why) {
    return fmt::format("cannot be locked: {} {}", quoted(lock_path), why);
  };
  // A lock file given back (removed) between its opening and its locking is not the one the
  // next run would lock: lock until the locked file is the one the name points to.
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) return refuse(fmt::format("cannot be created: {}", std::strerror(errno)));
    // A second name of another file: writing the holder into it would change that file too.
    struct stat opened {};
    if (fstat(fd, &opened) != 0 || opened.st_nlink > 1) {
      close(fd);
      return refuse("is a hard link to another file: remove it or write elsewhere");
    }
    const std::string held = readAll(fd);
    if (!held.empty() && !held.starts_with(kLockTag)) {
      close(fd);
      return refuse("is not a lock file of splitstep's: remove it or write elsewhere");
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      const std::string holder = readAll(fd);
      close(fd);
      if (error != EWOULDBLOCK) return refuse(std::strerror(error));
      return fmt::format("is being written by another run ({})", describeHolder(holder));
    }
    struct stat locked {};
    struct stat named {};
    if (fstat(fd, &locked) == 0 && stat(lock_path.c_str(), &named) == 0 &&
        locked.st_dev == named.st_dev && locked.st_ino == named.st_ino) {
      const std::string text = holderText(me);
      if (ftruncate(fd, 0) != 0 ||
          pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
        const int error = errno;
        close(fd);
        return refuse(fmt::format("cannot be written: {}", std::strerror(error)));
      }
      return OutputLock(lock_path, fd, held.empty() ? "" : describeHolder(held));
    }
    close(fd);
  }
  return refuse("keeps being removed while it is locked");
}

OutputLock::OutputLock(OutputLock&& other) noexcept
    : lock_path_(std::move(other.lock_path_)),
      fd_(other.fd_),
      taken_over_(std::move(other.taken_over_)) {
  other.fd_ = -1;
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  // Removed while still held, so that no other run locks the name this run gives back.
  unlink(lock_path_.c_str());
  close(fd_);
}

}  // namespace splitstep
