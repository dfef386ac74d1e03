"""splitstep-analysis report: one self-contained HTML page per run, checked as text and, where
Chromium is installed (launch/setup installs it), rendered in a real headless browser: its
figures shown, its tables there, no error on the console, and a screenshot taken."""
import os
import re
import shutil
import subprocess
import unittest

from support import DATA, PNG, ROOT, FilesTestCase, run_command

QUICK = os.path.join(ROOT, "results", "2026-12-01-h200-typed-before-after", "after", "quick.json")
BEFORE = os.path.join(ROOT, "results", "2026-12-01-h200-typed-before-after", "before",
                      "quick.json")
# A run with a derived result of suite "verdict", as splitstep writes it against the reference
# figures of its GPU: findings[0] is the one-line verdict.
VERDICT = os.path.join(DATA, "verdict.json")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class ReportTest(FilesTestCase):
    def page(self, *files):
        out = os.path.join(self.dir.name, "report.html")
        result = run_command("report", *files, "-o", out)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(out, encoding="utf-8") as f:
            return out, f.read()

    def test_a_gpu_run_has_its_metadata_summary_figures_and_diagnosis(self):
        _, text = self.page(QUICK)
        for heading in ("Summary", "Figures", "Derived figures and diagnosis"):
            self.assertIn(f"<h2>{heading}</h2>", text)
        self.assertIn("e43538d334f6", text)  # the revision
        self.assertIn("NVIDIA H200", text)
        for suite in ("matmul", "membw", "allreduce", "scatter", "step"):
            self.assertIn(f"<h3>{suite}</h3>", text)
        # Self-contained: every figure inline, nothing fetched from elsewhere.
        images = re.findall(r'<img [^>]*src="([^"]+)"', text)
        self.assertGreater(len(images), 10)
        self.assertTrue(all(src.startswith("data:image/png;base64,") for src in images))
        self.assertNotRegex(text, r'(src|href)="(https?:)?//')
        self.assertNotIn("<h2>Comparison</h2>", text)

    def test_the_verdict_line_comes_first(self):
        _, text = self.page(VERDICT)
        line = "node vm: healthy \u2014 bf16 GEMM 672 TFLOP/s (91% of expected)"
        self.assertEqual(re.findall(r'<p class="verdict">([^<]*)</p>', text), [line])
        # At the top of the run's section: before its metadata and summary.
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


@unittest.skipUnless(CHROMIUM, "no chromium: launch/setup installs it")
class ReportInABrowserTest(FilesTestCase):
    def test_the_page_renders_its_figures_and_tables_without_console_errors(self):
        out = os.path.join(self.dir.name, "report.html")
        self.assertEqual(run_command("report", BEFORE, QUICK, "-o", out).returncode, 0)
        common = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                  "--allow-file-access-from-files", "--virtual-time-budget=10000",
                  "--enable-logging=stderr", "--v=0"]
        dom = subprocess.run(common + ["--dump-dom", "file://" + out], capture_output=True,
                             text=True, timeout=120)
        self.assertEqual(dom.returncode, 0, dom.stderr[-2000:])
        body = re.search(r"<body([^>]*)>", dom.stdout)
        self.assertIsNotNone(body, dom.stdout[:500])
        attributes = dict(re.findall(r'data-([a-z-]+)="(\d+)"', body.group(1)))
        self.assertGreater(int(attributes["figures"]), 10)
        self.assertEqual(attributes["figures-shown"], attributes["figures"])
        self.assertGreater(int(attributes["tables"]), 5)
        # Chromium logs the page's console messages as "CONSOLE(...)"; an error is one of them.
        errors = [line for line in dom.stderr.splitlines()
                  if "CONSOLE" in line and ("Error" in line or "error" in line)]
        self.assertEqual(errors, [])
        shot = os.path.join(self.dir.name, "report.png")
        taken = subprocess.run(common + [f"--screenshot={shot}", "--window-size=1280,2400",
                                         "file://" + out], capture_output=True, timeout=120)
        self.assertEqual(taken.returncode, 0, taken.stderr[-2000:])
        with open(shot, "rb") as f:
            self.assertEqual(f.read(8), PNG)
        self.assertGreater(os.path.getsize(shot), 50_000)  # more than a blank page


if __name__ == "__main__":
    unittest.main()
