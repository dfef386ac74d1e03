// Which gradients are reduced together: PyTorch DDP's bucket assignment.
#pragma once

#include <cstddef>
#include <vector>

namespace splitstep {

// `bytes[i]` is the size of gradient i in the order the model registers its parameters.
// Gradients are taken in reverse order (the order backward produces them), each added to the
// open bucket, and a bucket is closed once it holds at least its cap: `first_cap` for the first
// bucket (small, so that the first allreduce starts early), `cap` for the rest. A gradient
// larger than the cap gets a bucket of its own, or shares one with the smaller gradients before
// it. Returns the gradient indices of each bucket, in launch order.
std::vector<std::vector<std::size_t>> assignBuckets(const std::vector<std::size_t>& bytes,
                                                    std::size_t first_cap, std::size_t cap);

}  // namespace splitstep
