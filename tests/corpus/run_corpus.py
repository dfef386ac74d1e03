#!/usr/bin/env python3
"""Runs the hostile-input corpus (args.txt, configs.txt, environments.txt in this folder)
against splitstep and asserts, for every case: exit status 2, exactly one line on stderr of the
form "splitstep: error: <reason>" whose reason holds the case's expected text, nothing on
stdout, no file written, all within --limit seconds.

Cases run as a singleton (no mpirun: one rank of its own); every --sample-every'th case runs
again under mpirun -np --ranks, where every rank must exit 2 and the job print the line once.

    run_corpus.py --binary SPLITSTEP [--mpiexec MPIRUN] [--jobs 4] [--sample-every 20]
                  [--part all|quick|rest] [--quick-every 5]

--part quick runs every --quick-every'th case (launch/test's quick tier), --part rest the others
(the full tier adds them): together, every case once.

SPLITSTEP_MPIEXEC_FLAGS (e.g. --oversubscribe) goes to mpirun, as in the other CLI tests.

Each case runs in a fresh folder (its working directory) holding the fixtures the placeholders
name: {dir} the folder, {file} a regular file splitstep did not write, {ro} a read-only file,
{config} the case's INI file (configs.txt: the case's content; otherwise a valid one), {long} a
file name over NAME_MAX, {deep} a path over PATH_MAX, {name} the folder's name, {tab} a tab,
{xNN} the byte NN, {N*TEXT} TEXT N times (in arguments, environments and config contents). A case is held to 4 GiB of
address space, so that a case wrongly accepted fails quickly instead of starting a benchmark.
"""
import argparse
import ast
import concurrent.futures
import os
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ERROR = re.compile(r"^splitstep: error: \S.*$")
VALID_CONFIG = "# a valid config\nwarmup = 1\n"


def load(name):
    """(what, fields...) for every case line of a corpus file: 'what | field | field'."""
    cases = []
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            # The last fields may be left out: empty.
            fields = [part.strip() for part in line.split(" | ")] + ["", "", ""]
            cases.append((f"{name}:{number}", fields))
    return cases


class Case:
    def __init__(self, where, kind, what, args, expect, config=VALID_CONFIG, env=None):
        self.where, self.kind, self.what = where, kind, what
        self.args, self.expect, self.config, self.env = args, expect, config, env or {}


def cases():
    out = []
    for where, f in load("args.txt"):
        what, args, expect = f[:3]
        out.append(Case(where, "args", what, args, expect))
    for where, f in load("configs.txt"):
        what, content, args, expect = f[0], ast.literal_eval(f[1]), f[2], f[3]
        out.append(Case(where, "config", what, "--config {config} " + args, expect, config=content))
    for where, f in load("environments.txt"):
        what, env, args, expect = f[:4]
        pairs = dict(word.split("=", 1) for word in shlex.split(env))
        out.append(Case(where, "env", what, args, expect, env=pairs))
    return out


def fixtures(case, folder):
    names = {"{dir}": folder, "{file}": os.path.join(folder, "notes.txt"),
             "{ro}": os.path.join(folder, "read-only.json"), "{config}": os.path.join(folder, "case.ini"),
             "{long}": os.path.join(folder, "n" * 300), "{tab}": "\t",
             "{deep}": folder + "/d" * 2100, "{name}": os.path.basename(folder)}
    with open(names["{file}"], "w") as f:
        f.write("notes that are not splitstep's\n")
    with open(names["{ro}"], "w") as f:
        f.write("{}\n")
    os.chmod(names["{ro}"], 0o444)
    data = expand(case.config, names).encode("utf-8", "surrogateescape")
    with open(names["{config}"], "wb") as f:
        f.write(data)
    return names


def expand(text, names):
    for key, value in names.items():
        text = text.replace(key, value)
    text = re.sub(r"\{(\d+)\*([^{}]*)\}", lambda m: m.group(2) * int(m.group(1)), text)
    # {xNN}: the byte NN, as the file system's encoding carries bytes that are not UTF-8.
    return re.sub(r"\{x([0-9a-f]{2})\}", lambda m: os.fsdecode(bytes([int(m.group(1), 16)])), text)


def snapshot(folder):
    seen = set()
    for root, dirs, files in os.walk(folder):
        seen.update(os.path.join(root, n) for n in dirs + files)
    return seen


