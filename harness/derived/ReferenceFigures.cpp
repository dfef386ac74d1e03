#include "derived/ReferenceFigures.hpp"

#include <algorithm>
#include <array>

namespace splitstep {
namespace {

// Sources, each named once: the table below cites them by what they hold.
constexpr std::string_view kDenseSpecs =
    "NVIDIA's datasheet figures without sparsity (BF16 989.5 TFLOPS, memory 3.35 TB/s H100 SXM, "
    "4.8 TB/s H200 SXM), as tabulated in https://github.com/meta-pytorch/tritonbench/issues/78; "
    "the datasheet's 1,979 TFLOPS BF16 is with sparsity "
    "(https://github.com/stas00/ml-engineering/issues/100)";
constexpr std::string_view kGemmMeasured =
    "measured: torch.matmul bf16 8192x8192 on an NVIDIA H100 80GB HBM3, 797.51 TFLOP/s "
    "(https://github.com/zzc0721/torch-performance-test-data/issues/79); the H200 has the same "
    "GH100 compute at the same 700 W, so the same figure";
constexpr std::string_view kHbmDerived =
    "derived: 84% of the datasheet peak, the efficiency of coalesced loads measured on an H100 "
    "SXM5 (2.8 of 3.35 TB/s, https://mikamirai.com/blog/gpu-memory-bandwidth/); no published "
    "triad measurement was found";
constexpr std::string_view kPcie5 =
    "PCIe 5.0 x16 (the H200 SXM's host link: https://raw.githubusercontent.com/mlcommons/"
    "inference_results_v4.1/main/closed/NVIDIA/systems/H200-SXM-141GBx8_TRT_MaxQ.json): 32 GT/s "
    "x 16 lanes with 128b/130b encoding = 63.0 GB/s each direction";
constexpr std::string_view kPcie5Measured =
    "measured: nvbandwidth device_to_host_memcpy_sm 52.77 GB/s on every GPU of an H100 node "
    "(https://github.com/NVIDIA/nvbandwidth/issues/24)";
constexpr std::string_view kNvlinkLine =
    "NVLink 4, 18 links: 450 GB/s each direction, 'the line rate' "
    "(https://github.com/NVIDIA/nccl-tests/issues/212)";
constexpr std::string_view kNvlinkRing =
    "measured by NCCL's maintainers: 'with the protocol overhead (~20%) NCCL can get an "
    "effective NVLink bandwidth of 370GB/s', seen as busbw with NCCL_ALGO=RING on H100 "
    "(https://github.com/NVIDIA/nccl-tests/issues/212); a ring's busbw is each GPU's link rate "
    "whatever the GPU count (nccl-tests doc/PERFORMANCE.md), so the same for 2, 4 and 8";
constexpr std::string_view kNvls8 =
    "with NVLink SHARP on 8 GPUs, 'a peak busBw of ~480GB/s' "
    "(https://github.com/NVIDIA/nccl-tests/issues/212)";

constexpr std::string_view kH100 = "NVIDIA H100 80GB HBM3";

constexpr ReferenceFigure kGemmBf16{989.5, 797.51, kDenseSpecs, kGemmMeasured, kH100};
constexpr ReferenceFigure kHostDevice{63.0, 52.77, kPcie5, kPcie5Measured, kH100};
constexpr ReferenceFigure kNvlinkRingFigure{450, 370, kNvlinkLine, kNvlinkRing, kH100};

constexpr std::array kNvlink4Allreduce = {
    AllreduceReference{2, kNvlinkRingFigure, std::nullopt, ""},
    AllreduceReference{4, kNvlinkRingFigure, std::nullopt, ""},
    AllreduceReference{8, kNvlinkRingFigure, 480.0, kNvls8},
};

constexpr double kHbmEfficiency = 0.84;

constexpr std::array kGpus = {
    GpuReference{"NVIDIA H200",
                 "SXM5, 141 GB HBM3e, NVLink 4 (18 links), PCIe 5.0 x16",
                 kGemmBf16,
                 {4800, 4800 * kHbmEfficiency, kDenseSpecs, kHbmDerived, kH100},
                 kHostDevice,
                 kNvlink4Allreduce},
    GpuReference{"NVIDIA H100 80GB HBM3",
                 "SXM5, 80 GB HBM3, NVLink 4 (18 links), PCIe 5.0 x16",
                 kGemmBf16,
                 {3350, 3350 * kHbmEfficiency, kDenseSpecs, kHbmDerived, kH100},
                 kHostDevice,
                 kNvlink4Allreduce},
};

}  // namespace

std::span<const GpuReference> referenceGpus() { return kGpus; }

const GpuReference* findReference(std::string_view device_name) {
  const auto it = std::find_if(kGpus.begin(), kGpus.end(), [device_name](const GpuReference& g) {
    return g.gpu == device_name;
  });
  return it == kGpus.end() ? nullptr : &*it;
}

const AllreduceReference* findAllreduce(const GpuReference& reference, int gpus) {
  const auto it = std::find_if(reference.allreduce.begin(), reference.allreduce.end(),
                               [gpus](const AllreduceReference& a) { return a.gpus == gpus; });
  return it == reference.allreduce.end() ? nullptr : &*it;
}

}  // namespace splitstep
