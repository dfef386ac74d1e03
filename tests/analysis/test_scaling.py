"""splitstep-analysis scaling on files of two rank counts."""
import unittest

from support import FilesTestCase, run_command
from test_results import case


class ScalingTest(FilesTestCase):
    def test_scaling_table_puts_rank_counts_side_by_side(self):
        paths = []
        for ranks, busbw, t_ddp in ((2, 70.0, 0.050), (4, 60.0, 0.055)):
            document = {"schema": "splitstep.results/1", "plan": {}, "ranks": []}
            document["metadata"] = {"world_size": ranks}
            document["cases"] = [case("allreduce", 1 << 20, 15e-6, busbw)]
            document["derived"] = [{"suite": "step", "subject": "mlp bf16", "title": "t",
                                    "findings": [],
                                    "figures": [{"tag": "step/time/overlap", "name": "T_ddp",
                                                 "unit": "s", "value": t_ddp, "per_rank": [],
                                                 "note": ""}]}]
            paths.append(self.write(f"np{ranks}.json", document))
        result = run_command("scaling", *paths, process=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        out = result.stdout
        self.assertIn("| bytes | busbw GB/s, 2 ranks | busbw GB/s, 4 ranks |", out)
        self.assertIn("| 1048576 | 70.00 | 60.00 |", out)
        self.assertIn("| mlp bf16 | 4 | - | - | 55.00 | - | - | - | - |", out)

    def test_files_without_either_table_or_rank_count(self):
        empty = self.write("empty.json", {"schema": "splitstep.results/1", "metadata": {},
                                          "cases": []})
        result = run_command("scaling", empty)
        self.assertEqual(result.returncode, 2)
        self.assertIn("no NCCL fp32 allreduce busbw and no derived step figures", result.stderr)
        unsized = self.write("unsized.json", {"schema": "splitstep.results/1", "metadata": {},
                                              "cases": [case("allreduce", 8, 1e-5, 1.0)]})
        result = run_command("scaling", unsized)
        self.assertEqual(result.returncode, 2)
        self.assertIn("metadata.world_size is missing", result.stderr)


if __name__ == "__main__":
    unittest.main()
