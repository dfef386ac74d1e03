"""Export a PyTorch model, with its loss and the shapes of its batch, for `splitstep step --model-file`.

  splitstep-analysis export my_module:make_model --batch my_module:make_batch \\
      [--loss cross-entropy|mse|MODULE:FN] -o model.pt2 [--save-batch batch.pt]

MODULE:FACTORY names a function of an importable module (the current directory is searched
first). The model factory returns an nn.Module; the batch factory returns a tuple of tensors,
the model's inputs and, last, the loss's target: the model is called on all but the last, the
loss on (output, target). The standard losses are torch.nn.functional's cross_entropy (the
output's last dimension the classes, every other dimension flattened into samples, as a
language model's logits against token ids) and mse_loss, each the mean of its per-sample
losses; MODULE:FN is any function of
(output, target) returning a scalar tensor.

The model, in training mode, and its loss are exported as one graph by torch.export.export and
saved by torch.export.save; the archive also holds extra/splitstep.json: the exporter's format
version, the parameters and buffers in registration order (DDP fills its buckets in the reverse
of that order), the batch's tensors with their shapes and dtypes, and for each integer tensor the
range splitstep draws its values from (the example's smallest value to its largest, inclusive).
The loss eager PyTorch computed on the example batch is recorded beside them, and the FLOPs of
one training step on that batch (flop_per_step: the forward of model and loss, and its
backward), as torch.utils.flop_counter.FlopCounterMode counts them: two per multiply-add of the
matrix products, convolutions and attention, what autograd actually runs in the backward (no
gradient of the batch's inputs), causal attention in full; the other operations count none.
--save-batch writes that example batch with torch.save, a file `splitstep step --batch-file`
trains on.

Exit status: 0 written, 2 bad input (a factory that cannot be imported or called, a model with no
parameters, a batch that is not a tuple of tensors, a loss without a gradient, a graph
torch.export refuses); one line on stderr.
"""
import contextlib
import copy
import importlib
import json
import pathlib
import sys
from unittest import mock

from .schema import BadInput

# Raised when the content of extra/splitstep.json changes meaning or gains a field splitstep
# needs (2: flop_per_step); splitstep refuses archives of any other version.
FORMAT_VERSION = 2
EXTRA_NAME = "splitstep.json"
STANDARD_LOSSES = ("cross-entropy", "mse")


def add_arguments(parser):
    parser.add_argument("model", metavar="MODULE:FACTORY",
                        help="function returning the nn.Module to train")
    parser.add_argument("--batch", required=True, metavar="MODULE:FACTORY",
                        help="function returning one example batch: (inputs..., target)")
    parser.add_argument("--loss", default="cross-entropy", metavar="NAME|MODULE:FN",
                        help="cross-entropy, mse or a function of (output, target) "
                             "(default: cross-entropy)")
    parser.add_argument("-o", "--output", required=True, type=pathlib.Path, metavar="FILE",
                        help="archive to write (.pt2)")
    parser.add_argument("--save-batch", type=pathlib.Path, metavar="FILE",
                        help="also write the example batch with torch.save, a file for "
                             "`splitstep step --batch-file`")


def resolve(spec, what):
    """The function `spec` (MODULE:NAME) names."""
    module_name, sep, name = spec.partition(":")
    if not sep or not module_name or not name:
        raise BadInput(f"{what} {spec!r} is not MODULE:NAME")
    if "" not in sys.path:
        sys.path.insert(0, "")
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # the user's module: any failure is bad input
        raise BadInput(f"{what} {spec}: cannot import {module_name}: {error}") from None
    function = getattr(module, name, None)
    if not callable(function):
        raise BadInput(f"{what} {spec}: {module_name} has no function {name}")
    return function


def call(function, spec, what):
    try:
        return function()
    except Exception as error:
        raise BadInput(f"{what} {spec} failed: {type(error).__name__}: {error}") from None


def standard_loss(name):
    """The mean of the per-sample losses (reduction "none"), the same value as reduction "mean":
    in the graph, the per-sample losses are the mean's operand, which splitstep can show."""
    import torch.nn.functional as F

    if name == "mse":
        def mse(output, target):
            return F.mse_loss(output, target, reduction="none").mean()
        return mse

    def cross_entropy(output, target):
        return F.cross_entropy(output.reshape(-1, output.shape[-1]), target.reshape(-1),
                               reduction="none").mean()
    return cross_entropy


