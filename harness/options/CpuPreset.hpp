// The CPU preset: configs/cpu-quick.ini, built into the program, the defaults of a run that
// finds no GPU on any rank and was given no --device, or was given --device cpu (main.cpp), so
// that a bare `splitstep` on a CPU, or `splitstep --device cpu` anywhere, runs cases a CPU
// finishes in seconds instead of a GPU's.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace splitstep {

// The INI text of configs/cpu-quick.ini, as it was when the program was built.
std::string_view cpuPreset();

// A rank's answer to "which defaults?": the GPUs it sees where it was given no --device, none
// where it was given --device cpu (a CPU's run, whatever it sees), or this where it does not ask
// (it was given --device auto or cuda, or it will not run: --help, --version, bad options).
inline constexpr std::uint64_t kDefaultsNotAsked = ~std::uint64_t{0};

// Whether the ranks, each having answered (the answers gathered from every rank), take the CPU
// preset: only when every rank asks and none sees a GPU. Every rank decides from the same
// answers, so all choose alike; a node with a GPU keeps its defaults, and ranks that disagree
// keep theirs for the start-up checks to refuse (a mixed launch, different options).
bool takesCpuPreset(std::span<const std::uint64_t> answers);

}  // namespace splitstep
