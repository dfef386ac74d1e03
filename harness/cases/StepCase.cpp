#include "cases/StepCase.hpp"

#include <array>

#include "cases/FieldCodec.hpp"
#include "common/StepKeys.hpp"

namespace splitstep {
namespace {

using namespace field_codec;

constexpr auto kPrecisions = enumNames<StepPrecision>();
constexpr auto kModes = enumNames<SyncMode>();
constexpr auto kOptimizers = enumNames<StepOptimizer>();
constexpr auto kOptimizerImpls = enumNames<OptimizerImpl>();
constexpr auto kInputs = enumNames<InputSource>();
constexpr auto kPhaseNames = enumNames<Phase>();
// What of a bucket its detail series time, in the order of its timeline.
constexpr std::array kQuantities = {step_keys::kBucketReady, step_keys::kBucketLaunchDelay,
                                    step_keys::kBucketComm, step_keys::kBucketFinish};

constexpr std::array kFields = {
    FieldSpec{"model", FieldType::String, "", "the step model"},
    FieldSpec{"precision", FieldType::String, "", "fp32, or bf16/fp16 autocast", kPrecisions},
    FieldSpec{"mode", FieldType::String, "", "gradient sync: none, sequential, overlap, single",
              kModes},
    FieldSpec{"optimizer", FieldType::String, "", "sgd or adamw", kOptimizers},
    FieldSpec{"optimizer_impl", FieldType::String, "", "torch.optim's loop, foreach or fused",
              kOptimizerImpls},
    FieldSpec{"input", FieldType::String, "", "where the batch comes from", kInputs},
    FieldSpec{"batch", FieldType::Integer, "samples", "per rank and step"},
    FieldSpec{"flop_per_step", FieldType::Number, "FLOP", "of one rank's step"},
    FieldSpec{"world_size", FieldType::Integer, "ranks", "ranks in the run"},
    FieldSpec{"parameters", FieldType::Integer, "", "the model's parameter count"},
    FieldSpec{"device_kind", FieldType::String, "", "cuda or cpu: what the rank ran on"},
    FieldSpec{"delay_rank", FieldType::Integer, "", "a straggler on purpose (--delay-rank)"},
    FieldSpec{"delay", FieldType::Number, "s", "its delay per step"},
    FieldSpec{"buckets", FieldType::Integer, "", "gradient buckets (synchronised modes)"},
    FieldSpec{"gradient_bytes", FieldType::Integer, "B", "bytes of gradients synchronised"},
    FieldSpec{"bucket_sizes", FieldType::Integers, "B", "bytes per bucket, in launch order"},
    FieldSpec{"bucket", FieldType::Integer, "", "detail series: the bucket's index"},
    FieldSpec{"bucket_bytes", FieldType::Integer, "B", "detail series: the bucket's bytes"},
    FieldSpec{"quantity", FieldType::String, "", "detail series: what of the bucket is timed",
              kQuantities},
    FieldSpec{"launch", FieldType::String, "",
              "graph: one CUDA graph replay per step (--step-graphs); absent: eager launches"}};

constexpr std::array kRates = {rates::kSamplesPerSecond, rates::kTflops};

constexpr CaseFamily kFamily{"step", kFields, kRates, kPhaseNames};

}  // namespace

const CaseFamily& StepCase::family() { return kFamily; }

CaseFields StepCase::encode() const {
  CaseFields fields{std::string(kFamily.name), {}};
  put(fields, "model", model);
  putEnum(fields, "precision", precision);
  putEnum(fields, "mode", mode);
  putEnum(fields, "optimizer", optimizer);
  putEnum(fields, "optimizer_impl", optimizer_impl);
  putEnum(fields, "input", input);
  put(fields, "batch", batch);
  put(fields, "flop_per_step", flop_per_step);
  put(fields, "world_size", world_size);
  put(fields, "parameters", parameters);
  put(fields, "device_kind", std::string(on_cuda ? "cuda" : "cpu"));
  if (delay) {
    put(fields, "delay_rank", delay->rank);
    put(fields, "delay", delay->seconds);
  }
  if (buckets) {
    put(fields, "buckets", buckets->count);
    put(fields, "gradient_bytes", buckets->gradient_bytes);
    put(fields, "bucket_sizes", buckets->bytes);
  }
  if (bucket) {
    put(fields, "bucket", bucket->bucket);
    put(fields, "bucket_bytes", bucket->bytes);
    put(fields, "quantity", bucket->quantity);
  }
  if (launch == StepLaunch::Graph) putEnum(fields, "launch", launch);
  return fields;
}

std::optional<StepCase> StepCase::decode(const CaseFields& fields) {
  if (fields.family != kFamily.name) return std::nullopt;
  const auto model = get<std::string>(fields, "model");
  const auto precision = getEnum<StepPrecision>(fields, "precision");
  const auto mode = getEnum<SyncMode>(fields, "mode");
  const auto optimizer = getEnum<StepOptimizer>(fields, "optimizer");
  const auto impl = getEnum<OptimizerImpl>(fields, "optimizer_impl");
  const auto input = getEnum<InputSource>(fields, "input");
  const auto batch = get<std::int64_t>(fields, "batch");
  const auto flop = get<double>(fields, "flop_per_step");
  const auto world_size = get<std::int64_t>(fields, "world_size");
  const auto parameters = get<std::int64_t>(fields, "parameters");
  const auto device = get<std::string>(fields, "device_kind");
  if (!model || !precision || !mode || !optimizer || !impl || !input || !batch || !flop ||
      !world_size || !parameters || !device) {
    return std::nullopt;
  }
  StepCase c{*model, *precision,  *mode,       *optimizer,        *impl, *input, *batch,
             *flop,  *world_size, *parameters, *device == "cuda", {},    {},     {}};
  if (const auto rank = get<std::int64_t>(fields, "delay_rank")) {
    const auto seconds = get<double>(fields, "delay");
    if (!seconds) return std::nullopt;
    c.delay = StepDelay{*rank, *seconds};
  }
  if (const auto count = get<std::int64_t>(fields, "buckets")) {
    const auto bytes = get<std::int64_t>(fields, "gradient_bytes");
    const auto sizes = get<IntegerList>(fields, "bucket_sizes");
    if (!bytes || !sizes) return std::nullopt;
    c.buckets = StepBuckets{*count, *bytes, *sizes};
  }
  if (const auto index = get<std::int64_t>(fields, "bucket")) {
    const auto bytes = get<std::int64_t>(fields, "bucket_bytes");
    const auto quantity = get<std::string>(fields, "quantity");
    if (!bytes || !quantity) return std::nullopt;
    c.bucket = StepBucketSeries{*index, *bytes, *quantity};
  }
  if (fields.get<std::string>("launch") != nullptr) {
    const auto launch = getEnum<StepLaunch>(fields, "launch");
    if (!launch) return std::nullopt;
    c.launch = *launch;
  }
  return c;
}

}  // namespace splitstep
