"""splitstep-analysis scaling on files of two rank counts."""
import unittest

from splitstep_analysis.schema import normalise
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

    def test_the_files_catalogue_says_which_collectives_it_scales(self):
        # A build whose catalogue gives reduce_scatter's busbw the table, and allreduce's not.
        facts = {name: {"root": None, "reduction": "sum", "nccl_tests_binary": f"{name}_perf",
                        "verdicts": ["scaling-busbw"] if name == "reduce_scatter" else []}
                 for name in ("allreduce", "reduce_scatter")}
        paths = []
        for ranks in (2, 4):
            document = normalise({"schema": "splitstep.results/1", "plan": {}, "ranks": [],
                                  "metadata": {"world_size": ranks},
                                  "cases": [case("allreduce", 1 << 20, 15e-6, 70.0),
                                            case("reduce_scatter", 1 << 20, 15e-6, 30.0 * ranks)]},
                                 "<test>")
            document["schema"] = "splitstep.results/2"
            document["metadata"]["catalogue"]["collective_facts"] = facts
            paths.append(self.write(f"np{ranks}.json", document))
        result = run_command("scaling", *paths, process=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("### NCCL reduce_scatter", result.stdout)
        self.assertNotIn("allreduce", result.stdout)
        self.assertIn("| 1048576 | 60.00 | 120.00 |", result.stdout)

    def test_files_without_either_table_or_rank_count(self):
        empty = self.write("empty.json", {"schema": "splitstep.results/1", "metadata": {},
                                          "cases": []})
        result = run_command("scaling", empty)
        self.assertEqual(result.returncode, 2)
        self.assertIn("no NCCL fp32 busbw of a collective the files scale (allreduce) and no "
                      "derived step figures", result.stderr)
        unsized = self.write("unsized.json", {"schema": "splitstep.results/1", "metadata": {},
                                              "cases": [case("allreduce", 8, 1e-5, 1.0)]})
        result = run_command("scaling", unsized)
        self.assertEqual(result.returncode, 2)
        self.assertIn("metadata.world_size is missing", result.stderr)


if __name__ == "__main__":
    unittest.main()
