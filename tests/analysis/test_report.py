"""splitstep-analysis report: one self-contained HTML page per run, checked as text and, where
Chromium is installed (launch/setup installs it), rendered in a real headless browser: its
figures shown and first, its tables there with the uncertainty of each median, no error on the
console, and a screenshot taken."""
import copy
import os
import re
import shutil
import subprocess
import unittest

from splitstep_analysis import plot, report
from splitstep_analysis.report_cells import format_value
from splitstep_analysis.report_summary import largest_noise, median_reach, wrong_cell
from splitstep_analysis.schema import read_results
from support import DATA, PNG, ROOT, FilesTestCase, run_command

QUICK = os.path.join(ROOT, "results", "2026-12-01-h200-typed-before-after", "after", "quick.json")
BEFORE = os.path.join(ROOT, "results", "2026-12-01-h200-typed-before-after", "before",
                      "quick.json")
# The quick preset on one H200 with its verdict (bf16 GEMM, HBM triad and host<->device judged):
# the page of docs/images/report-h200-quick.png.
ANSWER = os.path.join(ROOT, "results", "2026-12-02-h200-time-to-answer", "quick.json")
# A run with a derived result of suite "verdict", as splitstep writes it against the reference
# figures of its GPU: findings[0] is the one-line verdict.
VERDICT = os.path.join(DATA, "verdict.json")
STEP_NP2 = os.path.join(ROOT, "results", "2026-11-30-h200x2-step", "step-np2-final.json")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def headers(text):
    """The header cells of each table of the page, in order."""
    return [re.findall(r"<th>([^<]*)</th>", t) for t in re.findall(r"<table>.*?</table>", text)]


def without_details(text):
    """The page less what it folds in <details> elements: what a reader sees opening it."""
    return re.sub(r"<details>.*?</details>", "", text, flags=re.S)


def suite_table(text, suite):
    """The (header, rows) of the summary table of `suite`, its cells as text."""
    block = re.search(rf"<h3>{re.escape(suite)}</h3>(?:<details><summary>[^<]*</summary>)?"
                      r"(<table>.*?</table>)", text, flags=re.S)
    rows = [re.findall(r"<t[dh][^>]*>([^<]*)</t[dh]>", row)
            for row in re.findall(r"<tr>(.*?)</tr>", block.group(1))]
    return rows[0], rows[1:]


