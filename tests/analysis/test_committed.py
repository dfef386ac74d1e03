"""Every committed GPU results folder through plot and report: every case of every results file
is drawn, and each folder's page holds its figures and a summary per suite."""
import os
import re
import unittest

from splitstep_analysis import plot, report
from splitstep_analysis.schema import ResultsError, read_results
from support import ROOT

RESULTS = os.path.join(ROOT, "results")


def results_files():
    """{folder: [(path, document)]} of every results file under results/ (other JSON files,
    such as splitstep-analysis eager's, are not results files)."""
    found = {}
    for folder, _, names in sorted(os.walk(RESULTS)):
        for name in sorted(names):
            if not name.endswith(".json"):
                continue
            path = os.path.join(folder, name)
            try:
                document = read_results(path)
            except ResultsError:
                continue
            found.setdefault(os.path.relpath(folder, RESULTS), []).append((path, document))
    return found


class CommittedResultsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folders = results_files()

    def tearDown(self):
        plot.plt.close("all")

    def test_there_are_committed_results(self):
        self.assertGreaterEqual(len(self.folders), 15)

    def test_every_case_of_every_file_is_drawn(self):
        for folder, files in self.folders.items():
            for path, document in files:
                with self.subTest(file=os.path.relpath(path, RESULTS)):
                    figures = plot.figures_for(document)
                    measured = [c for c in document["cases"] if not c.get("skipped", False)]
                    if measured:
                        self.assertTrue(figures)
                    self.assertEqual(plot.not_drawn(document, figures), {})
                    plot.plt.close("all")

    def test_each_folder_has_a_page_with_its_figures(self):
        for folder, files in self.folders.items():
            path, document = files[0]
            with self.subTest(file=os.path.relpath(path, RESULTS)):
                names = [p.name for p in plot.figures_for(document)]
                plot.plt.close("all")
                text = report.page([(path, document)])
                self.assertEqual(re.findall(r'<img alt="([^"]+)"', text), names)
                suites = dict.fromkeys(c["suite"] for c in document["cases"]
                                       if not c.get("skipped", False))
                self.assertEqual(re.findall(r"<h3>([^<]+)</h3>", text)[:len(suites)],
                                 list(suites))


if __name__ == "__main__":
    unittest.main()
