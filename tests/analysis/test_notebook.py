"""analysis/example.ipynb runs top to bottom, from a folder other than the repository's, in a
fresh kernel (nbclient, the analysis package's `notebook` extra); a cell that raises fails the
test. The committed notebook carries its outputs, so that it reads where it is shown without
being run.

  python -m unittest test_notebook                  # run it, as CTest does
  python test_notebook.py --write                    # run it and store the outputs in the file
"""
import os
import sys
import tempfile
import unittest

import splitstep_analysis
from support import ROOT

NOTEBOOK = os.path.join(ROOT, "analysis", "example.ipynb")
TIMEOUT_S = 600  # a cell; the slowest (plot and compare over committed runs) takes seconds

try:
    import nbclient
    import nbformat
except ImportError:  # the extra is not installed: the test says so and skips
    nbclient = nbformat = None


def execute(path=NOTEBOOK):
    """The notebook at `path` run in a new kernel, with a temporary folder as its working
    directory; raises nbclient's CellExecutionError naming the cell that failed. The kernel
    imports the package this test imports (a relative PYTHONPATH would not hold in another
    folder, and the environment's installed copy may be another checkout's)."""
    notebook = nbformat.read(path, as_version=4)
    package = os.path.dirname(os.path.dirname(os.path.abspath(splitstep_analysis.__file__)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [package] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}
    with tempfile.TemporaryDirectory() as folder:
        nbclient.NotebookClient(notebook, timeout=TIMEOUT_S, kernel_name="python3",
                                resources={"metadata": {"path": folder}}).execute(env=env)
    return notebook


def code_cells(notebook):
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


@unittest.skipIf(nbclient is None, "no nbclient: pip install -e './analysis[notebook]' "
                                   "(launch/setup does)")
class NotebookTest(unittest.TestCase):
    def test_every_cell_runs_from_another_folder(self):
        notebook = execute()
        cells = code_cells(notebook)
        self.assertGreater(len(cells), 10)
        for index, cell in enumerate(cells):
            errors = [o for o in cell.outputs if o.output_type == "error"]
            self.assertEqual(errors, [], f"code cell {index}")
        # The cells that draw show figures.
        images = sum("image/png" in o.get("data", {}) for cell in cells for o in cell.outputs)
        self.assertGreaterEqual(images, 3)

    def test_a_cell_that_raises_fails(self):
        notebook = nbformat.v4.new_notebook(cells=[
            nbformat.v4.new_code_cell("x = 1"), nbformat.v4.new_code_cell("raise ValueError(x)")])
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "failing.ipynb")
            nbformat.write(notebook, path)
            with self.assertRaises(nbclient.exceptions.CellExecutionError) as failed:
                execute(path)
        self.assertIn("ValueError", str(failed.exception))

    def test_the_committed_notebook_has_its_outputs(self):
        notebook = nbformat.read(NOTEBOOK, as_version=4)
        nbformat.validate(notebook)
        cells = code_cells(notebook)
        self.assertEqual([cell.execution_count for cell in cells], list(range(1, len(cells) + 1)))
        self.assertTrue(all(cell.outputs for cell in cells[1:]),  # the first only imports
                        "run `python tests/analysis/test_notebook.py --write`")


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        nbformat.write(execute(), NOTEBOOK)
        print(NOTEBOOK)
    else:
        unittest.main()
