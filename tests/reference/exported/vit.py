"""timm's vit_base_patch16_224 from its config (no weights downloaded), two layers of width 32
on 32-pixel images."""
import timm
import torch


def model():
    torch.manual_seed(0)
    return timm.create_model("vit_base_patch16_224", pretrained=False, img_size=32, depth=2,
                             embed_dim=32, num_heads=2, num_classes=10)


def batch():
    gen = torch.Generator().manual_seed(1)
    return torch.randn(2, 3, 32, 32, generator=gen), torch.randint(0, 10, (2,), generator=gen)
