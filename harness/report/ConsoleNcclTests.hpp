// nccl-tests' table (src/util.cu: writeResultHeader, writeBenchmarkLine*, writeResultFooter) for
// the collective cases of one suite, so that what reads nccl-tests' output reads splitstep's:
// one line per size and type with the out-of-place then the in-place time (us), algbw, busbw
// (GB/s) and #wrong. The time is splitstep's median across ranks and the bandwidths are the
// case's own (results files hold the same); a placement that was not run shows N/A in its
// four columns, as nccl-tests shows N/A for a check it does not make.
#pragma once

#include <ostream>
#include <string_view>
#include <vector>

#include "derived/CaseResult.hpp"

namespace splitstep {

struct CollectiveDescriptor;  // comm/Collective.hpp

// nccl-tests' redop and root columns of a collective, as its binary prints them: the root -1
// where the collective has none.
struct NcclTestsColumns {
  std::string_view redop;
  int root;
};
NcclTestsColumns ncclTestsColumns(const CollectiveDescriptor& collective);

// The table of `cases` that are collective cases (the others are left out); nothing where there
// is none.
void printNcclTestsTable(std::ostream& out, const std::vector<CaseResult>& cases);

}  // namespace splitstep
