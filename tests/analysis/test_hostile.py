"""Results files made to break the reader (issue 38): every subcommand that reads one answers
with one line on stderr naming the file and the reason, exit status 2, within seconds, and
writes nothing. The files are made here, in a temporary folder; the large ones are sparse or
compressed, so that none costs more than a few MB of disk."""
import gzip
import json
import os
import time
import unittest
from unittest import mock

from splitstep_analysis import schema
from support import ROOT, FilesTestCase, run_command
from test_plot import document, matmul_cases

# Seconds a refusal may take, the command's start-up included (a loaded 2-core machine).
WITHIN_S = 10


def _numbers(value, number):
    """`value` with every float replaced by `number`."""
    if isinstance(value, dict):
        return {key: _numbers(item, number) for key, item in value.items()}
    if isinstance(value, list):
        return [_numbers(item, number) for item in value]
    return number if isinstance(value, float) else value


class HostileFilesTest(FilesTestCase):
    def setUp(self):
        super().setUp()
        self.out = os.path.join(self.dir.name, "out")

    def commands(self, path):
        """Every subcommand that reads a results file or a trace (the same reader), given
        `path`."""
        return [("plot", path, "-o", self.out),
                ("report", path, "-o", os.path.join(self.out, "page.html")),
                ("compare", path, path),
                ("scaling", path),
                ("projection", path, path),
                ("trace", path, "-o", os.path.join(self.out, "trace.png"))]

    def assertRefused(self, path, reason, skip=()):
        """Every subcommand given `path` (commands, less those named in `skip`): exit 2, one
        line naming the file and `reason`, nothing on stdout or written, within WITHIN_S."""
        for args in (a for a in self.commands(path) if a[0] not in skip):
            with self.subTest(command=args[0]):
                start = time.monotonic()
                done = run_command(*args)
                took = time.monotonic() - start
                self.assertEqual(done.returncode, 2, done.stderr)
                self.assertEqual(done.stdout, "")
                lines = done.stderr.splitlines()
                self.assertEqual(len(lines), 1, done.stderr)
                self.assertIn(f"{path}: ", lines[0])
                self.assertIn(reason, lines[0])
                self.assertLess(took, WITHIN_S)
                self.assertFalse(os.path.exists(self.out))

    def valid(self):
        return document(matmul_cases())

    def test_a_valid_file_is_read(self):
        # What the hostile files are made from, to show that it is their edit that is refused.
        path = self.write("valid.json", self.valid())
        self.assertEqual(len(schema.read_results(path)["cases"]), len(matmul_cases()))

    def test_nesting_100k_deep(self):
        text = json.dumps({**self.valid(), "extra": "DEEP"})
        path = self.write("deep.json", text.replace('"DEEP"', "[" * 100_000 + "]" * 100_000))
        self.assertRefused(path, f"nested deeper than {schema.MAX_DEPTH} levels")

    def test_nesting_just_past_the_bound(self):
        # Deep enough for the bound, shallow enough for Python's own parser.
        depth = schema.MAX_DEPTH + 1
        text = json.dumps({**self.valid(), "extra": "DEEP"})
        path = self.write("deep.json", text.replace('"DEEP"', "[" * depth + "]" * depth))
        self.assertRefused(path, f"nested deeper than {schema.MAX_DEPTH} levels")

    def test_ten_to_the_400(self):
        text = json.dumps({**self.valid(), "extra": "BIG"})
        path = self.write("big-number.json", text.replace('"BIG"', str(10 ** 400)))
        self.assertRefused(path, "an integer of 401 digits is out of range")

    def test_numbers_too_large_or_too_small(self):
        for number, shown in ((1e308, "1e+308"), (5e-324, "5e-324"), (-1e101, "-1e+101")):
            with self.subTest(number=number):
                path = self.write("number.json", _numbers(self.valid(), number))
                self.assertRefused(path, f"{shown} is out of range")

    def test_infinity_and_nan(self):
        for literal in ("Infinity", "-Infinity", "NaN", "1e400"):
            with self.subTest(literal=literal):
                text = json.dumps({**self.valid(), "extra": "X"}).replace('"X"', literal)
                self.assertRefused(self.write("special.json", text), "is out of range")

    def test_a_lone_surrogate(self):
        cases = matmul_cases()
        cases[0]["case"] = "\ud800"
        # json.dumps writes it as the escape \ud800: valid JSON, not valid Unicode.
        self.assertRefused(self.write("surrogate.json", document(cases)),
                           'the string "\\ud800" is not Unicode text')

    def test_all_zero_times(self):
        self.assertRefused(self.write("zeros.json", _numbers(self.valid(), 0.0)),
                           "cases[0]: across_ranks.median, min or max is not positive",
                           skip=("trace",))  # a results file's own rule

    def test_a_200_MB_file(self):
        path = os.path.join(self.dir.name, "large.json")
        with open(path, "w") as f:
            json.dump(self.valid(), f)
            f.truncate(200 * 10 ** 6)  # sparse: no disk, and refused before it is read
        self.assertRefused(path, f"larger than {schema.DEFAULT_MAX_MIB} MiB")

    def test_a_1_GiB_gzip_bomb(self):
        # Concatenated gzip members are one stream to a reader: 1 GiB of zeros, made from one
        # compressed MiB, in about 1 MB.
        path = os.path.join(self.dir.name, "bomb.json.gz")
        mib = gzip.compress(b"0" * (1 << 20), compresslevel=9)
        with open(path, "wb") as f:
            f.write(gzip.compress(b'{"schema": "splitstep.results/1", "metadata": {"x": "'))
            for _ in range(1024):
                f.write(mib)
            f.write(gzip.compress(b'"}, "cases": []}'))
        self.assertLess(os.path.getsize(path), 2 << 20)
        self.assertRefused(path, f"decompresses to more than {schema.DEFAULT_MAX_MIB} MiB")

    def test_a_broken_gzip_stream(self):
        whole = gzip.compress(json.dumps(self.valid()).encode())
        path = os.path.join(self.dir.name, "cut.json.gz")
        with open(path, "wb") as f:
            f.write(whole[:len(whole) // 2])
        self.assertRefused(path, "not gzip")

    def test_what_is_not_a_file(self):
        fifo = os.path.join(self.dir.name, "fifo.json")
        os.mkfifo(fifo)  # opened without a writer: read as a file, it would wait forever
        for path, kind in ((fifo, "a FIFO"), (os.devnull, "a character device")):
            with self.subTest(kind=kind):
                self.assertRefused(path, f"cannot read: {kind}, not a file")
        folder = os.path.join(self.dir.name, "folder.json")
        os.mkdir(folder)
        # plot reads the results files in a folder it is given.
        self.assertRefused(folder, "cannot read: a directory, not a file", skip=("plot",))

    def test_names_with_control_bytes_stay_on_one_line(self):
        path = self.write("new\nline\x1b[2K.json", _numbers(self.valid(), 0.0))
        done = run_command("compare", path, path)
        self.assertEqual(done.returncode, 2)
        self.assertEqual(done.stderr.count("\n"), 1, done.stderr)
        self.assertIn("new\\x0aline\\x1b[2K.json: cases[0]", done.stderr)

    def test_the_bound_follows_the_environment(self):
        path = os.path.join(self.dir.name, "two-mib.json")
        with open(path, "w") as f:
            json.dump({**self.valid(), "extra": "0" * (2 << 20)}, f)
        with mock.patch.dict(os.environ, {schema.MAX_MIB_VARIABLE: "1"}):
            self.assertRefused(path, f"larger than 1 MiB ({schema.MAX_MIB_VARIABLE} raises")
        with mock.patch.dict(os.environ, {schema.MAX_MIB_VARIABLE: "3"}):
            self.assertEqual(len(schema.read_results(path)["cases"]), len(matmul_cases()))
        for text in ("0", "-5", "lots"):
            with self.subTest(value=text), mock.patch.dict(os.environ,
                                                           {schema.MAX_MIB_VARIABLE: text}):
                done = run_command("scaling", path)
                self.assertEqual(done.returncode, 2)
                self.assertEqual(done.stderr.strip(), f"splitstep-analysis scaling: "
                                 f"{schema.MAX_MIB_VARIABLE}={json.dumps(text)}: not a positive "
                                 f"number of MiB")

    def test_the_bound_holds_every_committed_file_ten_times(self):
        # The margin docs/analysis.md promises for the files splitstep writes today.
        results = os.path.join(ROOT, "results")
        largest = max(os.path.getsize(os.path.join(folder, name))
                      for folder, _, names in os.walk(results) for name in names
                      if name.endswith(".json"))
        self.assertLessEqual(largest * 10, schema.DEFAULT_MAX_MIB << 20)


if __name__ == "__main__":
    unittest.main()
