// The loss of an exported model's workload on the batch each rank's seed gives it, as the step
// suite makes them (models/ExportedModule.cpp): with --batch-file's file, every rank's batch is
// the file's, so that each loss equals eager PyTorch's on the file's tensors; without, each
// rank draws its own. tests/mpi/cli/batch_file.sh holds these to eager's.
//
//   splitstep_exported_batch_loss ARCHIVE.pt2 RANKS [BATCH_FILE]
//
// Prints one line per rank, "rank R loss L" (L to 17 significant digits). Exit status 2 when a
// file is refused, as splitstep would refuse it.
#include <ATen/core/Tensor.h>
#include <fmt/format.h>

#include <iostream>
#include <stdexcept>
#include <string>

#include "models/Exported.hpp"
#include "models/ExportedBatch.hpp"
#include "models/Workload.hpp"
#include "suites/step/StepCheck.hpp"

int main(int argc, char** argv) {
  using namespace splitstep;
  if (argc != 3 && argc != 4) {
    std::cerr << "usage: splitstep_exported_batch_loss ARCHIVE.pt2 RANKS [BATCH_FILE]\n";
    return 2;
  }
  try {
    loadExportedModel(argv[1]);
    useExportedBatchFile(argc == 4 ? std::optional<std::string>(argv[3]) : std::nullopt);
    const auto workload =
        makeWorkload(kExportedModel, StepShape{}, c10::Device(c10::kCPU), kModelSeed);
    for (int rank = 0; rank < std::stoi(argv[2]); ++rank) {
      const Batch batch = workload->hostBatch(workload->batchSize(), batchSeed(rank));
      const at::Tensor loss = workload->loss(workload->forward(batch.input), batch.target);
      fmt::print("rank {} loss {:.17g}\n", rank, loss.item<double>());
    }
  } catch (const std::invalid_argument& error) {
    std::cerr << error.what() << '\n';
    return 2;
  }
  return 0;
}
