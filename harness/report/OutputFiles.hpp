// What an output path may replace, and who writes it: splitstep replaces only a file it wrote
// itself (unless told to overwrite), never one of the run's inputs or two outputs with one
// file, and one run at a time writes a path (an advisory lock held for the whole run).
#pragma once

#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace splitstep {

// What splitstep writes to an output path, recognised by its content (each output's own test,
// in report/OutputCatalogue.cpp).
struct OutputKind {
  std::string_view what;  // in refusals: "holds something other than splitstep's results"
  // The file, read from its start, holds what splitstep writes as this kind.
  bool (*holds_own)(std::istream& file);
};

// True where replacing `path` loses nothing splitstep did not write: it does not exist, is
// empty (as mktemp leaves it), or holds what splitstep writes as `kind`.
bool holdsOnlyOwnOutput(const std::string& path, const OutputKind& kind);

// The tests of holds_own. A JSON document names a schema of `family` ("splitstep.results/", any
// version) at its top level, or in its otherData object (a trace's), read only as far as the name.
bool namesSchema(std::istream& file, bool in_other_data, std::string_view family);
// The file starts with `prefix` (a first line that names the format).
bool startsWith(std::istream& file, std::string_view prefix);
// The first line starts with `fields` and ends there or goes on after `separator` (a CSV header
// with more columns).
bool firstLineStartsWith(std::istream& file, std::string_view fields, char separator);
// "splitstep.results/" for "splitstep.results/2": a schema's every version.
std::string_view schemaFamily(std::string_view schema);

// Two paths name one file: the same inode where both exist, else the same path once resolved
// (symbolic links, "." and ".." followed).
bool sameFile(const std::string& a, const std::string& b);

struct OutputPath {
  std::string option;  // "--json"
  std::string path;
  OutputKind kind;
};

// Why the run must not write these outputs, as "--option: 'path' reason", or nothing. Each
// must be writable (whyNotWritable), none may be another output or one of `inputs` (option and
// path), and each may replace only a file it wrote itself, unless `overwrite`.
std::optional<std::string> outputRefusal(
    const std::vector<OutputPath>& outputs,
    const std::vector<std::pair<std::string, std::string>>& inputs, bool overwrite);

// Why files cannot be written into directory `path`, made where it is missing (as --torch-profile
// does), or nothing: "is not a directory", "is under 'a/b', which is not a directory", "is not
// writable", "cannot be made in 'a': it is not writable". The text does not repeat the path.
std::optional<std::string> whyNoOutputDirectory(const std::string& path);

// Who holds an output's lock, as its lock file says.
struct LockHolder {
  long pid = 0;
  std::string host;
  std::string slurm_job;  // empty outside Slurm
};

// An exclusive advisory lock (flock) on `<path>.lock`, held while the object lives and released
// by the kernel however the process ends. The lock file names its holder; it is removed when
// the lock is given back.
class OutputLock {
 public:
  // The lock on `path`, or why it is not to be had, without the path: "is being written by
  // another run (pid 4321 on node7, Slurm job 77)", "cannot be locked: 'out.json.lock' ...".
  static std::variant<OutputLock, std::string> take(const std::string& path, const LockHolder& me);
  OutputLock(OutputLock&& other) noexcept;
  OutputLock& operator=(OutputLock&&) = delete;
  OutputLock(const OutputLock&) = delete;
  ~OutputLock();

  static std::string lockPathOf(const std::string& path) { return path + ".lock"; }

  // The holder named by a lock file a run left behind without giving it back (a killed job),
  // which this lock took over: "pid 4321 on node7"; empty where the lock file was new.
  const std::string& takenOver() const { return taken_over_; }
  const std::string& lockPath() const { return lock_path_; }

 private:
  OutputLock(std::string lock_path, int fd, std::string taken_over)
      : lock_path_(std::move(lock_path)), fd_(fd), taken_over_(std::move(taken_over)) {}
  std::string lock_path_;
  int fd_;
  std::string taken_over_;
};

}  // namespace splitstep
