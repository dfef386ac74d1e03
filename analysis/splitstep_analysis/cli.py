"""The splitstep-analysis command: one parser style, the subcommands, the exit statuses.

A subcommand is a module of this package with `add_arguments(parser)` and `run(args)` (which
returns the exit status); only the chosen one is imported, so that the help and the
standard-library subcommands start without pandas or matplotlib.
"""
import argparse
import importlib
import os
import sys

from .schema import BadInput

PROG = "splitstep-analysis"
# name: (module, one line for the list of subcommands, what its status 1 means or None where
# it has none)
COMMANDS = {
    "plot": ("plot", "figures of results files: step breakdown, bucket ledger, busbw per "
                     "collective, pairs heatmap, GEMM TFLOP/s, memory bandwidth, telemetry, "
                     "scaling, parity",
             "cases that could not be plotted"),
    "compare": ("compare", "run-to-run comparison: faster, slower, same or unclear per case "
                           "(or, with --consistency, do two runs' medians agree)",
                "a verdict: a case slower, or (--consistency) medians that disagree"),
    "trace": ("trace", "draw a --trace file (.json or .json.gz) to PNG/SVG/PDF", None),
    "nccl-tests": ("nccl_tests", "nccl-tests' output as a reference table, and splitstep "
                                 "beside it (or beside a reference table)",
                   "a ratio outside the tolerance or a failed check (compare)"),
    "scaling": ("scaling", "markdown tables by rank count: allreduce busbw, step times", None),
    "projection": ("projection", "a run's projection to more ranks against runs at those "
                                 "rank counts", None),
    "report": ("report", "one self-contained HTML page of one run or more: metadata, a summary "
                         "per suite, every figure, the diagnosis, the comparison", None),
    "time-to-answer": ("time_to_answer", "where a run's wall time went (launch/verify "
                                         "time-to-answer's table), held to limits",
                       "a run over its --at-most limit"),
    "eager": ("eager", "the same training step in PyTorch eager on this node, phase by phase: "
                       "the library's own model of a zoo case, the factories of an exported one",
              None),
    "export": ("export", "a PyTorch model and its loss as an archive for splitstep step "
                         "--model-file", None),
}
BAD_INPUT = """\
  2  bad input: an unreadable or malformed file, a file of another schema, a bad option, an
     unknown subcommand, nothing to compare or a comparison refused; one line on stderr
"""
EXIT_STATUS = "exit status:\n  0  done, and no verdict against the input\n" + \
    "".join(f"  1  {name}: {one}\n" for name, (_, _, one) in COMMANDS.items() if one) + BAD_INPUT


def exit_status(one):
    """A subcommand's own exit statuses: its 1 only where it has one."""
    return ("exit status:\n  0  done, and no verdict against the input\n" +
            (f"  1  {one}\n" if one else "") + BAD_INPUT)


# A refusal quotes names from files and the command line; a newline or an escape sequence in
# one would break the one line or rewrite the terminal, so control characters are shown as \xNN.
_CONTROL = {code: f"\\x{code:02x}" for code in (*range(0x20), *range(0x7f, 0xa0))}


class Parser(argparse.ArgumentParser):
    """argparse with splitstep's bad-input rule: one line on stderr, exit status 2."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message):
        self.exit(2, f"{self.prog}: {message}\n")


def option_type(convert):
    """An argparse type from a function that raises ValueError with the reason."""
    def parse(text):
        try:
            return convert(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    parse.__name__ = convert.__name__
    return parse


def parser_for(argv):
    """The command's parser, with the arguments of the subcommand `argv` names (if any)."""
    parser = Parser(prog=PROG, epilog=EXIT_STATUS,
                    description="splitstep's results files: plots, run-to-run comparison, "
                                "nccl-tests side by side, scaling and projection tables, traces, "
                                "time to an answer (analysis/README.md, docs/analysis.md).")
    commands = parser.add_subparsers(dest="command", metavar="SUBCOMMAND", required=True,
                                     parser_class=Parser,
                                     title="subcommands (splitstep-analysis SUBCOMMAND --help)")
    chosen = next((a for a in argv if not a.startswith("-")), None)
    for name, (module_name, summary, one) in COMMANDS.items():
        if name != chosen:
            commands.add_parser(name, help=summary)
            continue
        module = importlib.import_module(f".{module_name}", __package__)
        sub = commands.add_parser(name, help=summary, description=module.__doc__,
                                  epilog=exit_status(one))
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
    return parser


def main(argv=None):
    """Runs the command line `argv` (default sys.argv[1:]); returns the exit status."""
    argv = sys.argv[1:] if argv is None else [str(a) for a in argv]
    try:
        args = parser_for(argv).parse_args(argv)
    except SystemExit as done:  # --help (0) or a bad option (2), already printed
        return done.code
    try:
        return args.run(args)
    except BadInput as error:
        sys.stderr.write(f"{PROG} {args.command}: {str(error).translate(_CONTROL)}\n")
        return 2
    except BrokenPipeError:
        # The reader left (`| head`): what it read is all it wanted. Python would report the
        # pipe again when flushing stdout at exit; pointing stdout at /dev/null keeps it quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