def loss_function(spec):
    return standard_loss(spec) if spec in STANDARD_LOSSES else resolve(spec, "loss")


def wrapper_class():
    import torch

    class ModelWithLoss(torch.nn.Module):
        """The user's model under `model`, and the loss of its output: the graph splitstep runs."""

        def __init__(self, model, loss):
            super().__init__()
            self.model = model
            self.loss = loss

        def forward(self, *batch):
            return self.loss(self.model(*batch[:-1]), batch[-1])
    return ModelWithLoss


def batch_tensors(batch, spec):
    import torch

    if not isinstance(batch, (tuple, list)) or len(batch) < 2:
        raise BadInput(f"batch {spec} returned {type(batch).__name__}, not a tuple of tensors "
                       f"(inputs..., target)")
    for i, item in enumerate(batch):
        if not isinstance(item, torch.Tensor):
            raise BadInput(f"batch {spec}: element {i} is {type(item).__name__}, not a tensor")
    return tuple(batch)


def tensor_entry(name, tensor):
    import torch

    entry = {"name": name, "shape": list(tensor.shape), "dtype": str(tensor.dtype).removeprefix(
        "torch.")}
    if not tensor.is_floating_point() and tensor.dtype != torch.bool and tensor.numel() > 0:
        entry["range"] = [int(tensor.min()), int(tensor.max())]
    return entry


def flop_formulas():
    """FlopCounterMode formulas for what its registry lacks: CPU scaled-dot-product attention
    (pytorch/pytorch#195460), counted with the library's formulas for the other SDPA kernels.
    Keys and values of fewer heads (grouped-query attention) count as the query's heads read
    them: each query head's products are the same as against its own copy."""
    import torch
    from torch.utils import flop_counter

    aten = torch.ops.aten

    def heads(query, shape):
        return (shape[0], query[1], *shape[2:])

    def forward(query, key, value, *args, out_shape=None, **kwargs):
        return flop_counter.sdpa_flop_count(query, heads(query, key), heads(query, value))

    def backward(grad_out, query, key, value, *args, out_shape=None, **kwargs):
        return flop_counter.sdpa_backward_flop_count(grad_out, query, heads(query, key),
                                                     heads(query, value))
    formulas = {aten._scaled_dot_product_flash_attention_for_cpu: forward,
                aten._scaled_dot_product_flash_attention_for_cpu_backward: backward}
    return {op: f for op, f in formulas.items() if op not in flop_counter.flop_registry}


