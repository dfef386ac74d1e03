// What the kernel says of another process on this host: lets a rank that did not answer be
// named as stopped (SIGSTOP) or gone (killed), where the launcher would only say "stalled".
#pragma once

#include <string>
#include <string_view>

namespace splitstep {

enum class ProcessState { Alive, Stopped, Gone };

// Reads /proc/<pid>/stat. A zombie (killed, not yet reaped) counts as gone.
ProcessState processState(long pid);

// The state as a word of a rank's description: "stopped", "gone", or "" for a live process.
std::string_view describe(ProcessState state);

}  // namespace splitstep
