"""torchvision's ResNet-50 at a width and image a CPU finishes in seconds, in training mode:
BatchNorm's running statistics are buffers the graph updates in place."""
import torch
import torchvision


def model():
    torch.manual_seed(0)
    return torchvision.models.resnet50(weights=None, width_per_group=8, num_classes=10)


def batch():
    gen = torch.Generator().manual_seed(1)
    return torch.randn(2, 3, 32, 32, generator=gen), torch.randint(0, 10, (2,), generator=gen)