class ReportTest(FilesTestCase):
    def page(self, *files):
        out = os.path.join(self.dir.name, "report.html")
        result = run_command("report", *files, "-o", out)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(out, encoding="utf-8") as f:
            return out, f.read()

    def tearDown(self):
        plot.plt.close("all")
        super().tearDown()

    def assertOnPage(self, snippet, text):
        # assertIn would print the whole page, inline figures and all.
        if snippet not in text:
            self.fail(f"not on the page: {snippet!r}")

    def test_a_gpu_run_has_its_metadata_summary_figures_and_diagnosis(self):
        _, text = self.page(QUICK)
        for heading in ("Run", "Summary", "Derived figures and diagnosis"):
            self.assertIn(f"<h2>{heading}</h2>", text)
        self.assertIn("e43538d334f6", text)  # the revision
        self.assertIn("NVIDIA H200", text)
        for suite in ("matmul", "membw", "allreduce", "scatter", "step"):
            self.assertIn(f"<h3>{suite}</h3>", text)
        # Self-contained: every figure inline, nothing fetched from elsewhere.
        images = re.findall(r'<img [^>]*src="([^"]+)"', text)
        self.assertEqual(len(images), 6)
        self.assertTrue(all(src.startswith("data:image/png;base64,") for src in images))
        self.assertNotRegex(text, r'(src|href)="(https?:)?//')
        self.assertNotIn("<h2>Comparison</h2>", text)

    def test_the_figures_come_first(self):
        _, text = self.page(ANSWER)
        # Right under the verdict line, before any table: a grid of every figure.
        self.assertLess(text.index('<p class="verdict">'), text.index('<div class="figures">'))
        self.assertLess(text.index("<img "), text.index("<table>"))
        self.assertLess(text.rindex("<img "), text.index("<table>"))
        self.assertEqual(re.findall(r'<img alt="([^"]+)"', text),
                         ["step-mlp-bf16", "step-buckets-mlp-bf16", "telemetry-mlp-bf16",
                          "time-collectives", "matmul-tflops", "membw"])
        # The bucket ledger's panels side by side take a whole row: at half width its text
        # would be too small to read.
        self.assertRegex(text, r'<figure class="wide"><img alt="step-buckets-mlp-bf16"')

    def test_every_median_has_its_uncertainty(self):
        _, text = self.page(ANSWER)
        summaries = [h for h in headers(text) if "median" in h]
        self.assertEqual(len(summaries), 13)  # 12 suites, and the step's detail series
        for header in summaries:
            at = header.index("median")
            self.assertEqual(header[at:at + 3], ["median", "±ci", "noise"])
        # The figures of the JSON's ranks: median_ci's reach from the median, and the noise.
        header, rows = suite_table(text, "matmul")
        self.assertEqual(header, ["case", "median", "±ci", "noise", "TFLOP/s"])
        self.assertEqual(rows[1], ["bf16 n=4096", "195.9 us", "±0.99%", "4.84%", "701.5"])

    def test_wrong_is_shown_only_where_a_check_ran(self):
        _, text = self.page(ANSWER)
        # matmul and membw check nothing: no "wrong" column, not a column of zeros.
        for suite in ("matmul", "membw"):
            self.assertNotIn("wrong", suite_table(text, suite)[0])
        header, rows = suite_table(text, "allreduce")
        self.assertEqual([row[header.index("wrong")] for row in rows], ["0", "0", "0"])
        # The step checks the gradients where it synchronises them, so not in modes none and
        # single.
        header, rows = suite_table(text, "step")
        self.assertEqual({row[0]: row[header.index("wrong")] for row in rows},
                         {"mlp bf16 none": "N/A", "mlp bf16 sequential": "0",
                          "mlp bf16 overlap": "0", "mlp bf16 single": "N/A"})

    def test_values_have_their_units_and_the_ledger_is_folded(self):
        _, text = self.page(ANSWER)
        numbers = re.findall(r'<td class="n">([^<]*)</td>', text)
        self.assertTrue(numbers)
        self.assertEqual([n for n in numbers if re.search(r"\de[+-]?\d", n)], [])
        self.assertOnPage('<td class="n">64 MiB</td>', text)  # a fit's valid_to, 67108864 B
        self.assertOnPage('<td class="n">5.712 us</td>', text)  # allreduce's α, 5.712e-06 s
        self.assertOnPage('<td class="n">701,554 samples/s</td>', text)
        # The parts of a difference stay indented under it (two spaces in the file).
        self.assertOnPage("<td>\u00a0\u00a0\u00a0\u00a0backward slowdown (overlap)</td>", text)
        # The ledger (its rows in the summary and among the derived figures) is there, folded.
        for row in ("bucket 0 finish after backward", "bucket 0 ends after backward (overlap)"):
            self.assertOnPage(row, text)
            self.assertFalse(row in without_details(text), f"{row!r} is not folded")
        # The nine collectives' fits are one folded table of nine rows, not nine tables.
        self.assertEqual(text.count("<h3>latency-bandwidth model and projection</h3>"), 1)
        self.assertOnPage("<summary>9 results, 5 figures each</summary>", text)

    def test_one_rank_collectives_share_one_figure(self):
        # On one GPU the nine collectives are nine copies alike: one figure, a line each.
        figures = plot.figures_for(read_results(ANSWER))
        [together] = [p for p in figures if p.name.startswith("time")]
        self.assertEqual(together.name, "time-collectives")
        axes = together.figure.axes[0]
        self.assertEqual(len(axes.get_lines()), 9)
        self.assertEqual((axes.get_xscale(), axes.get_yscale()), ("log", "log"))
        self.assertEqual(len(together.drew), 27)  # every collective case: 9 x 3 sizes
        # `plot` still writes a file per collective.
        apart = plot.figures_for(read_results(ANSWER), time_apart=True)
        self.assertEqual(len([p for p in apart if p.name.startswith("time-")]), 9)

    def test_the_verdicts_expected_figures_are_drawn(self):
        figures = {p.name: p for p in plot.figures_for(read_results(ANSWER))}
        matmul = figures["matmul-tflops"].figure.axes[0]
        levels = {line.get_label(): line.get_ydata()[0] for line in matmul.get_lines()}
        self.assertAlmostEqual(levels["bf16 expected 798 (verdict)"], 797.51)
        # Each bar's share is of the expected figure; with none (fp32) there is no share, not
        # "100% of best measured".
        labels = [t.get_text() for t in matmul.texts]
        self.assertEqual(sorted(labels), ["51", "701\n88%"])
        # membw: on a log axis (55 GB/s beside 4,050), the expected figure over the two cases
        # the verdict judged.
        membw = figures["membw"].figure.axes[0]
        self.assertEqual(membw.get_yscale(), "log")
        dashes = [c for c in membw.collections if c.get_label() == "expected (verdict)"]
        self.assertEqual(sorted(round(float(c.get_segments()[0][0][1]), 2) for c in dashes),
                         [52.77, 4032.0])
        # A file whose verdict names no case: the dtype from the item, gemm-bf16 or matmul-bf16.
        [matmul] = plot.figures_for(read_results(VERDICT))
        labels = [line.get_label() for line in matmul.figure.axes[0].get_lines()]
        self.assertIn("bf16 expected 738 (verdict)", labels)

    def test_the_expected_allreduce_busbw_is_drawn_on_its_figure(self):
        document = read_results(os.path.join(ROOT, "results", "2026-11-30-h200x2-collectives",
                                             "h200x2-collectives.json"))
        # The derived result a two-GPU run's verdict carries for allreduce (docs/verdict.md).
        key = {"item": "allreduce-busbw", "case": "2 GPUs, 4 GiB", "family": "collective"}
        measured = {"tag": "verdict/allreduce-busbw/measured", "unit": "GB/s", "value": 344.0,
                    "name": "allreduce busbw (2 GPUs, 4 GiB)",
                    "key": {"figure": "verdict/measured", **key}}
        expected = {"tag": "verdict/allreduce-busbw/expected", "unit": "GB/s", "value": 370.0,
                    "name": "allreduce busbw expected", "note": "NCCL's maintainers",
                    "key": {"figure": "verdict/expected", **key}}
        document.setdefault("derived", []).append(
            {"suite": "verdict", "subject": "node vm", "findings": [],
             "figures": [measured, expected]})
        figures = {p.name: p for p in plot.figures_for(document)}
        lines = {line.get_label(): line.get_ydata()[0]
                 for line in figures["busbw-allreduce"].figure.axes[0].get_lines()}
        self.assertEqual(lines["expected 370 GB/s (verdict, 2 GPUs, 4 GiB)"], 370.0)
        # Only on allreduce's: the verdict judges no other collective.
        for name in ("busbw-allgather", "busbw-broadcast", "busbw-reduce-scatter"):
            labels = [line.get_label() for line in figures[name].figure.axes[0].get_lines()]
            self.assertFalse(any("expected" in label for label in labels), name)

    def test_no_verdict_no_expected_line(self):
        figures = {p.name: p for p in plot.figures_for(read_results(QUICK))}
        labels = [line.get_label() for line in figures["matmul-tflops"].figure.axes[0].get_lines()]
        self.assertEqual([label for label in labels if "expected" in label], [])
        self.assertEqual(plot.verdict_expectations(read_results(QUICK)), [])

    def test_the_verdict_line_comes_first(self):
        _, text = self.page(VERDICT)
        line = "node vm: healthy \u2014 bf16 GEMM 672 TFLOP/s (91% of expected)"
        self.assertEqual(re.findall(r'<p class="verdict">([^<]*)</p>', text), [line])
        # At the top of the run's section: before its figures, metadata and summary.
        self.assertLess(text.index(line), text.index("<img "))
        self.assertLess(text.index(line), text.index("<table>"))
        self.assertLess(text.index(line), text.index("<h2>Summary</h2>"))
        # Only the first finding is the verdict; the others stay with the derived figures.
        self.assertIn("<li>bf16 GEMM: 672 TFLOP/s against 738 expected</li>", text)

    def test_no_verdict_no_line(self):
        # A run without a verdict (no reference figure matched, or from before verdicts).
        _, text = self.page(QUICK)
        self.assertNotIn('class="verdict"', text)
        self.assertNotRegex(text, r"healthy|verdict:")

    def test_two_runs_are_compared(self):
        _, text = self.page(BEFORE, QUICK)
        self.assertIn("<h2>Comparison</h2>", text)
        self.assertIn("against the first file", text)
        self.assertRegex(text, r"\d+ same")
        # What differs between the runs comes first: here the schema revision and the plan.
        self.assertIn("<th>what differs</th>", text)
        self.assertIn("<td>schema</td><td>schema</td><td>splitstep.results/1</td>"
                      "<td>splitstep.results/2</td>", text)
        # Two one-rank runs make no scaling line.
        self.assertNotIn("<h2>Scaling</h2>", text)

    def test_scaling_is_drawn_only_as_a_line(self):
        one = read_results(STEP_NP2)
        # One file, or files at one rank count: a point, which the derived figures give.
        self.assertEqual(report.scaling_html([("a.json", one)]), "")
        self.assertEqual(report.scaling_html([("a.json", one), ("b.json", one)]), "")
        # Two and four ranks: a line.
        four = copy.deepcopy(one)
        four["metadata"]["world_size"] = 4
        text = report.scaling_html([("np2.json", one), ("np4.json", four)])
        self.assertIn("<h2>Scaling</h2>", text)
        self.assertEqual(re.findall(r'<img alt="([^"]+)"', text), ["scaling"])

    def test_parity_is_drawn_given_parity_csv(self):
        folder = os.path.join(ROOT, "results", "2026-12-01-h200-zoo-parity")
        out = os.path.join(self.dir.name, "report.html")
        result = run_command("report", os.path.join(folder, "splitstep-gpt2-preset.json"), "-o",
                             out, "--parity", os.path.join(folder, "parity.csv"))
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(out, encoding="utf-8") as f:
            text = f.read()
        self.assertIn("<h2>Parity with the library's model</h2>", text)
        self.assertIn('<img alt="parity" src="data:image/png;base64,', text)

    def test_bad_input(self):
        self.assertEqual(run_command("report", os.path.join(self.dir.name, "none.json"),
                                     "-o", os.path.join(self.dir.name, "r.html")).returncode, 2)
        self.assertEqual(run_command("report", QUICK, "-o", self.dir.name).returncode, 2)


