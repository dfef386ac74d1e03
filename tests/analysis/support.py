"""What the tests of the splitstep_analysis package share: running the command, a temporary
folder for input files, the repository's root."""
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

from splitstep_analysis import cli

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
PNG = b"\x89PNG\r\n\x1a\n"


class Run:
    """What a command run left: returncode, stdout, stderr."""

    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def run_command(*args, process=False):
    """Runs `splitstep-analysis ARGS` in this process (fast), or in a new one as users run it
    (python -m splitstep_analysis)."""
    args = [str(a) for a in args]
    if process:
        result = subprocess.run([sys.executable, "-m", "splitstep_analysis"] + args,
                                capture_output=True, text=True)
        return Run(result.returncode, result.stdout, result.stderr)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(args)
    return Run(status, out.getvalue(), err.getvalue())


class FilesTestCase(unittest.TestCase):
    """A test that writes its input files into a temporary folder of its own."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, content):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(content if isinstance(content, str) else json.dumps(content))
        return path
