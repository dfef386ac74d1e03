"""splitstep-analysis export: an archive torch.export.load reads back, with splitstep.json
holding the format version, the parameters and buffers in registration order, the batch's
shapes, dtypes and integer ranges, and the FLOPs of a step as FlopCounterMode counts them; and
each bad input one line with status 2. Needs torch."""
import contextlib
import json
import os
import sys
import textwrap
import zipfile

import torch
from torch.utils.flop_counter import FlopCounterMode

from support import FilesTestCase, run_command

FACTORIES = textwrap.dedent("""
    import torch

    def model():
        torch.manual_seed(0)
        return torch.nn.Sequential(torch.nn.Embedding(10, 4), torch.nn.Linear(4, 3),
                                   torch.nn.BatchNorm1d(5))

    def batch():
        return torch.tensor([[1, 2, 3, 4, 5], [6, 7, 8, 9, 2]]), torch.tensor([[0, 1, 2, 0, 1]] * 2)

    def linears():
        return torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.GELU(), torch.nn.Linear(5, 3))

    def linears_batch():
        return torch.randn(4, 6), torch.randn(4, 3)

    # The query a product of the input, the keys and values the batch's, of half as many heads
    # (grouped-query attention).
    class Attention(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.query = torch.nn.Linear(8, 8, bias=False)

        def forward(self, x, key, value):
            return torch.nn.functional.scaled_dot_product_attention(self.query(x), key, value,
                                                                    enable_gqa=True)

    def attention():
        return Attention()

    def attention_batch():  # batch 2, 4 heads (2 for keys and values), 6 positions, 8 wide
        return (torch.randn(2, 4, 6, 8), torch.randn(2, 2, 6, 8), torch.randn(2, 2, 6, 8),
                torch.randn(2, 4, 6, 8))

    class Detached(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = torch.nn.Embedding(10, 4)

        def forward(self, x):
            return self.embedding(x).detach()

    def detached():
        return Detached()

    def no_parameters():
        return torch.nn.GELU()

    def not_a_module():
        return 3

    def one_tensor():
        return torch.zeros(2, 4)

    def a_list():
        return torch.zeros(2, 4), [1]

    def raises():
        raise RuntimeError("no GPU here")

    def loss(output, target):
        return (output.sum(-1) - target).pow(2).mean()

    # A stand-in for transformers' masking_utils (installed by the test): a decision on the
    # positions that eager makes by reading them, and that a trace cannot make.
    import sys as _sys

    def masking():
        return _sys.modules["transformers.masking_utils"]

    # Attention masked unless the positions are one sequence per row; the positions made from
    # the length (`fed`: False) or taken from the batch (True).
    class Decoder(torch.nn.Module):
        def __init__(self, fed):
            super().__init__()
            self.fed = fed
            self.proj = torch.nn.Linear(8, 8)

        def forward(self, x, positions):
            if not self.fed:
                positions = torch.arange(x.shape[1]).expand(x.shape[0], -1)
            packed = masking().find_packed_sequence_indices(positions)
            q = self.proj(x).unsqueeze(1)
            if packed is None:
                out = torch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
            else:
                mask = packed[:, None, :, None] == packed[:, None, None, :]
                out = torch.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=mask)
            return out.squeeze(1)

    def unfed():
        torch.manual_seed(0)
        return Decoder(False)

    def fed():
        torch.manual_seed(0)
        return Decoder(True)

    def decoder_batch():
        return (torch.randn(2, 5, 8), torch.arange(5).expand(2, -1).contiguous(),
                torch.randn(2, 5, 8))

    # A rotary embedding's form in transformers 5.17 (installed by the test as a modeling
    # module): a product forced to fp32 by the release's maybe_autocast.
    class ForcedFp32(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Linear(4, 4)

        def forward(self, x):
            modeling = _sys.modules["transformers.models.stand_in.modeling_stand_in"]
            with modeling.maybe_autocast(x.device.type, enabled=False):
                product = x.float() @ x.float().T
            return self.proj(x) + product.sum()

    def forced_fp32():
        torch.manual_seed(0)
        return ForcedFp32()

    def forced_fp32_batch():
        return torch.randn(3, 4), torch.randn(3, 4)
""")


def find_packed_sequence_indices(positions):
    """Eagerly None for one sequence per row (a read of the values); traced, the indices."""
    indices = (positions.diff(dim=-1, prepend=positions[:, :1] - 1) != 1).cumsum(-1)
    tracing = torch.compiler.is_exporting()
    return indices if tracing or bool(indices[:, -1].any()) else None


