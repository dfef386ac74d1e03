// Figures derived from several cases, as the terminal report prints them. Compact: the result's
// short table (the figures that have a row, a column per series), its legend and its diagnosis;
// a result that rests on a model's assumptions (a projection) only with --verbose. Verbose:
// every figure with its interval, per-rank values and note, then the notes, assumptions and
// diagnosis.
#pragma once

#include <ostream>

#include "derived/Derived.hpp"

namespace splitstep {

// Whether the compact console leaves `derived` to --verbose: figures from a model.
bool onlyVerbose(const DerivedResult& derived);

void printDerived(std::ostream& out, const DerivedResult& derived, bool verbose);

}  // namespace splitstep
