"""The figures of splitstep results files, a module per family; `splitstep_analysis.plot` draws
them for a file and is the command.

Importing the package picks matplotlib's headless backend, except in a notebook that shows the
figures, before any of its modules imports pyplot.
"""
import sys

import matplotlib

if "ipykernel" not in sys.modules:
    matplotlib.use("Agg")
