// What a file a user names as input (an exported model, its batch) must be before any of it is
// read: a regular file, readable, within a size bound. Every file-system error is a reason, not
// an exception: a loop of symbolic links, a name over NAME_MAX and a path over PATH_MAX are
// refused as a missing file is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace splitstep {

// Why `path` cannot be read as an input of at most `max_bytes` ("is a directory", "is 6.00 GiB,
// more than the 4.00 GiB ..."), or nothing when it can. `what` names the input in the size
// refusal ("a batch file").
std::optional<std::string> inputFileProblem(const std::string& path, std::uintmax_t max_bytes,
                                            const std::string& what);

}  // namespace splitstep
