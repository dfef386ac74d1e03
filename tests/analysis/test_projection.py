"""splitstep-analysis projection on a 2-rank source and a 4-rank measurement."""
import unittest

from support import FilesTestCase, run_command


def case(size, median):
    return {"suite": "allreduce", "case": f"nccl fp32 {size}", "series": "allreduce",
            "unit": "s", "clock": "device (CUDA events)", "notes": [], "warnings": [],
            "skipped": False, "ranks": [], "check": {"checked": 1, "wrong": 0},
            "params": {"backend": "nccl", "dtype": "fp32", "size": str(size), "bytes": str(size),
                       "placement": "out of place"},
            "rates": {}, "across_ranks": {"min": median, "median": median, "max": median},
            "slowest_rank": 0}


def derived(subject, suite, figures):
    return {"suite": suite, "subject": subject, "title": "t", "findings": [], "assumptions": [],
            "figures": [{"tag": tag, "name": tag, "unit": "s", "value": value, "per_rank": [],
                         "note": ""} for tag, value in figures]}


class ProjectionTest(FilesTestCase):
    def write_run(self, name, ranks, cases, derived_results):
        return self.write(name, {"schema": "splitstep.results/1",
                                 "metadata": {"world_size": ranks}, "plan": {}, "ranks": [],
                                 "cases": cases, "derived": derived_results})

    def run_check(self, *paths):
        return run_command("projection", *paths, process=True)

    def test_projected_beside_measured_at_each_rank_count(self):
        at = "collective/projection/allreduce/nccl/fp32/out/N="
        source = self.write_run("np2.json", 2, [case(1 << 20, 20e-6), case(1 << 30, 3.3e-3)], [
            derived("mlp bf16", "step", [("step/projection/N=4/T_seq", 0.050),
                                         ("step/projection/N=4/T_ddp", 0.045),
                                         ("step/projection/N=8/T_seq", 0.055)]),
            derived("nccl fp32", "allreduce", [(at + "4/time", 0.005), (at + "8/time", 0.006)])])
        measured = self.write_run("np4.json", 4, [case(1 << 20, 30e-6), case(1 << 30, 0.004)], [
            derived("mlp bf16", "step", [("step/time/sequential", 0.052),
                                         ("step/time/overlap", 0.050)])])
        done = self.run_check(source, measured)
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        # N=4 only: the 8-rank projections have no measurement to meet.
        self.assertEqual(len(lines), 4, done.stdout)
        row = [line for line in lines if "allreduce nccl fp32 out of place 1073741824 B" in line][0]
        self.assertIn("1.25", row.split())  # 5 ms projected against 4 ms measured
        row = [line for line in lines if "step mlp bf16 T_ddp" in line][0]
        self.assertIn("0.9", row.split())  # 45 ms against 50 ms

    def test_nothing_to_compare(self):
        source = self.write_run("np2.json", 2, [case(1 << 20, 20e-6)], [
            derived("mlp bf16", "step", [("step/projection/N=8/T_seq", 0.055)])])
        measured = self.write_run("np4.json", 4, [case(1 << 20, 30e-6)], [])
        done = self.run_check(source, measured)
        self.assertEqual(done.returncode, 2)
        self.assertIn("nothing to compare", done.stderr)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
        done = self.run_check(self.write_run("none.json", 2, [], []), measured)
        self.assertEqual(done.returncode, 2)
        self.assertIn("none.json: no derived figures", done.stderr)


if __name__ == "__main__":
    unittest.main()
