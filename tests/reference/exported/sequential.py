"""nn.Sequential(Linear, GELU, Linear) with MSE: the smallest model the interpreter runs."""
import torch


def model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 8))


def batch():
    gen = torch.Generator().manual_seed(1)
    return torch.randn(4, 16, generator=gen), torch.randn(4, 8, generator=gen)
