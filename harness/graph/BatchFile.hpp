// A batch for an exported graph read from a file: what `torch.save((inputs..., target), path)`
// writes, a tuple or list of tensors, checked against the batch the archive records.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

#include "graph/GraphArchive.hpp"

namespace splitstep {

// The tensors of the file at `path`, on the CPU, in the order of `recorded`. Throws
// GraphArchiveError, one line naming the file and the first mismatch, for a file that is missing
// or is not one of torch.save, that holds something other than a tuple or list of as many
// tensors, or a tensor of another shape or dtype than recorded, or not dense, or with an integer
// value outside the recorded range.
std::vector<at::Tensor> readBatchFile(const std::string& path,
                                      const std::vector<BatchTensorSpec>& recorded);

}  // namespace splitstep
