"""The splitstep-analysis command itself: its help lists the subcommands and exit statuses, a bad
subcommand is one line and status 2, and the help needs no pandas. The standard library only
(CTest analysis_python_stdlib runs it under a bare python3 as well)."""
import importlib.metadata
import importlib.util
import os
import subprocess
import sys
import unittest

from splitstep_analysis import cli

SUBCOMMANDS = ["plot", "compare", "trace", "nccl-tests", "scaling", "projection", "report",
               "time-to-answer", "eager", "export"]


def command(*args):
    return subprocess.run([sys.executable, "-m", "splitstep_analysis", *args],
                          capture_output=True, text=True)


class CommandTest(unittest.TestCase):
    def test_help_lists_every_subcommand_and_the_exit_statuses(self):
        done = command("--help")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(list(cli.COMMANDS), SUBCOMMANDS)
        for name in SUBCOMMANDS:
            self.assertRegex(done.stdout, rf"\n    {name}\b")
        for status in ("0  done", "1  compare: a verdict", "2  bad input"):
            self.assertIn(status, done.stdout)

    def test_each_subcommands_help_lists_only_its_own_exit_statuses(self):
        # A bare python3 (analysis_python_stdlib) has no pandas or matplotlib: the subcommands
        # that import them are held to this where they are installed.
        full = importlib.util.find_spec("pandas") and importlib.util.find_spec("matplotlib")
        for name, (_, _, one) in cli.COMMANDS.items():
            done = command(name, "--help")
            if not full and "ModuleNotFoundError" in done.stderr:
                continue
            self.assertEqual(done.returncode, 0, done.stderr)
            statuses = done.stdout[done.stdout.index("exit status:"):]
            self.assertIn("0  done", statuses, name)
            self.assertIn("2  bad input", statuses, name)
            if one:
                self.assertIn(f"1  {one}", statuses, name)
            else:
                self.assertNotIn("\n  1  ", statuses, name)
            # No other subcommand's status 1.
            for other, (_, _, theirs) in cli.COMMANDS.items():
                if theirs and theirs != one:
                    self.assertNotIn(theirs, statuses, (name, other))

    def test_bad_subcommands_and_options_are_one_line_and_status_2(self):
        for args in ((), ("plots",), ("--colour",), ("time-to-answer",), ("nccl-tests", "tables")):
            done = command(*args)
            self.assertEqual(done.returncode, 2, args)
            self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
            self.assertEqual(done.stdout, "", args)

    def test_the_help_and_the_standard_library_subcommands_need_no_pandas(self):
        # eager's help too: it imports torch only to run a step.
        code = ("import contextlib, io, sys\n"
                "from splitstep_analysis import cli\n"
                "with contextlib.redirect_stdout(io.StringIO()):\n"
                "    cli.main(['--help'])\n"
                "    cli.main(['time-to-answer', '--help'])\n"
                "    cli.main(['nccl-tests', 'table', '--help'])\n"
                "    cli.main(['eager', '--help'])\n"
                "print(sorted(m for m in ('pandas', 'numpy', 'matplotlib', 'torch')\n"
                "             if m in sys.modules))")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.strip(), "[]")

    def test_the_console_script_is_the_command(self):
        script = os.path.join(os.path.dirname(sys.executable), "splitstep-analysis")
        if not os.path.isfile(script):
            self.skipTest(f"no {script}: the package is not installed in this python's "
                          f"environment (pip install -e ./analysis)")
        entry = importlib.metadata.entry_points(group="console_scripts")["splitstep-analysis"]
        self.assertEqual(entry.value, "splitstep_analysis.cli:main")
        done = subprocess.run([script, "--help"], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("time-to-answer", done.stdout)


if __name__ == "__main__":
    unittest.main()
