#include "report/ConsoleTimeit.hpp"

#include <fmt/format.h>

#include "common/Units.hpp"

namespace splitstep {

// Printed as each case comes, so aligned under its own label.
void printTimeit(std::ostream& out, const std::string& label, const RankResult& r) {
  const Summary& s = r.summary;
  const Measurement& m = r.measurement;
  const PhaseWallTimes& w = m.wall;
  const std::size_t indent = label.size();
  // The interval's coverage is at least the confidence asked for, unless there were too few
  // samples: then it is said as it is.
  const double coverage =
      r.median_ci.coverage >= kMedianConfidence ? kMedianConfidence : r.median_ci.coverage;
  out << fmt::format("  {}  {} ± {} per loop (mean ± std. dev. of {} runs, {} loop{} each)\n",
                     label, formatSeconds(s.mean), formatSeconds(s.stddev), s.n, m.loops,
                     m.loops == 1 ? "" : "s");
  const std::string host =
      r.host_summary ? fmt::format("; host {} per loop", formatSeconds(r.host_summary->median))
                     : "";
  out << fmt::format("  {:<{}}  median {} ({:.0f}% CI {} to {}), IQR {}, min {}; cold start {}{}\n",
                     "", indent, formatSeconds(s.median), coverage * 100,
                     formatSeconds(r.median_ci.low), formatSeconds(r.median_ci.high),
                     formatSeconds(s.iqr), formatSeconds(s.min), formatSeconds(m.cold), host);
  out << fmt::format(
      "  {:<{}}  stopped: {}; wall {}: cold start {}, warm-up {}, prepare {}, samples {}\n", "",
      indent, m.stop_reason, formatSeconds(w.cold_start + w.warm_up + w.prepare + w.sampling),
      formatSeconds(w.cold_start), formatSeconds(w.warm_up), formatSeconds(w.prepare),
      formatSeconds(w.sampling));
}

}  // namespace splitstep
