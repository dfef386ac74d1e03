// Figures derived from several cases together (exposed communication, overlap, scaling
// efficiency, ...) and the diagnosis drawn from them: a generic record that reporters print
// without knowing the suite that produced the cases (docs/metrics.md defines each figure).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/TypedValue.hpp"

namespace splitstep {

struct DerivedFigure {
  // A stable machine name, as nvbench tags its summaries: "step/exposed/overlap". Reports and
  // notebooks select figures by tag; `name` may be reworded.
  std::string tag;
  std::string name;  // for people: "exposed communication (overlap)"
  // "s" (seconds), "%" (value in percent), "rank" (a rank number), or a rate's unit
  // ("samples/s", "TFLOP/s").
  std::string unit;
  double value = 0;
  std::vector<std::pair<int, double>> per_rank;  // (rank, value), where the figure has one per rank
  std::string note;                              // how to read it, or what is missing; may be empty
  bool detail = false;  // in results files only: the console prints the figures that sum it up
  // A 95% interval of `value` (a bootstrap over the samples), where the figure has one.
  std::optional<std::pair<double, double>> interval = std::nullopt;
  // Its place in the result's short table, where it has one (a reporter's summary: figures of
  // one row side by side, a column per series such as a sync mode): the row in words, the
  // column. Empty `row`: the figure is not in that table.
  std::string row = {};
  std::string column = {};
  // What the figure is, typed, for code that selects figures: the figure's kind and what the
  // tag spells in it ({"figure": "collective/projection", "collective": "allreduce", ...,
  // "ranks": 8}). Empty where the tag names a figure with nothing in it to select by.
  TypedFields key = {};
};

struct DerivedResult {
  std::string suite;    // "step"
  std::string subject;  // what the figures describe: "mlp bf16"
  std::string title;    // "where the step time goes"
  std::vector<DerivedFigure> figures;
  std::vector<std::string> findings;  // the diagnosis, in plain words, one sentence each
  // How many of the findings, from the first, the compact console shows: the first, and where
  // that one holds rules back for noise, the first judged finding after it too.
  std::size_t lead_findings = 1;
  std::vector<std::string> notes;  // how the figures were obtained, what they leave out
  // What a model behind the figures takes for granted (a projection's premises), one each.
  std::vector<std::string> assumptions;
  // What the columns of the short table (DerivedFigure::row, column) stand for, in one line.
  std::string legend;
  // Figures the compact console leaves to --verbose (and the files): they say nothing that its
  // warnings and the other results do not.
  bool verbose_only = false;

  // A figure with these, appended; the caller fills in the rest.
  DerivedFigure& addFigure(std::string tag, std::string name, std::string unit, double value) {
    DerivedFigure& figure = figures.emplace_back();
    figure.tag = std::move(tag);
    figure.name = std::move(name);
    figure.unit = std::move(unit);
    figure.value = value;
    return figure;
  }
};

}  // namespace splitstep
