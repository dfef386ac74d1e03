"""A field's names and a family's parts, read from the file's catalogue."""
import unittest

import pandas as pd

from splitstep_analysis.vocabulary import (EARLIER, FRAME_ATTRIBUTE, field_values, in_order,
                                           parts, vocabulary)


def document(families):
    return {"metadata": {"catalogue": {"suites": [], "collectives": [], "families": families}}}


def frame_of(document_):
    frame = pd.DataFrame({"mode": ["single", "none", "future"]})
    frame.attrs[FRAME_ATTRIBUTE] = vocabulary(document_)
    return frame


class VocabularyTest(unittest.TestCase):
    def test_the_catalogue_gives_the_names_and_their_order(self):
        listed = document({"step": {
            "fields": [{"name": "mode", "type": "string", "values": ["single", "none"]},
                       {"name": "model", "type": "string"}],
            "rates": [], "parts": ["load", "compute"]}})
        frame = frame_of(listed)
        self.assertEqual(field_values(frame, "step", "mode"), ["single", "none"])
        self.assertEqual(field_values(frame, "step", "model"), [])
        self.assertEqual(parts(frame, "step"), ["load", "compute"])
        # Names the catalogue does not list come after its own, sorted.
        self.assertEqual(in_order(frame["mode"], "step", "mode", frame),
                         ["single", "none", "future"])

    def test_a_file_before_the_lists_reads_with_what_its_builds_declared(self):
        earlier = document({"step": {"fields": [{"name": "mode", "type": "string"}],
                                     "rates": []}})
        self.assertEqual(vocabulary(earlier), EARLIER)
        frame = frame_of(earlier)
        self.assertEqual(in_order(frame["mode"], "step", "mode", frame),
                         ["none", "single", "future"])
        self.assertEqual(parts(frame, "step")[0], "data")

    def test_a_frame_without_a_file_reads_with_the_earlier_lists(self):
        self.assertEqual(field_values(pd.DataFrame(), "matmul", "dtype"),
                         ["fp32", "tf32", "fp16", "bf16"])


if __name__ == "__main__":
    unittest.main()
