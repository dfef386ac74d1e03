// Writes a whole file or nothing: readers never see half a file.
#pragma once

#include <optional>
#include <string>

namespace splitstep {

// Writes `content` to a temporary file beside `path`, flushes it to the disk (fsync), renames it
// over `path` and flushes the directory, so that neither a reader nor a crash or power loss ever
// leaves less than the old file or the new one. Throws std::runtime_error naming the path and
// the reason.
void writeFileAtomically(const std::string& path, const std::string& content);

// Why writeFileAtomically(path, ...) would fail or do harm, checked before a run rather than
// after it: "is a directory", "is not a regular file", "is read-only (it would be replaced)",
// "is in a directory that does not exist", "cannot be created: Permission denied" (the
// temporary file is tried). Empty when it can be written. The text does not repeat the path.
std::optional<std::string> whyNotWritable(const std::string& path);

}  // namespace splitstep