def maybe_autocast(device_type, dtype=None, enabled=True, cache_enabled=None):
    """transformers 5.17's: autocast entered only where it is on, or asked to be."""
    if torch.is_autocast_enabled(device_type) or enabled:
        return torch.autocast(device_type, dtype=dtype, enabled=enabled,
                              cache_enabled=cache_enabled)
    return contextlib.nullcontext()


class ExportTest(FilesTestCase):
    def setUp(self):
        super().setUp()
        self.write("user_model.py", FACTORIES)
        sys.path.insert(0, self.dir.name)
        self.out = os.path.join(self.dir.name, "model.pt2")

    def tearDown(self):
        sys.path.remove(self.dir.name)
        sys.modules.pop("user_model", None)
        super().tearDown()

    def export(self, model="user_model:model", batch="user_model:batch", *more):
        return run_command("export", model, "--batch", batch, "-o", self.out, *more)

    def test_the_archive_holds_the_graph_and_what_splitstep_needs(self):
        done = self.export()
        self.assertEqual(done.returncode, 0, done.stderr)
        program = torch.export.load(self.out)
        self.assertEqual(list(program.graph_signature.parameters),
                         ["model.0.weight", "model.1.weight", "model.1.bias", "model.2.weight",
                          "model.2.bias"])
        with zipfile.ZipFile(self.out) as archive:
            name = next(n for n in archive.namelist() if n.endswith("extra/splitstep.json"))
            meta = json.loads(archive.read(name))
        self.assertEqual(meta["format_version"], 2)
        self.assertEqual(meta["parameters"], list(program.graph_signature.parameters))
        self.assertEqual(meta["buffers"], ["model.2.running_mean", "model.2.running_var",
                                           "model.2.num_batches_tracked"])
        self.assertEqual(meta["batch"][0], {"name": meta["batch"][0]["name"], "shape": [2, 5],
                                            "dtype": "int64", "range": [1, 9]})
        self.assertEqual(meta["batch"][1]["range"], [0, 2])
        # The eager forward that checked the model ran BatchNorm in training mode; the archive
        # keeps the running statistics the factory made.
        self.assertTrue(torch.equal(program.state_dict["model.2.running_mean"], torch.zeros(5)))
        self.assertEqual(int(program.state_dict["model.2.num_batches_tracked"]), 0)
        self.assertIn("aten.cross_entropy_loss", str(program.graph))

    def test_a_mask_decision_on_positions_no_input_feeds_is_eagers(self):
        # transformers.masking_utils as the exporter finds it: a module of that name.
        stand_in = type(sys)("transformers.masking_utils")
        stand_in.find_packed_sequence_indices = find_packed_sequence_indices
        sys.modules["transformers.masking_utils"] = stand_in
        try:
            graphs = {}
            for name in ("unfed", "fed"):
                done = self.export(f"user_model:{name}", "user_model:decoder_batch", "--loss",
                                   "mse")
                self.assertEqual(done.returncode, 0, done.stderr)
                graphs[name] = str(torch.export.load(self.out).graph)
        finally:
            del sys.modules["transformers.masking_utils"]
        # Positions made from the length: eager's decision (no packing, is_causal) replayed.
        self.assertNotIn("cumsum", graphs["unfed"])
        self.assertRegex(graphs["unfed"], r"scaled_dot_product_attention\.default\]\(args = \([^)]*, True\)")
        # Positions from the batch: a decision on its values, left to the trace (the mask kept).
        self.assertIn("cumsum", graphs["fed"])
        self.assertIn("eq.Tensor", graphs["fed"])

    def test_a_region_forced_to_fp32_is_kept_in_the_graph(self):
        # transformers' modules as the exporter finds them: the helper's own module, and a
        # modeling module holding it by name.
        generic = type(sys)("transformers.utils.generic")
        modeling = type(sys)("transformers.models.stand_in.modeling_stand_in")
        generic.maybe_autocast = modeling.maybe_autocast = maybe_autocast
        # Set and taken out by name: patch.dict would also drop what the export imports.
        sys.modules.update({generic.__name__: generic, modeling.__name__: modeling})
        try:
            done = self.export("user_model:forced_fp32", "user_model:forced_fp32_batch",
                               "--loss", "mse")
        finally:
            del sys.modules[generic.__name__], sys.modules[modeling.__name__]
        self.assertEqual(done.returncode, 0, done.stderr)
        # Traced with autocast off, the region entered all the same: a scope that turns autocast
        # off, which splitstep's bf16 honours as eager's does.
        scopes = [node.args[:3] for node in torch.export.load(self.out).graph.nodes
                  if node.op == "call_function" and "wrap_with_autocast" in str(node.target)]
        self.assertEqual([(device, enabled) for device, _, enabled in scopes], [("cpu", False)])
        self.assertIs(modeling.maybe_autocast, maybe_autocast)  # put back after the export

    def meta(self):
        with zipfile.ZipFile(self.out) as archive:
            name = next(n for n in archive.namelist() if n.endswith("extra/splitstep.json"))
            return json.loads(archive.read(name))

    def test_the_flops_of_a_step_are_flop_counter_modes(self):
        done = self.export()
        self.assertEqual(done.returncode, 0, done.stderr)
        import user_model
        model, (tokens, target) = user_model.model(), user_model.batch()
        with FlopCounterMode(display=False) as counter:
            logits = model(tokens)
            torch.nn.functional.cross_entropy(logits.reshape(-1, 3), target.reshape(-1)).backward()
        # The Linear(4, 3) on 2 x 5 tokens, forward, and backward for its weight and its input
        # (the embedding's output); the embedding and BatchNorm count none.
        self.assertEqual(counter.get_total_flops(), 3 * 2 * 10 * 4 * 3)
        self.assertEqual(self.meta()["flop_per_step"], counter.get_total_flops())
        self.assertIn(f"{counter.get_total_flops()} FLOP per step", done.stdout)

    def test_a_stack_of_linears_counts_two_flops_per_multiply_add(self):
        done = self.export("user_model:linears", "user_model:linears_batch", "--loss", "mse")
        self.assertEqual(done.returncode, 0, done.stderr)
        rows = 4
        forward = 2 * rows * (6 * 5 + 5 * 3)
        # Backward: every weight's gradient, and the input gradient of all but the first layer
        # (autograd computes none for the batch, which needs none).
        backward = forward + 2 * rows * 5 * 3
        self.assertEqual(self.meta()["flop_per_step"], forward + backward)

    def test_attention_on_the_cpu_is_counted(self):
        # FlopCounterMode of torch 2.11 has no formula for CPU attention; the exporter adds the
        # library's own: two products forward (scores, output), five backward.
        done = self.export("user_model:attention", "user_model:attention_batch", "--loss", "mse")
        self.assertEqual(done.returncode, 0, done.stderr)
        batch, heads, positions, width = 2, 4, 6, 8
        query = 2 * batch * heads * positions * width * width  # its weight's gradient as much
        product = 2 * batch * heads * positions * positions * width
        self.assertEqual(self.meta()["flop_per_step"], 2 * query + 7 * product)

    def test_a_loss_function_of_the_user_is_in_the_graph(self):
        done = self.export("user_model:model", "user_model:batch", "--loss", "user_model:loss")
        self.assertEqual(done.returncode, 0, done.stderr)
        graph = str(torch.export.load(self.out).graph)
        self.assertIn("aten.pow", graph)
        self.assertNotIn("cross_entropy", graph)

    def test_bad_input_is_one_line_and_status_2(self):
        cases = {
            ("user_model:no_parameters", "user_model:batch"): "has no parameters",
            ("user_model:not_a_module", "user_model:batch"): "returned int, not an nn.Module",
            ("user_model:model", "user_model:one_tensor"): "returned Tensor, not a tuple",
            ("user_model:model", "user_model:a_list"): "element 1 is list, not a tensor",
            ("user_model:raises", "user_model:batch"): "failed: RuntimeError: no GPU here",
            ("user_model:detached", "user_model:batch"):
                "backward of the loss failed: element 0 of tensors does not require grad",
            ("no_such_module:model", "user_model:batch"): "cannot import no_such_module",
            ("user_model:missing", "user_model:batch"): "has no function missing",
            ("user_model", "user_model:batch"): "is not MODULE:NAME",
        }
        for (model, batch), message in cases.items():
            with self.subTest(model=model, batch=batch):
                done = self.export(model, batch)
                self.assertEqual(done.returncode, 2)
                self.assertEqual(len(done.stderr.splitlines()), 1, done.stderr)
                self.assertIn(message, done.stderr)
                self.assertFalse(os.path.exists(self.out))
