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
    """Figures as (tag, value, key): the typed key the projection selects by."""
    return {"suite": suite, "subject": subject, "title": "t", "findings": [], "assumptions": [],
            "figures": [{"tag": tag, "name": tag, "unit": "s", "value": value, "per_rank": [],
                         "note": "", "key": key} for tag, value, key in figures]}


def projected_step(ranks, mode):
    return {"figure": "step/projection", "ranks": ranks, "mode": mode}


def projected_allreduce(ranks):
    return {"figure": "collective/projection/time", "collective": "allreduce",
            "backend": "nccl", "dtype": "fp32", "placement": "out", "ranks": ranks}


def step_time(mode):
    return {"figure": "step/time", "mode": mode}


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
            derived("mlp bf16", "step", [
                ("step/projection/N=4/T_seq", 0.050, projected_step(4, "sequential")),
                ("step/projection/N=4/T_ddp", 0.045, projected_step(4, "overlap")),
                ("step/projection/N=8/T_seq", 0.055, projected_step(8, "sequential"))]),
            derived("nccl fp32", "allreduce", [
                (at + "4/time", 0.005, projected_allreduce(4)),
                (at + "4/busbw", 300.0, {}),
                (at + "8/time", 0.006, projected_allreduce(8))])])
        measured = self.write_run("np4.json", 4, [case(1 << 20, 30e-6), case(1 << 30, 0.004)], [
            derived("mlp bf16", "step", [("step/time/sequential", 0.052, step_time("sequential")),
                                         ("step/time/overlap", 0.050, step_time("overlap"))])])
        done = self.run_check(source, measured)
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        # N=4 only: the 8-rank projections have no measurement to meet.
        self.assertEqual(len(lines), 4, done.stdout)
        row = [line for line in lines if "allreduce nccl fp32 out of place 1073741824 B" in line][0]
        self.assertIn("1.25", row.split())  # 5 ms projected against 4 ms measured
        row = [line for line in lines if "step mlp bf16 overlap" in line][0]
        self.assertIn("0.9", row.split())  # 45 ms against 50 ms

    def test_a_figure_is_chosen_by_its_key_not_its_tag(self):
        # A tag that reads like a projection but whose key is another figure's is left alone.
        source = self.write_run("np2.json", 2, [case(1 << 30, 3.3e-3)], [
            derived("mlp bf16", "step", [("step/projection/N=4/T_seq", 0.050, {})])])
        measured = self.write_run("np4.json", 4, [case(1 << 30, 0.004)], [
            derived("mlp bf16", "step", [("step/time/sequential", 0.052,
                                          step_time("sequential"))])])
        done = self.run_check(source, measured)
        self.assertEqual(done.returncode, 2)
        self.assertIn("nothing to compare", done.stderr)

    def test_nothing_to_compare(self):
        source = self.write_run("np2.json", 2, [case(1 << 20, 20e-6)], [
            derived("mlp bf16", "step", [("step/projection/N=8/T_seq", 0.055,
                                          projected_step(8, "sequential"))])])
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
