#include "cases/StepCase.hpp"

#include <array>
#include <string_view>

#include "cases/FieldCodec.hpp"
#include "common/StepKeys.hpp"

namespace splitstep {
namespace {

using namespace field_codec;

// Each field's name, written once: the catalogue, encode() and decode() read it here.
namespace field_name {
constexpr std::string_view kModel = "model";
constexpr std::string_view kPrecision = "precision";
constexpr std::string_view kMode = "mode";
constexpr std::string_view kOptimizer = "optimizer";
constexpr std::string_view kOptimizerImpl = "optimizer_impl";
constexpr std::string_view kInput = "input";
constexpr std::string_view kBatch = "batch";
constexpr std::string_view kFlopPerStep = "flop_per_step";
constexpr std::string_view kWorldSize = "world_size";
constexpr std::string_view kParameters = "parameters";
constexpr std::string_view kDeviceKind = "device_kind";
constexpr std::string_view kDelayRank = "delay_rank";
constexpr std::string_view kDelay = "delay";
constexpr std::string_view kBuckets = "buckets";
constexpr std::string_view kGradientBytes = "gradient_bytes";
constexpr std::string_view kBucketSizes = "bucket_sizes";
constexpr std::string_view kBucket = "bucket";
constexpr std::string_view kBucketBytes = "bucket_bytes";
constexpr std::string_view kQuantity = "quantity";
constexpr std::string_view kLaunch = "launch";
}  // namespace field_name

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
    FieldSpec{field_name::kModel, FieldType::String, "", "the step model"},
    FieldSpec{field_name::kPrecision, FieldType::String, "", "fp32, or bf16/fp16 autocast",
              kPrecisions},
    FieldSpec{field_name::kMode, FieldType::String, "",
              "gradient sync: none, sequential, overlap, single", kModes},
    FieldSpec{field_name::kOptimizer, FieldType::String, "", "sgd or adamw", kOptimizers},
    FieldSpec{field_name::kOptimizerImpl, FieldType::String, "",
              "torch.optim's loop, foreach or fused", kOptimizerImpls},
    FieldSpec{field_name::kInput, FieldType::String, "", "where the batch comes from", kInputs},
    FieldSpec{field_name::kBatch, FieldType::Integer, "samples", "per rank and step"},
    FieldSpec{field_name::kFlopPerStep, FieldType::Number, "FLOP", "of one rank's step"},
    FieldSpec{field_name::kWorldSize, FieldType::Integer, "ranks", "ranks in the run"},
    FieldSpec{field_name::kParameters, FieldType::Integer, "", "the model's parameter count"},
    FieldSpec{field_name::kDeviceKind, FieldType::String, "", "cuda or cpu: what the rank ran on"},
    FieldSpec{field_name::kDelayRank, FieldType::Integer, "",
              "a straggler on purpose (--delay-rank)"},
    FieldSpec{field_name::kDelay, FieldType::Number, "s", "its delay per step"},
    FieldSpec{field_name::kBuckets, FieldType::Integer, "",
              "gradient buckets (synchronised modes)"},
    FieldSpec{field_name::kGradientBytes, FieldType::Integer, "B",
              "bytes of gradients synchronised"},
    FieldSpec{field_name::kBucketSizes, FieldType::Integers, "B",
              "bytes per bucket, in launch order"},
    FieldSpec{field_name::kBucket, FieldType::Integer, "", "detail series: the bucket's index"},
    FieldSpec{field_name::kBucketBytes, FieldType::Integer, "B",
              "detail series: the bucket's bytes"},
    FieldSpec{field_name::kQuantity, FieldType::String, "",
              "detail series: what of the bucket is timed", kQuantities},
    FieldSpec{field_name::kLaunch, FieldType::String, "",
              "graph: one CUDA graph replay per step (--step-graphs); absent: eager launches"}};

constexpr std::array kRates = {rates::kSamplesPerSecond, rates::kTflops};

constexpr CaseFamily kFamily{"step", kFields, kRates, kPhaseNames};

}  // namespace

const CaseFamily& StepCase::family() { return kFamily; }

