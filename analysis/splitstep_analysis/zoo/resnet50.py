"""resnet50: torchvision's own ResNet-50 (torchvision.models.resnet50, weights=None), in training
mode, for splitstep's shape options (docs/models/resnet50.md)."""
import torch
import torch.nn.functional as F
import torchvision

NAME = "resnet50"
REPRODUCES = ("torchvision 0.26.0 torchvision.models.resnet50(weights=None, "
              "width_per_group), training mode")

# Tiny enough for one core: torchvision's resnet50 itself (width 64) at a 32-pixel image, where
# layer4 is 1x1, and narrower bottlenecks at other sides and batches, one in channels_last.
CPU_SHAPES = [
    {"resnet50-image": 32, "resnet50-batch": 2, "resnet50-width": 64,
     "resnet50-channels-last": 0},
    {"resnet50-image": 56, "resnet50-batch": 3, "resnet50-width": 8,
     "resnet50-channels-last": 1},
    {"resnet50-image": 40, "resnet50-batch": 2, "resnet50-width": 16,
     "resnet50-channels-last": 0},
]


def _memory_format(shape):
    return torch.channels_last if shape["resnet50-channels-last"] else torch.contiguous_format


def library_model(shape):
    model = torchvision.models.resnet50(weights=None, width_per_group=shape["resnet50-width"])
    return model.to(memory_format=_memory_format(shape))


def example_batch(shape, generator):
    side, rows = shape["resnet50-image"], shape["resnet50-batch"]
    images = torch.randn(rows, 3, side, side, generator=generator)
    labels = torch.randint(0, 1000, (rows,), generator=generator)
    return images.contiguous(memory_format=_memory_format(shape)), labels


def forward(model, images):
    return model(images)


def loss(output, target):
    return F.cross_entropy(output, target)
