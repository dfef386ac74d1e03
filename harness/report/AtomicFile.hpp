// Writes a whole file or nothing: readers never see half a file.
#pragma once

#include <string>

namespace splitstep {

// Writes `content` to a temporary file beside `path`, then renames it over `path`.
// Throws std::runtime_error naming the path and the reason.
void writeFileAtomically(const std::string& path, const std::string& content);

}  // namespace splitstep
