"""The analysis package on sys.path for the reference tools and their tests, and
`splitstep-analysis eager` called as its command line is: in this process, or as a command."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ANALYSIS = os.path.join(ROOT, "analysis")
if ANALYSIS not in sys.path:
    sys.path.insert(0, ANALYSIS)

from splitstep_analysis import cli, eager  # noqa: E402

# The command in a process of its own (under mpirun, say), with this checkout's package.
EAGER = [sys.executable, "-m", "splitstep_analysis", "eager"]


def environment():
    """os.environ with this checkout's analysis package first on PYTHONPATH, for EAGER."""
    paths = [ANALYSIS] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(paths))


def run_eager(argv):
    """`splitstep-analysis eager ARGV` in this process; its exit status."""
    return cli.main(["eager", *argv])


def parse_options(argv):
    """The settings `splitstep-analysis eager ARGV` would run with (BadInput where refused)."""
    args = cli.parser_for(["eager", *argv]).parse_args(["eager", *argv])
    return eager.options_from(args)
