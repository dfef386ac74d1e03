#include "device/NvmlGpu.hpp"

#include <array>
#include <climits>
#include <cstdint>
#include <limits>

#include "common/HostClock.hpp"
#include "device/NvmlLibrary.hpp"

namespace splitstep {
namespace {

// The NVML declarations used here besides NvmlLibrary's, as nvml.h gives them.
constexpr NvmlReturn NVML_ERROR_NOT_SUPPORTED = 3;
constexpr int NVML_CLOCK_SM = 1;
constexpr int NVML_CLOCK_MEM = 2;
constexpr int NVML_TEMPERATURE_GPU = 0;
constexpr int NVML_PCIE_UTIL_TX_BYTES = 0;
constexpr int NVML_PCIE_UTIL_RX_BYTES = 1;
constexpr unsigned NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX = 138;  // KiB since the driver loaded
constexpr unsigned NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX = 139;
constexpr unsigned NVML_FI_DEV_POWER_INSTANT = 186;  // mW
constexpr unsigned kAllLinks = UINT_MAX;             // scopeId: summed over every NVLink
enum NvmlValueType {
  Double,
  UnsignedInt,
  UnsignedLong,
  UnsignedLongLong,
  SignedLongLong,
  SignedInt,
  UnsignedShort
};
union NvmlValue {
  double d;
  unsigned ui;
  unsigned long ul;
  unsigned long long ull;
  long long sll;
  int si;
  unsigned short us;
};
struct NvmlFieldValue {
  unsigned field_id;
  unsigned scope_id;
  long long timestamp;
  long long latency_us;
  int value_type;  // NvmlValueType
  NvmlReturn result;
  NvmlValue value;
};
using ByPciBusIdFn = NvmlReturn (*)(const char*, NvmlDevice*);
using ClockInfoFn = NvmlReturn (*)(NvmlDevice, int, unsigned*);
using ReasonsFn = NvmlReturn (*)(NvmlDevice, unsigned long long*);
using UnsignedFn = NvmlReturn (*)(NvmlDevice, unsigned*);
using TemperatureFn = NvmlReturn (*)(NvmlDevice, int, unsigned*);
using FieldValuesFn = NvmlReturn (*)(NvmlDevice, int, NvmlFieldValue*);
using PcieThroughputFn = NvmlReturn (*)(NvmlDevice, int, unsigned*);

std::string describeLimits(unsigned long long bits) {
  std::string text;
  for (const ClockLimit& limit : kClockLimits) {
    if (!limit.slows || (bits & limit.bit) == 0) continue;
    if (!text.empty()) text += ", ";
    text += limit.name;
  }
  return text;
}

double fieldNumber(const NvmlFieldValue& field) {
  switch (field.value_type) {
    case Double:
      return field.value.d;
    case UnsignedInt:
      return field.value.ui;
    case UnsignedLong:
      return static_cast<double>(field.value.ul);
    case UnsignedLongLong:
      return static_cast<double>(field.value.ull);
    case SignedLongLong:
      return static_cast<double>(field.value.sll);
    case SignedInt:
      return field.value.si;
    case UnsignedShort:
      return field.value.us;
    default:
      return std::numeric_limits<double>::quiet_NaN();
  }
}

}  // namespace

// The loaded library and its functions; the optional ones are nullptr where the driver lacks
// them. Shared by the GPU and its telemetry sources: NVML is shut down when the last one goes.
struct NvmlGpu::Api {
  std::shared_ptr<const NvmlLibrary> library;
  ByPciBusIdFn by_pci = nullptr;
  ClockInfoFn clock = nullptr;
  ClockInfoFn max_clock = nullptr;
  ReasonsFn reasons = nullptr;
  UnsignedFn power = nullptr;
  UnsignedFn power_limit = nullptr;
  TemperatureFn temperature = nullptr;
  FieldValuesFn field_values = nullptr;
  PcieThroughputFn pcie = nullptr;
};

namespace {

// Clocks, power, temperature, clock limits and NVLink throughput: calls that return at once.
class FastSource final : public TelemetrySource {
 public:
  FastSource(std::shared_ptr<const NvmlGpu::Api> api, NvmlDevice device)
      : api_(std::move(api)), device_(device) {}

