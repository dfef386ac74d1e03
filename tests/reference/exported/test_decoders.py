"""The standard cross-entropy of a decoder's logits against the next tokens (decoders.batch) is
transformers' own causal-LM loss (decoders.loss on decoders.hf_batch): the per-token losses the
exported graph shows are those of the loss Hugging Face trains with."""
import unittest

import torch

import decoders
from splitstep_analysis.export import standard_loss


class DecoderLoss(unittest.TestCase):
    def test_next_token_cross_entropy_is_transformers_causal_lm_loss(self):
        for factory in (decoders.gpt2, decoders.llama):
            with self.subTest(factory.__name__):
                model = factory()
                inputs, targets = decoders.batch()
                ids, labels = decoders.hf_batch()
                ours = standard_loss("cross-entropy")(model(inputs), targets)
                theirs = decoders.loss(model(ids), labels)
                torch.testing.assert_close(ours, theirs, rtol=1e-6, atol=0)
                # Not a loss that would agree with anything: another target moves it.
                self.assertGreater(
                    abs(standard_loss("cross-entropy")(model(inputs), inputs) - theirs), 1e-3)


if __name__ == "__main__":
    unittest.main()
