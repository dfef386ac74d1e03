"""Archives splitstep's graph reader and interpreter refuse, each in one line with status 2,
before anything runs: a missing file, a truncated one, a file that is not an archive, an archive
of another exporter format version (the first, without the FLOPs of a step, among them), one
without splitstep's record, a negative FLOP count, and a graph with operations and arguments the
interpreter cannot run (every one named; control flow with the module it came from). And the check itself: per-sample losses swapped between
two samples, which leave the loss as it was, are caught.

  EXPORTED_CHECK=build/tests/splitstep_exported_check python test_bad_archives.py
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest
import zipfile

HERE = pathlib.Path(__file__).resolve().parent
CHECK = os.environ["EXPORTED_CHECK"]


def rewrite(source, target, edit):
    """Copies the zip `source` to `target`, passing each record through edit(name, bytes)."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for info in old.infolist():
            data = edit(info.filename, old.read(info.filename))
            if data is not None:
                new.writestr(info, data)


class BadArchiveTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.good = pathlib.Path(cls.dir.name) / "good.pt2"
        subprocess.run([sys.executable, "-m", "splitstep_analysis", "export", "sequential:model",
                        "--batch", "sequential:batch", "--loss", "mse", "-o", cls.good],
                       cwd=HERE, check=True, capture_output=True)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def refused(self, path, message):
        done = subprocess.run([CHECK, str(path), "/nonexistent/reference.pt"],
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 2, done.stdout + done.stderr)
        self.assertEqual(len(done.stderr.splitlines()), 1, done.stderr)
        self.assertIn(message, done.stderr)

    def path(self, name):
        return pathlib.Path(self.dir.name) / name

    def test_the_good_archive_gets_past_the_reader(self):
        # Its only complaint is the missing reference: the archive itself was read and planned.
        self.refused(self.good, "cannot read /nonexistent/reference.pt")

    def peak_rss(self, path):
        """What the check printed and its peak resident memory in bytes, from a Python process
        whose only child it is."""
        probe = ("import resource, subprocess, sys\n"
                 "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
                 "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)\n"
                 "print(done.stderr.strip())")
        out = subprocess.run([sys.executable, "-c", probe, CHECK, str(path),
                              "/nonexistent/reference.pt"],
                             capture_output=True, text=True, check=True).stdout.splitlines()
        return out[1], int(out[0])

    def test_a_weight_record_larger_than_its_view_costs_only_its_view(self):
        # One weight's record padded with 1 GiB of zeros and deflated: a file of about 1 MiB
        # whose record inflates to a gigabyte. Only the bytes its view reaches are read.
        padded = False

        def pad(name, data):
            nonlocal padded
            if "/data/weights/" in name and not padded:
                padded = True
                return data + bytes(1 << 30)
            return data
        with zipfile.ZipFile(self.good) as old, zipfile.ZipFile(
                self.path("bomb.pt2"), "w", zipfile.ZIP_DEFLATED) as new:
            for info in old.infolist():
                new.writestr(info.filename, pad(info.filename, old.read(info.filename)))
        self.assertTrue(padded)
        self.assertLess(self.path("bomb.pt2").stat().st_size, 8 << 20)
        said, bomb = self.peak_rss(self.path("bomb.pt2"))
        self.assertIn("cannot read /nonexistent/reference.pt", said)
        _, good = self.peak_rss(self.good)
        self.assertLess(bomb - good, 128 << 20, f"{bomb} bytes at peak against {good}")

    def test_a_missing_file(self):
        self.refused(self.path("missing.pt2"), "missing.pt2: no such file")

    def test_a_truncated_file(self):
        data = self.good.read_bytes()
        self.path("cut.pt2").write_bytes(data[: len(data) // 2])
        self.refused(self.path("cut.pt2"), "cut.pt2: not a readable archive")

    def test_a_file_that_is_not_an_archive(self):
        self.path("text.pt2").write_text("not a zip\n")
        self.refused(self.path("text.pt2"), "text.pt2: not a readable archive")

    def edit_meta(self, target, edit):
        def edit_record(name, data):
            if name.endswith("extra/splitstep.json"):
                meta = json.loads(data)
                edit(meta)
                return json.dumps(meta)
            return data
        rewrite(self.good, self.path(target), edit_record)
        return self.path(target)

    def test_an_archive_of_another_format_version(self):
        path = self.edit_meta("v99.pt2", lambda meta: meta.update(format_version=99))
        self.refused(path, "exported in format 99, this splitstep reads format 2")

    def test_an_archive_of_format_1_has_no_flops_and_is_exported_again(self):
        def edit(meta):
            meta["format_version"] = 1
            del meta["flop_per_step"]
        self.refused(self.edit_meta("v1.pt2", edit),
                     "exported in format 1, this splitstep reads format 2: export it again")

    def test_a_negative_flop_count(self):
        path = self.edit_meta("negative.pt2", lambda meta: meta.update(flop_per_step=-1))
        self.refused(path, "negative.pt2: a negative flop_per_step")

    def test_an_edited_batch_record_is_refused_before_the_run(self):
        # Each of these passed the start check once and failed mid-run (a negative dimension, an
        # overflowing count, mismatched products) or was truncated and taken.
        def batch0(**fields):
            return lambda meta: meta["batch"][0].update(fields)
        for name, edit, message in (
                ("version.pt2", lambda meta: meta.update(format_version=2.5),
                 "format_version is 2.5, not an integer"),
                ("fraction.pt2", batch0(shape=[4.5, 16]),
                 "batch tensor batch_0's shape is 4.5, not an integer"),
                ("negative.pt2", batch0(shape=[-8, 16]),
                 "batch tensor batch_0 has a size -8 in its shape [-8, 16]"),
                ("zero.pt2", batch0(shape=[0, 16]), "has a size 0 in its shape [0, 16]"),
                ("huge.pt2", batch0(shape=[2 ** 62, 16]),
                 "batch tensor batch_0 has the shape [4611686018427387904, 16]: more than 2^34"),
                ("wide.pt2", batch0(shape=[2 ** 32, 2 ** 32]), "more than 2^34 elements"),
                ("none.pt2", batch0(shape=[]), "has the shape []: no batch dimension"),
                ("columns.pt2", batch0(shape=[4, 17]),
                 "batch tensor batch_0 is [4, 17] Float, the graph takes [4, 16] Float"),
                ("rows.pt2", batch0(shape=[16, 16]),
                 "batch tensor batch_0 is [16, 16] Float, the graph takes [4, 16] Float"),
                ("double.pt2", batch0(dtype="float64"),
                 "batch tensor batch_0 is [4, 16] Double, the graph takes [4, 16] Float"),
                ("float-range.pt2", batch0(range=[0, 3]), "of dtype Float has a range"),
                ("range.pt2", batch0(dtype="int64", range=[-2 ** 63, 2 ** 63 - 1]),
                 "has the range [-9223372036854775808, 9223372036854775807], which its dtype "
                 "Long cannot draw"),
                ("int8.pt2", batch0(dtype="int8", range=[0, 300]), "which its dtype Char")):
            with self.subTest(name=name):
                self.refused(self.edit_meta(name, edit), message)

    def test_weights_of_another_shape_than_the_graph_takes(self):
        # The same bytes under the transposed shape: the record is long enough, the graph's
        # product would fail mid-run.
        def edit(name, data):
            if not name.endswith("data/weights/model_weights_config.json"):
                return data
            config = json.loads(data)
            meta = config["config"]["model.0.weight"]["tensor_meta"]
            meta["sizes"] = [{"as_int": 16}, {"as_int": 32}]
            meta["strides"] = [{"as_int": 32}, {"as_int": 1}]
            return json.dumps(config)
        rewrite(self.good, self.path("transposed.pt2"), edit)
        self.refused(self.path("transposed.pt2"),
                     "parameter model.0.weight is [16, 32] Float, the graph takes [32, 16] Float")

    def test_a_torch_export_archive_without_splitstep_record(self):
        rewrite(self.good, self.path("plain.pt2"),
                lambda name, data: None if name.endswith("extra/splitstep.json") else data)
        self.refused(self.path("plain.pt2"), "not an exported model: no extra/splitstep.json")

    def test_operations_it_cannot_run_are_all_named(self):
        def edit(name, data):
            if not name.endswith("models/model.json"):
                return data
            program = json.loads(data)
            nodes = program["graph_module"]["graph"]["nodes"]
            nodes[0]["target"] = "torch.ops.aten.no_such_op.default"
            nodes[1]["target"] = "_operator.mul"
            return json.dumps(program)
        rewrite(self.good, self.path("ops.pt2"), edit)
        self.refused(self.path("ops.pt2"), "the graph has what splitstep cannot run: "
                                           "_operator.mul, torch.ops.aten.no_such_op.default")

    def test_an_argument_the_operation_does_not_take(self):
        def edit(name, data):
            if not name.endswith("models/model.json"):
                return data
            program = json.loads(data)
            program["graph_module"]["graph"]["nodes"][0]["inputs"].append(
                {"name": "bogus", "arg": {"as_int": 1}, "kind": 2})
            return json.dumps(program)
        rewrite(self.good, self.path("arg.pt2"), edit)
        self.refused(self.path("arg.pt2"), "torch.ops.aten.linear.default argument bogus")


    def test_control_flow_is_named_with_the_module_it_came_from(self):
        # scopes.py's no_grad regions are higher-order ops the interpreter runs; the same node
        # made a torch.cond, which it does not, is refused with the module that holds it.
        scoped = self.path("scopes.pt2")
        subprocess.run([sys.executable, "-m", "splitstep_analysis", "export", "scopes:model",
                        "--batch", "scopes:batch", "-o", scoped],
                       cwd=HERE, check=True, capture_output=True)
        self.refused(scoped, "cannot read /nonexistent/reference.pt")

        def edit(name, data):
            if not name.endswith("models/model.json"):
                return data
            program = json.loads(data)
            for node in program["graph_module"]["graph"]["nodes"]:
                if node["target"].endswith("wrap_with_set_grad_enabled"):
                    node["target"] = "torch.ops.higher_order.cond"
            return json.dumps(program)
        rewrite(scoped, self.path("cond.pt2"), edit)
        self.refused(self.path("cond.pt2"), "the graph has what splitstep cannot run: "
                                            "torch.ops.higher_order.cond (in module rot)")


class CheckTest(unittest.TestCase):
    def test_per_sample_losses_swapped_are_caught_where_the_loss_is_the_same(self):
        import torch

        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, "reference.py", "resnet:model", "--batch",
                            "resnet:batch", "--loss", "cross-entropy", "--out-dir", tmp],
                           cwd=HERE, check=True, capture_output=True)
            archive, reference = pathlib.Path(tmp) / "model.pt2", pathlib.Path(tmp) / "reference.pt"
            good = subprocess.run([CHECK, archive, reference], capture_output=True, text=True)
            self.assertEqual(good.returncode, 0, good.stdout + good.stderr)
            saved = torch.load(reference)
            self.assertNotEqual(float(saved["samples"][0]), float(saved["samples"][1]))
            saved["samples"] = saved["samples"].flip(0)
            torch.save(saved, reference)
            swapped = subprocess.run([CHECK, archive, reference], capture_output=True, text=True)
            self.assertEqual(swapped.returncode, 1, swapped.stdout + swapped.stderr)
            self.assertIn("per-sample losses", swapped.stdout)
            # The one difference: the loss and the gradients still agree.
            self.assertEqual(len(swapped.stdout.splitlines()), 1, swapped.stdout)


if __name__ == "__main__":
    unittest.main()