def eager_step(wrapped, batch, loss_spec):
    """One eager training step of `wrapped` on `batch`, forward and backward, under
    FlopCounterMode: its loss and its FLOPs. It runs before the export, so that a mistake shows
    as one line, not as a torch.export trace. Leaves gradients on the parameters and moved
    BatchNorm statistics: the caller restores them."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False, custom_mapping=flop_formulas()) as counter:
        try:
            loss = wrapped(*batch)
        except Exception as error:
            raise BadInput(f"model and loss on the batch failed: {type(error).__name__}: "
                           f"{error}") from None
        if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
            raise BadInput(f"loss {loss_spec} returned {type(loss).__name__}, "
                           f"not a scalar tensor")
        try:
            loss.backward()
        except RuntimeError as error:
            raise BadInput(f"backward of the loss failed: "
                           f"{(str(error).splitlines() or [''])[0]}") from None
    return loss.detach(), counter.get_total_flops()


# transformers' run-time decisions about attention masks (masking_utils), by the names of the
# releases that make them: whether the position ids pack several sequences in a row, and whether
# a causal mask can be left to attention's is_causal.
MASK_DECISIONS = ("find_packed_sequence_indices", "_ignore_causal_mask_sdpa")
# The profiler scope of each such decision in an eager run (EagerMaskDecisions.labelled).
DECISION_SCOPE = "transformers"


def fed_by_graph_inputs(value):
    """Whether a tensor being traced by torch.export is computed from an input of the graph (the
    batch, a parameter, a buffer), or (True) cannot be told; False for one computed from
    constants alone (positions from an arange)."""
    import torch
    from torch.fx.experimental import proxy_tensor

    if not isinstance(value, torch.Tensor):
        return False
    mode = proxy_tensor.get_proxy_mode()
    slot = proxy_tensor.get_proxy_slot(value, mode.tracer, None) if mode else None
    if slot is None:
        return True
    seen, pending = set(), [slot.proxy.node]
    while pending:
        node = pending.pop()
        if node in seen:
            continue
        seen.add(node)
        if node.op == "placeholder":
            return True
        pending.extend(node.all_input_nodes)
    return False


class EagerMaskDecisions:
    """Hugging Face transformers' attention as eager runs it at the archive's shapes.

    Eager transformers looks at its position ids and mask at run time: finding one sequence per
    row and a causal mask that hides nothing but the future, it drops the mask and calls
    attention with is_causal=True (the flash kernels; grouped-query attention on the key-value
    heads as they are). Under torch.export it cannot look (the values are not known while
    tracing), and it keeps the mask: masked attention, on keys and values repeated to the query's
    heads, other kernels than eager's. Where the tensors a decision reads are computed from no
    input of the graph (positions from the sequence's length, no padding mask), they are the same
    at every step of the archive's fixed shapes, and eager's decision on the example is the
    decision: it is recorded during the eager step and replayed, call for call, in the export. A
    decision on the batch's values (a padding mask, position ids in the batch) is left to
    transformers, which keeps the mask."""

    def __init__(self):
        self.masking = sys.modules.get("transformers.masking_utils")
        self.names = [n for n in MASK_DECISIONS if hasattr(self.masking, n)]
        self.made = {name: [] for name in self.names}

    def _patched(self, wrap):
        stack = contextlib.ExitStack()
        for name in self.names:
            stack.enter_context(mock.patch.object(self.masking, name,
                                                  wrap(name, getattr(self.masking, name))))
        return stack

    def recording(self):
        """Eager's decisions, in the order it makes them."""
        def wrap(name, decide):
            def recorded(*args, **kwargs):
                result = decide(*args, **kwargs)
                self.made[name].append(result)
                return result
            return recorded
        return self._patched(wrap)

    def labelled(self):
        """Eager's decisions as they are, each call in a profiler scope of its own (DECISION_SCOPE
        and the function's name): the operations eager runs to decide, which an archive's graph
        leaves out where it replays the decision, can be told from the others."""
        import torch

        def wrap(name, decide):
            def labelled(*args, **kwargs):
                with torch.profiler.record_function(f"{DECISION_SCOPE} {name}"):
                    return decide(*args, **kwargs)
            return labelled
        return self._patched(wrap)

    def replaying(self):
        """The export, with eager's decisions where no input of the graph feeds them: a
        decision eager made (None: no packing; a bool) is replayed, a tensor eager computed is
        computed again by the trace."""
        import torch

        def wrap(name, decide):
            calls = iter(self.made[name])

            def replayed(*args, **kwargs):
                eager = next(calls, ...)
                tensors = list(args) + list(kwargs.values())
                if (eager is ... or isinstance(eager, torch.Tensor)
                        or any(fed_by_graph_inputs(t) for t in tensors)):
                    return decide(*args, **kwargs)
                return eager
            return replayed
        return self._patched(wrap)


def autocast_regions_kept():
    """transformers' `maybe_autocast` entered whatever autocast's state while tracing, so that the
    graph keeps the region (torch.export records it as wrap_with_autocast).

    Some releases (5.x before 5.24: Llama's rotary embedding) force fp32 with
    `maybe_autocast(device_type, enabled=False)`, which enters torch.autocast only where autocast
    is on. The export traces in fp32 with autocast off, so the region would leave no mark, and
    under `--precision bf16` the interpreter would autocast what eager keeps in fp32 (the rotary
    matmul in bf16, its cos and sin too). Entering it always keeps eager's fp32 in the graph."""
    import torch

    stack = contextlib.ExitStack()
    generic = sys.modules.get("transformers.utils.generic")
    original = getattr(generic, "maybe_autocast", None)
    if original is None:
        return stack

    def kept(device_type, dtype=None, enabled=True, cache_enabled=None):
        if device_type == "meta":
            return original(device_type, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)
        return torch.autocast(device_type, dtype=dtype, enabled=enabled,
                              cache_enabled=cache_enabled)

    # Each modeling module holds its own name for the function (`from ...utils.generic import
    # maybe_autocast`); __dict__, not getattr, so that no lazy module imports anything.
    for name, module in list(sys.modules.items()):
        if name.startswith("transformers.") and vars(module).get("maybe_autocast") is original:
            stack.enter_context(mock.patch.object(module, "maybe_autocast", kept))
    return stack


def export(model_spec, batch_spec, loss_spec):
    """The ExportedProgram of the model and its loss, and the archive's extra/splitstep.json."""
    import torch

    model = call(resolve(model_spec, "model"), model_spec, "model")
    if not isinstance(model, torch.nn.Module):
        raise BadInput(f"model {model_spec} returned {type(model).__name__}, not an nn.Module")
    if not any(p.requires_grad for p in model.parameters()):
        raise BadInput(f"model {model_spec} has no parameters to train")
    batch = batch_tensors(call(resolve(batch_spec, "batch"), batch_spec, "batch"), batch_spec)
    wrapped = wrapper_class()(model, loss_function(loss_spec)).train()
    initial_state = copy.deepcopy(wrapped.state_dict())
    decisions = EagerMaskDecisions()
    with decisions.recording():
        eager_loss, flop_per_step = eager_step(wrapped, batch, loss_spec)
    # The eager step ran BatchNorm in training mode: its running statistics moved. The archive
    # keeps the factory's, so that splitstep starts from the model the factory made.
    wrapped.load_state_dict(initial_state)
    wrapped.zero_grad(set_to_none=True)
    try:
        with decisions.replaying(), autocast_regions_kept():
            program = torch.export.export(wrapped, batch)
    except Exception as error:
        raise BadInput(f"torch.export.export refused the model: {type(error).__name__}: "
                       f"{str(error).splitlines()[0] if str(error) else ''}") from None
    # torch.vmap traced by export (transformers 4.x builds its causal mask with it) leaves
    # functorch's own functions in the graph, which torch.export.save cannot write and no ATen
    # interpreter runs.
    vmapped = sorted({f"{n.target.__module__}.{getattr(n.target, '__name__', repr(n.target))}"
                      for module in program.graph_module.modules()
                      if isinstance(module, torch.fx.GraphModule)
                      for n in module.graph.nodes
                      if n.op == "call_function" and callable(n.target)
                      and getattr(n.target, "__module__", "").startswith("torch._functorch")})
    if vmapped:
        raise BadInput(f"the graph holds torch.vmap's functions ({', '.join(vmapped)}), which "
                       f"torch.export.save cannot write: the model calls torch.vmap (transformers "
                       f"before 5.0 builds its attention mask with it where no cache is used)")
    inputs = [spec.arg.name for spec in program.graph_signature.input_specs
              if spec.kind == torch.export.graph_signature.InputKind.USER_INPUT]
    meta = {
        "format_version": FORMAT_VERSION,
        "torch_version": torch.__version__,
        "model": model_spec,
        "loss": loss_spec,
        "parameters": [name for name, p in wrapped.named_parameters() if p.requires_grad],
        "buffers": [name for name, _ in wrapped.named_buffers()],
        "batch": [tensor_entry(name, tensor) for name, tensor in zip(inputs, batch)],
        "eager_loss": float(eager_loss),
        "flop_per_step": flop_per_step,
    }
    return program, meta


def run(args):
    import torch

    program, meta = export(args.model, args.batch, args.loss)
    try:
        torch.export.save(program, args.output, extra_files={EXTRA_NAME: json.dumps(meta)})
    except OSError as error:
        raise BadInput(f"cannot write {args.output}: {error.strerror}") from None
    print(f"{args.output}: {len(meta['parameters'])} parameters, "
          f"{sum(program.state_dict[n].numel() for n in meta['parameters'])} values, "
          f"{len(program.graph.nodes)} graph nodes, {meta['flop_per_step']:.4g} FLOP per step")
    if args.save_batch:
        # The batch the program was exported with (and its eager loss computed on), not a second
        # call of the factory, which may draw another.
        batch, _ = program.example_inputs
        try:
            torch.save(tuple(batch), args.save_batch)
        except OSError as error:
            raise BadInput(f"cannot write {args.save_batch}: {error.strerror}") from None
        except RuntimeError as error:  # torch.save's writer: a missing directory, for one
            raise BadInput(f"cannot write {args.save_batch}: "
                           f"{str(error).splitlines()[0]}") from None
        print(f"{args.save_batch}: the example batch, {len(batch)} tensors")
    return 0