  std::optional<TelemetryReading> read() override {
    TelemetryReading r;
    const double before = hostSeconds();
    unsigned value = 0;
    if (api_->clock(device_, NVML_CLOCK_SM, &value) == NVML_SUCCESS) {
      r.set(TelemetryQuantity::SmClock, value);
    }
    unsigned long long limits = 0;
    if (api_->reasons != nullptr && api_->reasons(device_, &limits) == NVML_SUCCESS) {
      r.clock_limits = limits;
    }
    // The clock and what limits it were read together, within microseconds: that is when.
    r.time = (before + hostSeconds()) / 2;
    if (api_->clock(device_, NVML_CLOCK_MEM, &value) == NVML_SUCCESS) {
      r.set(TelemetryQuantity::MemClock, value);
    }
    readUnsigned(api_->power, TelemetryQuantity::PowerAverage, 1e-3, r);
    readUnsigned(api_->power_limit, TelemetryQuantity::PowerLimit, 1e-3, r);
    if (wanted(TelemetryQuantity::Temperature) && api_->temperature != nullptr) {
      note(TelemetryQuantity::Temperature,
           api_->temperature(device_, NVML_TEMPERATURE_GPU, &value));
      if (last_ == NVML_SUCCESS) r.set(TelemetryQuantity::Temperature, value);
    }
    readFields(r);
    return r;
  }

 private:
  bool wanted(TelemetryQuantity q) const { return !unsupported_[static_cast<std::size_t>(q)]; }
  // A quantity NVML does not support on this GPU is not asked for again.
  void note(TelemetryQuantity q, NvmlReturn result) {
    last_ = result;
    if (result == NVML_ERROR_NOT_SUPPORTED) unsupported_[static_cast<std::size_t>(q)] = true;
  }
  void readUnsigned(UnsignedFn function, TelemetryQuantity q, double scale, TelemetryReading& r) {
    unsigned value = 0;
    if (function == nullptr || !wanted(q)) return;
    note(q, function(device_, &value));
    if (last_ == NVML_SUCCESS) r.set(q, value * scale);
  }

  // Instantaneous power and NVLink byte counters, in one call.
  void readFields(TelemetryReading& r) {
    if (api_->field_values == nullptr) return;
    std::array<NvmlFieldValue, 3> fields{};
    fields[0].field_id = NVML_FI_DEV_POWER_INSTANT;
    fields[0].scope_id = 0;  // the GPU alone, not its module
    fields[1].field_id = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX;
    fields[1].scope_id = kAllLinks;
    fields[2].field_id = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX;
    fields[2].scope_id = kAllLinks;
    if (!wanted(TelemetryQuantity::Power) && !wanted(TelemetryQuantity::NvlinkTx)) return;
    if (api_->field_values(device_, static_cast<int>(fields.size()), fields.data()) !=
        NVML_SUCCESS) {
      return;
    }
    note(TelemetryQuantity::Power, fields[0].result);
    if (fields[0].result == NVML_SUCCESS)
      r.set(TelemetryQuantity::Power, fieldNumber(fields[0]) * 1e-3);
    note(TelemetryQuantity::NvlinkTx, fields[1].result);
    note(TelemetryQuantity::NvlinkRx, fields[2].result);
    if (fields[1].result != NVML_SUCCESS || fields[2].result != NVML_SUCCESS) return;
    // Counters since the driver loaded: a throughput is the difference over the interval.
    const double tx = fieldNumber(fields[1]) * 1024;
    const double rx = fieldNumber(fields[2]) * 1024;
    if (previous_time_ > 0 && r.time > previous_time_) {
      const double seconds = r.time - previous_time_;
      r.set(TelemetryQuantity::NvlinkTx, (tx - previous_tx_) / seconds / 1e9);
      r.set(TelemetryQuantity::NvlinkRx, (rx - previous_rx_) / seconds / 1e9);
    }
    previous_time_ = r.time;
    previous_tx_ = tx;
    previous_rx_ = rx;
  }

  std::shared_ptr<const NvmlGpu::Api> api_;
  NvmlDevice device_;
  std::array<bool, kTelemetryQuantities> unsupported_{};
  NvmlReturn last_ = NVML_SUCCESS;
  double previous_time_ = 0;
  double previous_tx_ = 0;
  double previous_rx_ = 0;
};

// PCIe throughput, which NVML measures over 20 ms per direction: the reading stands for the
// middle of the 40 ms both take.
class PcieSource final : public TelemetrySource {
 public:
  PcieSource(std::shared_ptr<const NvmlGpu::Api> api, NvmlDevice device)
      : api_(std::move(api)), device_(device) {}

