#include "cases/CollectiveCase.hpp"

#include <fmt/format.h>

#include "cases/FieldCodec.hpp"
#include "common/Units.hpp"

namespace splitstep {
namespace {

using namespace field_codec;

// Each field's name, written once: the catalogue, encode() and decode() read it here.
namespace field_name {
constexpr std::string_view kBackend = "backend";
constexpr std::string_view kCollective = "collective";
constexpr std::string_view kDtype = "dtype";
constexpr std::string_view kPlacement = "placement";
constexpr std::string_view kSize = "size";
constexpr std::string_view kBytes = "bytes";
constexpr std::string_view kCount = "count";
constexpr std::string_view kBuffers = "buffers";
constexpr std::string_view kGroup = "group";
constexpr std::string_view kGroupIndex = "group_index";
constexpr std::string_view kGroupMode = "group_mode";
constexpr std::string_view kNcclAlgorithm = "nccl_algorithm";
constexpr std::string_view kNcclProtocol = "nccl_protocol";
constexpr std::string_view kNcclChannels = "nccl_channels";
}  // namespace field_name

constexpr auto kBackends = enumNames<Backend>();
constexpr auto kDtypes = enumNames<CollectiveDtype>();
constexpr auto kPlacements = enumNames<Placement>();
constexpr auto kBuffers = enumNames<BufferKind>();
constexpr auto kGroupModes = enumNames<GroupMode>();

constexpr std::array kFields = {
    FieldSpec{field_name::kBackend, FieldType::String, "", "the communicator: nccl or mpi",
              kBackends},
    FieldSpec{field_name::kCollective, FieldType::String, "", "the collective called"},
    FieldSpec{field_name::kDtype, FieldType::String, "", "element type", kDtypes},
    FieldSpec{field_name::kPlacement, FieldType::String, "", "out: separate buffers; in: in place",
              kPlacements},
    FieldSpec{field_name::kSize, FieldType::Integer, "B", "the size asked for (--bytes)"},
    FieldSpec{field_name::kBytes, FieldType::Integer, "B", "nccl-tests' size: what algbw divides"},
    FieldSpec{field_name::kCount, FieldType::Integer, "elements",
              "elements per rank, as nccl-tests counts"},
    FieldSpec{field_name::kBuffers, FieldType::String, "", "device or host memory", kBuffers},
    FieldSpec{field_name::kGroup, FieldType::Integers, "", "the ranks that ran it (--groups)"},
    FieldSpec{field_name::kGroupIndex, FieldType::Integer, "", "the group's place in --groups"},
    FieldSpec{field_name::kGroupMode, FieldType::String, "", "groups one after another or at once",
              kGroupModes},
    FieldSpec{field_name::kNcclAlgorithm, FieldType::String, "",
              "NCCL's algorithm for most calls: RING, ..."},
    FieldSpec{field_name::kNcclProtocol, FieldType::String, "",
              "NCCL's protocol for them: LL, LL128, SIMPLE"},
    FieldSpec{field_name::kNcclChannels, FieldType::Integer, "", "the channels NCCL ran them on"}};

constexpr std::array kRates = {rates::kAlgbw, rates::kBusbw};

constexpr CaseFamily kFamily{"collective", kFields, kRates};

}  // namespace

const CaseFamily& CollectiveCase::family() { return kFamily; }

CaseFields CollectiveCase::encode() const {
  CaseFields fields{std::string(kFamily.name), {}};
  put(fields, field_name::kBackend, backend);
  put(fields, field_name::kCollective, collective);
  putEnum(fields, field_name::kDtype, dtype);
  putEnum(fields, field_name::kPlacement, placement);
  putInteger(fields, field_name::kSize, size);
  putInteger(fields, field_name::kBytes, bytes);
  putInteger(fields, field_name::kCount, count);
  putEnum(fields, field_name::kBuffers, buffers);
  if (group) {
    put(fields, field_name::kGroup, group->ranks);
    put(fields, field_name::kGroupIndex, group->index);
    putEnum(fields, field_name::kGroupMode, group->mode);
  }
  if (nccl) {
    put(fields, field_name::kNcclAlgorithm, nccl->algorithm);
    put(fields, field_name::kNcclProtocol, nccl->protocol);
    put(fields, field_name::kNcclChannels, nccl->channels);
  }
  return fields;
}

std::optional<CollectiveCase> CollectiveCase::decode(const CaseFields& fields) {
  if (fields.family != kFamily.name) return std::nullopt;
  const auto backend = get<std::string>(fields, field_name::kBackend);
  const auto collective = get<std::string>(fields, field_name::kCollective);
  const auto dtype = getEnum<CollectiveDtype>(fields, field_name::kDtype);
  const auto placement = getEnum<Placement>(fields, field_name::kPlacement);
  const auto size = getCount(fields, field_name::kSize);
  const auto bytes = getCount(fields, field_name::kBytes);
  const auto count = getCount(fields, field_name::kCount);
  const auto buffers = getEnum<BufferKind>(fields, field_name::kBuffers);
  if (!backend || !collective || !dtype || !placement || !size || !bytes || !count || !buffers) {
    return std::nullopt;
  }
  CollectiveCase c{*backend, *collective, *dtype,   *placement, *size,
                   *bytes,   *count,      *buffers, {},         {}};
  if (const auto ranks = get<IntegerList>(fields, field_name::kGroup)) {
    const auto index = get<std::int64_t>(fields, field_name::kGroupIndex);
    const auto mode = getEnum<GroupMode>(fields, field_name::kGroupMode);
    if (!index || !mode) return std::nullopt;
    c.group = CaseGroup{*ranks, *index, *mode};
  }
  if (const auto algorithm = get<std::string>(fields, field_name::kNcclAlgorithm)) {
    const auto protocol = get<std::string>(fields, field_name::kNcclProtocol);
    const auto channels = get<std::int64_t>(fields, field_name::kNcclChannels);
    if (!protocol || !channels) return std::nullopt;
    c.nccl = AlgorithmChoice{*algorithm, *protocol, *channels};
  }
  return c;
}

std::string CollectiveCase::label() const {
  return fmt::format("{} {} {}{}", backend, toString(dtype), formatBytes(size),
                     inPlace() ? " in place" : "");
}

}  // namespace splitstep
