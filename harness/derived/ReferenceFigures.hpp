// What a healthy GPU of a model is expected to reach, with where each figure comes from: the
// reference the verdict (derived/Verdict) holds a run's measurements to. docs/verdict.md shows
// the same table.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace splitstep {

// One figure and its provenance. `expected` is what a healthy device reaches in practice: a
// published measurement where one was found, else `peak` times a published efficiency (the
// source then says so).
struct ReferenceFigure {
  double peak = 0;      // the datasheet's, in the figure's unit
  double expected = 0;  // what the verdict compares with
  std::string_view peak_source;
  std::string_view expected_source;
  // The GPU model (as NVML names it) the expected figure, or the efficiency it is derived with,
  // was measured on: a verdict on another model says that its figure is borrowed.
  std::string_view measured_on;
};

// Allreduce busbw over NVLink for a number of GPUs of one node (nccl-tests' definition).
struct AllreduceReference {
  int gpus = 0;
  ReferenceFigure ring;  // without NVLink SHARP (NVLS): what the verdict compares with
  // With NVLS, where a figure was published: NCCL uses it on NVSwitch systems where multicast
  // is enabled, and busbw then exceeds the ring's (it no longer counts bytes on the wire).
  std::optional<double> nvls_busbw;
  std::string_view nvls_source;
};

struct GpuReference {
  std::string_view gpu;         // as NVML names it (RankInfo::device_name): "NVIDIA H200"
  std::string_view form;        // "SXM5, NVLink 4 (18 links), PCIe 5.0 x16"
  ReferenceFigure gemm_bf16;    // TFLOP/s, dense
  ReferenceFigure hbm_triad;    // GB/s
  ReferenceFigure host_device;  // GB/s, pinned host memory, each direction
  std::span<const AllreduceReference> allreduce;  // by GPU count
};

// The size from which allreduce busbw is at its plateau on NVLink (nccl-tests issue 212: "256M
// is too small to reach peak bandwidth"): a smaller largest size is not judged.
inline constexpr double kAllreducePlateauBytes = 1024.0 * 1024 * 1024;

// Every GPU model the table knows, in the order docs/verdict.md lists them.
std::span<const GpuReference> referenceGpus();

// The reference of the GPU NVML names `device_name`, or nullptr where the table has none.
const GpuReference* findReference(std::string_view device_name);

// The allreduce figures of `reference` for `gpus` GPUs, or nullptr where none is published.
const AllreduceReference* findAllreduce(const GpuReference& reference, int gpus);

}  // namespace splitstep