class FiguresOfACaseTest(unittest.TestCase):
    """The pure functions behind the summary's cells and the derived figures' values."""

    def rank(self, median, low, high, coverage=0.96, noise=0.01):
        return {"rank": 0, "values": [median], "summary": {"median": median}, "noise": noise,
                "median_ci": {"low": low, "high": high, "coverage": coverage}}

    def test_median_reach_is_the_largest_over_ranks(self):
        case = {"ranks": [self.rank(1.0, 0.99, 1.02), self.rank(2.0, 1.9, 2.01, noise=0.03)]}
        self.assertAlmostEqual(median_reach(case), 0.05)  # rank 1: 0.1 below 2.0
        self.assertAlmostEqual(largest_noise(case), 0.03)
        # Too few samples for a 95% interval on one rank, or no interval (older files): none.
        case["ranks"][1]["median_ci"]["coverage"] = 0.75
        self.assertIsNone(median_reach(case))
        self.assertIsNone(median_reach({"ranks": [{"rank": 0, "values": [1.0]}]}))
        self.assertIsNone(largest_noise({"ranks": [{"rank": 0, "values": [1.0]}]}))

    def test_wrong_only_where_checked(self):
        self.assertEqual(wrong_cell({"check": {"checked": 0, "wrong": 0}}), "N/A")
        self.assertEqual(wrong_cell({}), "N/A")
        self.assertEqual(wrong_cell({"check": {"checked": 4096, "wrong": 3}}), "3")

    def test_values_in_their_units(self):
        for (value, unit), text in (((5.024e-06, "s"), "5.024 us"),
                                    ((-1.434e-3, "s"), "-1.434 ms"),
                                    ((67108864.0, "B"), "64 MiB"), ((8.0, "B"), "8 B"),
                                    ((1.5e6, "B"), "1.431 MiB"), ((94.317, "%"), "94.3%"),
                                    ((701554.37, "samples/s"), "701,554 samples/s"),
                                    ((4049.53, "GB/s"), "4050 GB/s"),
                                    ((0.00135, "GB/s"), "0.00135 GB/s"),
                                    ((1980.0, "MHz"), "1980 MHz"), ((1.0, "rank"), "rank 1")):
            self.assertEqual(format_value(value, unit), text)


