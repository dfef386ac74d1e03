#include "cases/CollectiveCase.hpp"

#include <fmt/format.h>

#include "cases/FieldCodec.hpp"
#include "common/Units.hpp"

namespace splitstep {
namespace {

using namespace field_codec;

constexpr auto kBackends = enumNames<Backend>();
constexpr auto kDtypes = enumNames<CollectiveDtype>();
constexpr auto kPlacements = enumNames<Placement>();
constexpr auto kBuffers = enumNames<BufferKind>();
constexpr auto kGroupModes = enumNames<GroupMode>();

constexpr std::array kFields = {
    FieldSpec{"backend", FieldType::String, "", "the communicator: nccl or mpi", kBackends},
    FieldSpec{"collective", FieldType::String, "", "the collective called"},
    FieldSpec{"dtype", FieldType::String, "", "element type", kDtypes},
    FieldSpec{"placement", FieldType::String, "", "out: separate buffers; in: in place",
              kPlacements},
    FieldSpec{"size", FieldType::Integer, "B", "the size asked for (--bytes)"},
    FieldSpec{"bytes", FieldType::Integer, "B", "nccl-tests' size: what algbw divides"},
    FieldSpec{"count", FieldType::Integer, "elements", "elements per rank, as nccl-tests counts"},
    FieldSpec{"buffers", FieldType::String, "", "device or host memory", kBuffers},
    FieldSpec{"group", FieldType::Integers, "", "the ranks that ran it (--groups)"},
    FieldSpec{"group_index", FieldType::Integer, "", "the group's place in --groups"},
    FieldSpec{"group_mode", FieldType::String, "", "groups one after another or at once",
              kGroupModes},
    FieldSpec{"nccl_algorithm", FieldType::String, "",
              "NCCL's algorithm for most calls: RING, ..."},
    FieldSpec{"nccl_protocol", FieldType::String, "",
              "NCCL's protocol for them: LL, LL128, SIMPLE"},
    FieldSpec{"nccl_channels", FieldType::Integer, "", "the channels NCCL ran them on"}};

constexpr std::array kRates = {rates::kAlgbw, rates::kBusbw};

constexpr CaseFamily kFamily{"collective", kFields, kRates};

}  // namespace

const CaseFamily& CollectiveCase::family() { return kFamily; }

CaseFields CollectiveCase::encode() const {
  CaseFields fields{std::string(kFamily.name), {}};
  put(fields, "backend", backend);
  put(fields, "collective", collective);
  putEnum(fields, "dtype", dtype);
  putEnum(fields, "placement", placement);
  putInteger(fields, "size", size);
  putInteger(fields, "bytes", bytes);
  putInteger(fields, "count", count);
  putEnum(fields, "buffers", buffers);
  if (group) {
    put(fields, "group", group->ranks);
    put(fields, "group_index", group->index);
    putEnum(fields, "group_mode", group->mode);
  }
  if (nccl) {
    put(fields, "nccl_algorithm", nccl->algorithm);
    put(fields, "nccl_protocol", nccl->protocol);
    put(fields, "nccl_channels", nccl->channels);
  }
  return fields;
}

std::optional<CollectiveCase> CollectiveCase::decode(const CaseFields& fields) {
  if (fields.family != kFamily.name) return std::nullopt;
  const auto backend = get<std::string>(fields, "backend");
  const auto collective = get<std::string>(fields, "collective");
  const auto dtype = getEnum<CollectiveDtype>(fields, "dtype");
  const auto placement = getEnum<Placement>(fields, "placement");
  const auto size = getCount(fields, "size");
  const auto bytes = getCount(fields, "bytes");
  const auto count = getCount(fields, "count");
  const auto buffers = getEnum<BufferKind>(fields, "buffers");
  if (!backend || !collective || !dtype || !placement || !size || !bytes || !count || !buffers) {
    return std::nullopt;
  }
  CollectiveCase c{*backend, *collective, *dtype,   *placement, *size,
                   *bytes,   *count,      *buffers, {},         {}};
  if (const auto ranks = get<IntegerList>(fields, "group")) {
    const auto index = get<std::int64_t>(fields, "group_index");
    const auto mode = getEnum<GroupMode>(fields, "group_mode");
    if (!index || !mode) return std::nullopt;
    c.group = CaseGroup{*ranks, *index, *mode};
  }
  if (const auto algorithm = get<std::string>(fields, "nccl_algorithm")) {
    const auto protocol = get<std::string>(fields, "nccl_protocol");
    const auto channels = get<std::int64_t>(fields, "nccl_channels");
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
