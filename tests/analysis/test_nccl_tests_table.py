"""analysis/nccl_tests_table.py on output as nccl-tests prints it."""
import os
import subprocess
import sys
import tempfile
import unittest

ANALYSIS = os.path.join(os.path.dirname(__file__), "..", "..", "analysis")
sys.path.insert(0, ANALYSIS)

from nccl_tests_table import parse  # noqa: E402

OUTPUT = """\
# nThread 1 nGpus 1 minBytes 8 maxBytes 4294967296 step: 2(factor) warmup iters: 5 iters: 20
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
           8             2     float     sum      -1    10.97    0.00    0.00      0    10.50    0.00    0.00      0
    33554432       8388608     float     sum      -1   141.20  237.64  237.64      0   140.90  238.15  238.15      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 118.8
"""


class NcclTestsTableTest(unittest.TestCase):
    def test_data_rows_give_size_and_the_out_of_place_time_and_busbw(self):
        rows = parse(OUTPUT.splitlines())
        self.assertEqual(rows, [(8, 10.97, 0.0), (33554432, 141.20, 237.64)])

    def test_the_command_line_writes_the_reference_csv(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write(OUTPUT)
        try:
            out = subprocess.run([sys.executable, os.path.join(ANALYSIS, "nccl_tests_table.py"),
                                  "allreduce", f.name], check=True, capture_output=True,
                                 text=True).stdout
        finally:
            os.unlink(f.name)
        self.assertEqual(out.splitlines(), ["collective,size_bytes,time_us,busbw_gbps,label",
                                            "allreduce,8,10.97,0.0,nccl-tests",
                                            "allreduce,33554432,141.2,237.64,nccl-tests"])


if __name__ == "__main__":
    unittest.main()