CaseFields StepCase::encode() const {
  CaseFields fields{std::string(kFamily.name), {}};
  put(fields, field_name::kModel, model);
  putEnum(fields, field_name::kPrecision, precision);
  putEnum(fields, field_name::kMode, mode);
  putEnum(fields, field_name::kOptimizer, optimizer);
  putEnum(fields, field_name::kOptimizerImpl, optimizer_impl);
  putEnum(fields, field_name::kInput, input);
  put(fields, field_name::kBatch, batch);
  put(fields, field_name::kFlopPerStep, flop_per_step);
  put(fields, field_name::kWorldSize, world_size);
  put(fields, field_name::kParameters, parameters);
  put(fields, field_name::kDeviceKind, std::string(on_cuda ? "cuda" : "cpu"));
  if (delay) {
    put(fields, field_name::kDelayRank, delay->rank);
    put(fields, field_name::kDelay, delay->seconds);
  }
  if (buckets) {
    put(fields, field_name::kBuckets, buckets->count);
    put(fields, field_name::kGradientBytes, buckets->gradient_bytes);
    put(fields, field_name::kBucketSizes, buckets->bytes);
  }
  if (bucket) {
    put(fields, field_name::kBucket, bucket->bucket);
    put(fields, field_name::kBucketBytes, bucket->bytes);
    put(fields, field_name::kQuantity, bucket->quantity);
  }
  if (launch == StepLaunch::Graph) putEnum(fields, field_name::kLaunch, launch);
  return fields;
}

std::optional<StepCase> StepCase::decode(const CaseFields& fields) {
  if (fields.family != kFamily.name) return std::nullopt;
  const auto model = get<std::string>(fields, field_name::kModel);
  const auto precision = getEnum<StepPrecision>(fields, field_name::kPrecision);
  const auto mode = getEnum<SyncMode>(fields, field_name::kMode);
  const auto optimizer = getEnum<StepOptimizer>(fields, field_name::kOptimizer);
  const auto impl = getEnum<OptimizerImpl>(fields, field_name::kOptimizerImpl);
  const auto input = getEnum<InputSource>(fields, field_name::kInput);
  const auto batch = get<std::int64_t>(fields, field_name::kBatch);
  const auto flop = get<double>(fields, field_name::kFlopPerStep);
  const auto world_size = get<std::int64_t>(fields, field_name::kWorldSize);
  const auto parameters = get<std::int64_t>(fields, field_name::kParameters);
  const auto device = get<std::string>(fields, field_name::kDeviceKind);
  if (!model || !precision || !mode || !optimizer || !impl || !input || !batch || !flop ||
      !world_size || !parameters || !device) {
    return std::nullopt;
  }
  StepCase c{*model, *precision,  *mode,       *optimizer,        *impl, *input, *batch,
             *flop,  *world_size, *parameters, *device == "cuda", {},    {},     {}};
  if (const auto rank = get<std::int64_t>(fields, field_name::kDelayRank)) {
    const auto seconds = get<double>(fields, field_name::kDelay);
    if (!seconds) return std::nullopt;
    c.delay = StepDelay{*rank, *seconds};
  }
  if (const auto count = get<std::int64_t>(fields, field_name::kBuckets)) {
    const auto bytes = get<std::int64_t>(fields, field_name::kGradientBytes);
    const auto sizes = get<IntegerList>(fields, field_name::kBucketSizes);
    if (!bytes || !sizes) return std::nullopt;
    c.buckets = StepBuckets{*count, *bytes, *sizes};
  }
  if (const auto index = get<std::int64_t>(fields, field_name::kBucket)) {
    const auto bytes = get<std::int64_t>(fields, field_name::kBucketBytes);
    const auto quantity = get<std::string>(fields, field_name::kQuantity);
    if (!bytes || !quantity) return std::nullopt;
    c.bucket = StepBucketSeries{*index, *bytes, *quantity};
  }
  if (fields.get<std::string>("launch") != nullptr) {
    const auto launch = getEnum<StepLaunch>(fields, field_name::kLaunch);
    if (!launch) return std::nullopt;
    c.launch = *launch;
  }
  return c;
}

}  // namespace splitstep
