// One reading of a GPU's telemetry (clocks, power, temperature, clock limits, link throughput)
// and the names every report gives each quantity: declared once for the sampler, the summaries,
// the JSON, the CSV and the trace.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>

#include "common/EnumNames.hpp"

namespace splitstep {

// power: NVML's instantaneous reading; power_avg: its average over the last second, the only
// one older drivers have (too slow to tell the phases of a step apart). Link throughputs are in
// GB/s (1e9 B/s), over the interval since the previous reading (NVLink) or over the 20 ms NVML
// measures PCIe in.
enum class TelemetryQuantity {
  SmClock,
  MemClock,
  Power,
  PowerAverage,
  PowerLimit,
  Temperature,
  NvlinkTx,
  NvlinkRx,
  PcieTx,
  PcieRx
};

template <>
struct EnumNames<TelemetryQuantity> {
  static constexpr std::array values = {
      std::pair{TelemetryQuantity::SmClock, std::string_view("sm_clock_mhz")},
      std::pair{TelemetryQuantity::MemClock, std::string_view("mem_clock_mhz")},
      std::pair{TelemetryQuantity::Power, std::string_view("power_w")},
      std::pair{TelemetryQuantity::PowerAverage, std::string_view("power_avg_w")},
      std::pair{TelemetryQuantity::PowerLimit, std::string_view("power_limit_w")},
      std::pair{TelemetryQuantity::Temperature, std::string_view("temperature_c")},
      std::pair{TelemetryQuantity::NvlinkTx, std::string_view("nvlink_tx_gbps")},
      std::pair{TelemetryQuantity::NvlinkRx, std::string_view("nvlink_rx_gbps")},
      std::pair{TelemetryQuantity::PcieTx, std::string_view("pcie_tx_gbps")},
      std::pair{TelemetryQuantity::PcieRx, std::string_view("pcie_rx_gbps")}};
};

inline constexpr std::size_t kTelemetryQuantities = EnumNames<TelemetryQuantity>::values.size();

// For people (the trace's counter tracks, plots): "SM clock (MHz)".
constexpr std::string_view quantityLabel(TelemetryQuantity quantity) {
  switch (quantity) {
    case TelemetryQuantity::SmClock:
      return "SM clock (MHz)";
    case TelemetryQuantity::MemClock:
      return "memory clock (MHz)";
    case TelemetryQuantity::Power:
      return "power (W)";
    case TelemetryQuantity::PowerAverage:
      return "power, 1 s average (W)";
    case TelemetryQuantity::PowerLimit:
      return "power limit (W)";
    case TelemetryQuantity::Temperature:
      return "temperature (C)";
    case TelemetryQuantity::NvlinkTx:
      return "NVLink TX (GB/s)";
    case TelemetryQuantity::NvlinkRx:
      return "NVLink RX (GB/s)";
    case TelemetryQuantity::PcieTx:
      return "PCIe TX (GB/s)";
    case TelemetryQuantity::PcieRx:
      return "PCIe RX (GB/s)";
  }
  return "?";
}

// NVML's clocks-event reasons (formerly "throttle reasons"): what holds the SM clock below its
// maximum. The bits are NVML's stable ABI (nvmlClocksEventReason*).
struct ClockLimit {
  std::uint64_t bit;
  std::string_view name;
  bool slows = true;  // false: the clock is low because there is nothing to run (idle)
};
inline constexpr std::array kClockLimits = {
    ClockLimit{0x4, "power cap"},           ClockLimit{0x8, "hardware slowdown"},
    ClockLimit{0x20, "thermal (software)"}, ClockLimit{0x40, "thermal (hardware)"},
    ClockLimit{0x80, "power brake"},        ClockLimit{0x2, "application clocks"},
    ClockLimit{0x10, "sync boost"},         ClockLimit{0x1, "idle", false}};

struct TelemetryReading {
  double time = 0;  // seconds on the host's steady clock (common/HostClock.hpp)
  // NaN: not part of this reading (not exposed by NVML on this GPU, or read by another source).
  std::array<double, kTelemetryQuantities> values =
      filled(std::numeric_limits<double>::quiet_NaN());
  std::optional<std::uint64_t> clock_limits;  // kClockLimits bits, where read

  double value(TelemetryQuantity quantity) const {
    return values[static_cast<std::size_t>(quantity)];
  }
  bool has(TelemetryQuantity quantity) const { return !std::isnan(value(quantity)); }
  void set(TelemetryQuantity quantity, double value) {
    values[static_cast<std::size_t>(quantity)] = value;
  }

 private:
  static constexpr std::array<double, kTelemetryQuantities> filled(double value) {
    std::array<double, kTelemetryQuantities> all{};
    all.fill(value);
    return all;
  }
};

}  // namespace splitstep