  std::optional<TelemetryReading> read() override {
    if (unsupported_) return std::nullopt;
    TelemetryReading r;
    const double start = hostSeconds();
    unsigned tx = 0;
    unsigned rx = 0;
    const NvmlReturn tx_result = api_->pcie(device_, NVML_PCIE_UTIL_TX_BYTES, &tx);
    const NvmlReturn rx_result = api_->pcie(device_, NVML_PCIE_UTIL_RX_BYTES, &rx);
    r.time = (start + hostSeconds()) / 2;
    unsupported_ = tx_result == NVML_ERROR_NOT_SUPPORTED && rx_result == NVML_ERROR_NOT_SUPPORTED;
    // KB/s as NVML gives them (1 KB granularity; taken as 1024 B, as its NVLink counters' KiB).
    if (tx_result == NVML_SUCCESS) r.set(TelemetryQuantity::PcieTx, tx * 1024.0 / 1e9);
    if (rx_result == NVML_SUCCESS) r.set(TelemetryQuantity::PcieRx, rx * 1024.0 / 1e9);
    if (!r.has(TelemetryQuantity::PcieTx) && !r.has(TelemetryQuantity::PcieRx)) return std::nullopt;
    return r;
  }

 private:
  std::shared_ptr<const NvmlGpu::Api> api_;
  NvmlDevice device_;
  bool unsupported_ = false;
};

}  // namespace

std::unique_ptr<NvmlGpu> NvmlGpu::open(const std::string& pci_bus_id) {
  auto api = std::make_shared<Api>();
  api->library = NvmlLibrary::open();
  if (!api->library) return nullptr;
  const NvmlLibrary& nvml = *api->library;
  NvmlDevice device = nullptr;
  if (!nvml.bind("nvmlDeviceGetHandleByPciBusId_v2", api->by_pci) ||
      !nvml.bind("nvmlDeviceGetClockInfo", api->clock) ||
      !nvml.bind("nvmlDeviceGetMaxClockInfo", api->max_clock)) {
    return nullptr;
  }
  // Renamed in CUDA 12.2's NVML; drivers keep the old name too.
  if (!nvml.bind("nvmlDeviceGetCurrentClocksEventReasons", api->reasons)) {
    nvml.bind("nvmlDeviceGetCurrentClocksThrottleReasons", api->reasons);
  }
  nvml.bind("nvmlDeviceGetPowerUsage", api->power);
  nvml.bind("nvmlDeviceGetEnforcedPowerLimit", api->power_limit);
  nvml.bind("nvmlDeviceGetTemperature", api->temperature);
  nvml.bind("nvmlDeviceGetFieldValues", api->field_values);
  nvml.bind("nvmlDeviceGetPcieThroughput", api->pcie);
  if (api->by_pci(pci_bus_id.c_str(), &device) != NVML_SUCCESS) return nullptr;
  return std::unique_ptr<NvmlGpu>(new NvmlGpu(std::move(api), device));
}

NvmlGpu::NvmlGpu(std::shared_ptr<const Api> api, void* device)
    : api_(std::move(api)), device_(device) {}

NvmlGpu::~NvmlGpu() = default;

std::optional<SmClock> NvmlGpu::smClock() const {
  SmClock clock;
  const auto device = static_cast<NvmlDevice>(device_);
  if (api_->clock(device, NVML_CLOCK_SM, &clock.current_mhz) != NVML_SUCCESS ||
      api_->max_clock(device, NVML_CLOCK_SM, &clock.max_mhz) != NVML_SUCCESS) {
    return std::nullopt;
  }
  unsigned long long limits = 0;
  if (api_->reasons != nullptr && api_->reasons(device, &limits) == NVML_SUCCESS) {
    clock.limited_by = describeLimits(limits);
  }
  return clock;
}

std::vector<std::unique_ptr<TelemetrySource>> NvmlGpu::telemetrySources() const {
  const auto device = static_cast<NvmlDevice>(device_);
  std::vector<std::unique_ptr<TelemetrySource>> sources;
  sources.push_back(std::make_unique<FastSource>(api_, device));
  if (api_->pcie != nullptr) sources.push_back(std::make_unique<PcieSource>(api_, device));
  return sources;
}

}  // namespace splitstep
