"""vit-b16: timm's vit_base_patch16_224, built from its config (no weights downloaded) with the
shape options as the VisionTransformer keyword arguments they stand for."""
import timm
import torch
import torch.nn.functional as F

NAME = "vit-b16"
REPRODUCES = "timm 1.0.31 VisionTransformer vit_base_patch16_224 (timm.create_model, pretrained=False)"

CPU_SHAPES = [
    {"vit-layers": 2, "vit-width": 32, "vit-heads": 2, "vit-patch": 16, "vit-image": 32,
     "vit-batch": 2},
    {"vit-layers": 3, "vit-width": 48, "vit-heads": 4, "vit-patch": 4, "vit-image": 24,
     "vit-batch": 3},
]


def library_model(shape):
    model = timm.create_model(
        "vit_base_patch16_224",
        pretrained=False,
        img_size=shape["vit-image"],
        patch_size=shape["vit-patch"],
        embed_dim=shape["vit-width"],
        depth=shape["vit-layers"],
        num_heads=shape["vit-heads"],
    )
    # splitstep reproduces the scaled_dot_product_attention path, timm's default: a model built
    # with TIMM_FUSED_ATTN=0 is another op sequence.
    if not all(block.attn.fused_attn for block in model.blocks):
        raise SystemExit("vit_b16.py: timm's fused attention is off (TIMM_FUSED_ATTN)")
    return model


def example_batch(shape, generator):
    rows, side = shape["vit-batch"], shape["vit-image"]
    images = torch.randn(rows, 3, side, side, generator=generator)
    labels = torch.randint(0, 1000, (rows,), generator=generator)
    return images, labels


def forward(model, images):
    return model(images)


def loss(output, target):
    return F.cross_entropy(output, target)