def environment(case, names):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMPI_COMM_WORLD", "PMIX_", "PMI_", "SLURM_"))}
    env.update({k: expand(v, names) for k, v in case.env.items()})
    return env


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def run(case, binary, mpiexec, ranks, limit):
    """A list of what went wrong (empty: the case passed) and the line it printed."""
    folder = tempfile.mkdtemp(prefix="splitstep-corpus.")
    try:
        names = fixtures(case, folder)
        args = [expand(word, names) for word in shlex.split(case.args)]
        before = snapshot(folder)
        command = [binary] + args
        if mpiexec:
            flags = shlex.split(os.environ.get("SPLITSTEP_MPIEXEC_FLAGS", ""))
            command = ([mpiexec, *flags, "-np", str(ranks), "sh", "-c",
                        '"$@"; echo "rank=${OMPI_COMM_WORLD_RANK:-?} status=$?"', "splitstep"]
                       + command)
        start = time.monotonic()
        # A session of its own, so that everything it started (an MPI singleton's helper) ends
        # with it.
        process = subprocess.Popen(command, cwd=folder, env=environment(case, names),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   preexec_fn=limit_memory, start_new_session=True)
        try:
            out, err = process.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            return [f"still running after {limit} s"], ""
        took = time.monotonic() - start
        err = err.decode("utf-8", "replace")
        out = out.decode("utf-8", "replace")
        done = process
        lines = [line for line in err.splitlines() if line.strip()]
        problems = []
        if mpiexec:
            statuses = re.findall(r"^rank=\d+ status=(\d+)$", out, re.M)
            if statuses != ["2"] * ranks:
                problems.append(f"rank statuses {statuses}, not {ranks} times 2")
            extra = [line for line in out.splitlines() if not re.match(r"^rank=\d+ status=\d+$", line)]
            if extra:
                problems.append(f"stdout: {extra[:2]}")
        else:
            if done.returncode != 2:
                problems.append(f"exit status {done.returncode}")
            if out:
                problems.append(f"stdout: {out[:200]!r}")
        if len(lines) != 1 or not ERROR.match(lines[0]):
            problems.append(f"stderr is not one error line: {lines[:3]}")
        elif case.expect and case.expect not in lines[0]:
            problems.append(f"the reason does not say {case.expect!r}")
        written = snapshot(folder) - before
        if written:
            problems.append(f"wrote {sorted(os.path.relpath(p, folder) for p in written)[:3]}")
        if took > limit:
            problems.append(f"took {took:.1f} s")
        return problems, (lines[0] if lines else "")
    finally:
        for root, dirs, _ in os.walk(folder):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o755)
        shutil.rmtree(folder, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--mpiexec")
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--sample-every", type=int, default=20)
    parser.add_argument("--limit", type=float, default=10.0)
    parser.add_argument("--part", choices=("all", "quick", "rest"), default="all")
    parser.add_argument("--quick-every", type=int, default=5)
    parser.add_argument("--verbose", action="store_true", help="print every case's line")
    options = parser.parse_args()
    binary = os.path.abspath(options.binary)
    every = list(enumerate(cases()))
    if options.part != "all":
        quick = options.part == "quick"
        every = [(i, case) for i, case in every if (i % options.quick_every == 0) == quick]
    corpus = [case for _, case in every]
    runs = [(case, None) for case in corpus]
    if options.mpiexec:
        runs += [(case, options.mpiexec) for i, case in every if i % options.sample_every == 0]
    start = time.monotonic()
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
        futures = {pool.submit(run, case, binary, mpiexec, options.ranks, options.limit): (case, mpiexec)
                   for case, mpiexec in runs}
        for future in concurrent.futures.as_completed(futures):
            case, mpiexec = futures[future]
            problems, line = future.result()
            how = f"np {options.ranks}" if mpiexec else "singleton"
            if problems:
                failed += 1
                print(f"FAIL {case.where} ({how}) {case.what}: {'; '.join(problems)}; printed: {line}")
            elif options.verbose:
                print(f"ok   {case.where} ({how}) {case.what}: {line}")
    print(f"{len(runs) - failed} of {len(runs)} runs passed ({len(corpus)} cases of part "
          f"{options.part}, "
          f"{len(runs) - len(corpus)} of them again at np {options.ranks}) in "
          f"{time.monotonic() - start:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
