"""Regions of a model under torch.no_grad(), as Hugging Face's rotary embeddings run theirs:
torch.export records each as a higher-order op (wrap_with_set_grad_enabled) around a graph of
its own. No gradient flows through them: an interpreter that ran them with grad enabled would
send gradients into `lin` along the rotary path, which eager does not.

`autocast_model`: a region under `torch.autocast(..., enabled=False)`, as a model keeps a layer
in fp32 under bf16 autocast (wrap_with_autocast): run in bf16, its output would differ.
"""
import torch


class Rotary(torch.nn.Module):
    """cos and sin of the input's first half against fixed frequencies, under no_grad."""

    def __init__(self, half):
        super().__init__()
        self.register_buffer("freq", torch.linspace(0.5, 2.0, half), persistent=False)

    @torch.no_grad()
    def forward(self, x):
        angles = x[..., : self.freq.numel()] * self.freq
        # A region inside the region: still no grad, and the names of its own graph reused.
        with torch.no_grad():
            scale = angles.abs().mean(dim=-1, keepdim=True) + 1
        return torch.cos(angles) / scale, torch.sin(angles)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(16, 16)
        self.rot = Rotary(8)
        self.out = torch.nn.Linear(16, 5)

    def forward(self, x):
        h = torch.relu(self.lin(x))
        cos, sin = self.rot(h)
        low, high = h[..., :8], h[..., 8:]
        return self.out(torch.cat([low * cos - high * sin, low * sin + high * cos], dim=-1))


def model():
    torch.manual_seed(0)
    return Model()


def batch():
    gen = torch.Generator().manual_seed(1)
    return torch.randn(6, 16, generator=gen), torch.randint(0, 5, (6,), generator=gen)


class Fp32Head(torch.nn.Module):
    """A linear layer kept in fp32 under autocast."""

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(16, 5)

    def forward(self, h):
        with torch.autocast(device_type=h.device.type, enabled=False):
            return self.proj(h.float())


class AutocastModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(16, 16)
        self.head = Fp32Head()

    def forward(self, x):
        return self.head(torch.relu(self.lin(x)))


def autocast_model():
    torch.manual_seed(0)
    return AutocastModel()