@unittest.skipUnless(CHROMIUM, "no chromium: launch/setup installs it")
class ReportInABrowserTest(FilesTestCase):
    COMMON = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
              "--allow-file-access-from-files", "--virtual-time-budget=10000",
              "--window-size=1280,2400", "--enable-logging=stderr", "--v=0"]

    def render(self, *files):
        """(the <body> element's data-* attributes, the DOM, Chromium's stderr) of the page."""
        out = os.path.join(self.dir.name, "report.html")
        self.assertEqual(run_command("report", *files, "-o", out).returncode, 0)
        dom = subprocess.run(self.COMMON + ["--dump-dom", "file://" + out], capture_output=True,
                             text=True, timeout=120)
        self.assertEqual(dom.returncode, 0, dom.stderr[-2000:])
        body = re.search(r"<body([^>]*)>", dom.stdout)
        self.assertIsNotNone(body, dom.stdout[:500])
        # Chromium logs the page's console messages as "CONSOLE(...)"; an error is one of them.
        errors = [line for line in dom.stderr.splitlines()
                  if "CONSOLE" in line and ("Error" in line or "error" in line)]
        self.assertEqual(errors, [])
        return dict(re.findall(r'data-([a-z-]+)="(-?\d+)"', body.group(1))), dom.stdout, out

    def screenshot(self, out):
        shot = os.path.join(self.dir.name, "report.png")
        taken = subprocess.run(self.COMMON + [f"--screenshot={shot}", "file://" + out],
                               capture_output=True, timeout=120)
        self.assertEqual(taken.returncode, 0, taken.stderr[-2000:])
        with open(shot, "rb") as f:
            self.assertEqual(f.read(8), PNG)
        self.assertGreater(os.path.getsize(shot), 50_000)  # more than a blank page

    def test_the_page_renders_its_figures_and_tables_without_console_errors(self):
        layout, _, out = self.render(BEFORE, QUICK)
        self.assertEqual(int(layout["figures"]), 12)  # six a file
        self.assertEqual(layout["figures-shown"], layout["figures"])
        self.assertGreater(int(layout["tables"]), 5)
        self.screenshot(out)

    def test_the_figures_are_at_the_top_and_every_median_has_its_uncertainty(self):
        layout, dom, out = self.render(ANSWER)
        self.assertEqual(layout["figures-shown"], layout["figures"])
        first_figure, first_table = int(layout["first-figure-top"]), int(layout["first-table-top"])
        # Right under the title and the verdict line (the old page's first figure was 3,324 px
        # down, below the tables).
        self.assertGreater(first_figure, 0)
        self.assertLess(first_figure, 300)
        self.assertLess(first_figure, first_table)
        # At 1280 px wide the whole page was 10,185 px with every table open; it is about
        # 4,900 now, the ledger and the fits folded.
        self.assertLess(int(layout["height"]), 6000)
        self.assertGreaterEqual(dom.count("<th>±ci</th>"), 12)
        self.assertEqual(dom.count("<th>±ci</th>"), dom.count("<th>noise</th>"))
        self.screenshot(out)


if __name__ == "__main__":
    unittest.main()
