#!/usr/bin/env python3
"""Shapes of a zoo model that nobody tuned for: its preset (configs/<name>.ini) and shapes drawn
from a seed, for `launch/verify zoo-parity` to run splitstep and the library's model at.

  zoo_shapes.py --model gpt2 --preset configs/gpt2.ini --seed 1234 --draws 3 [--json FILE]

prints one line per shape: its label (`preset`, `draw-1`, ...) and the splitstep options that
make it from the preset (none for the preset itself), e.g.

  draw-1 --gpt2-layers 7 --gpt2-width 640 --gpt2-heads 10 --gpt2-seq 512 --gpt2-batch 21

Each draw differs from the preset and from the draws before it, and stays within what the preset
takes on one H200: width and depth at most the preset's (but for resnet50's width per group, up
to wide_resnet50_2's 128), no more tokens (or pixels) per step, and no more activation memory by
the product of depth, width and tokens; the batch is then drawn between a quarter of the largest
that keeps to those (and to four times the preset's batch) and the largest. The same seed and
model give the same shapes whatever other models are drawn.
"""
import argparse
import json
import random
import sys
from typing import Callable, NamedTuple

import eager_support  # noqa: F401 (the analysis package on sys.path)
from splitstep_analysis.eager import read_ini
from splitstep_analysis.schema import BadInput


# The largest batch drawn, in the preset's: a model cut down to a few tokens at a huge batch
# measures its input pipeline, not the model.
BATCH_FACTOR = 4


def fit_batch(rng, largest, preset_batch):
    """A batch between a quarter of `largest` and `largest` (at most BATCH_FACTOR times the
    preset's): the GPU kept busy, memory kept within the preset's."""
    largest = max(1, min(int(largest), BATCH_FACTOR * preset_batch))
    return rng.randint(max(1, largest // 4), largest)


def draw_gpt2(rng, p):
    width = rng.choice([w for w in (512, 640, 768, 1024) if w <= p["gpt2-width"]])
    layers = rng.randint(max(1, p["gpt2-layers"] // 3), p["gpt2-layers"])
    seq = rng.choice([s for s in (256, 512, 768, 1024) if s <= p["gpt2-positions"]])
    tokens = p["gpt2-batch"] * p["gpt2-seq"]
    activations = tokens * p["gpt2-layers"] * p["gpt2-width"]
    batch = fit_batch(rng, min(tokens // seq, activations // (seq * layers * width)),
                      p["gpt2-batch"])
    return {"gpt2-layers": layers, "gpt2-width": width, "gpt2-heads": width // 64,
            "gpt2-seq": seq, "gpt2-batch": batch}


def draw_llama(rng, p):
    hidden = rng.choice([h for h in (1024, 1536, 2048) if h <= p["llama-hidden"]])
    heads = hidden // 64
    layers = rng.randint(max(1, p["llama-layers"] // 3), p["llama-layers"])
    seq = rng.choice([s for s in (512, 1024, 2048) if s <= p["llama-seq"]])
    tokens = p["llama-batch"] * p["llama-seq"]
    activations = tokens * p["llama-layers"] * p["llama-hidden"]
    batch = fit_batch(rng, min(tokens // seq, activations // (seq * layers * hidden)),
                      p["llama-batch"])
    return {"llama-layers": layers, "llama-hidden": hidden, "llama-heads": heads,
            "llama-kv-heads": rng.choice([k for k in (2, 4, 8) if heads % k == 0]),
            "llama-intermediate": 4 * hidden, "llama-seq": seq, "llama-batch": batch}


def draw_vit_b16(rng, p):
    width = rng.choice([w for w in (384, 512, 768) if w <= p["vit-width"]])
    layers = rng.randint(max(1, p["vit-layers"] // 2), p["vit-layers"])
    patch = rng.choice((14, 16, 32))
    image = patch * rng.randint(-(-112 // patch), 320 // patch)
    tokens = (image // patch) ** 2 + 1
    preset_tokens = p["vit-batch"] * ((p["vit-image"] // p["vit-patch"]) ** 2 + 1)
    activations = preset_tokens * p["vit-layers"] * p["vit-width"]
    batch = fit_batch(rng, min(preset_tokens // tokens, activations // (tokens * layers * width)),
                      p["vit-batch"])
    return {"vit-layers": layers, "vit-width": width, "vit-heads": width // 64,
            "vit-patch": patch, "vit-image": image, "vit-batch": batch}


def draw_resnet50(rng, p):
    image = rng.choice((128, 160, 192, 224, 256, 288))
    width = rng.choice((32, 64, 128))
    # The bottleneck's inner width scales with width_per_group, its outer one does not: a
    # narrower model is counted at the preset's width, so that the bound stays a bound.
    pixels = p["resnet50-batch"] * p["resnet50-image"] ** 2 * max(p["resnet50-width"], 64)
    batch = fit_batch(rng, pixels // (image ** 2 * max(width, 64)), p["resnet50-batch"])
    return {"resnet50-image": image, "resnet50-width": width, "resnet50-batch": batch,
            "resnet50-channels-last": rng.randint(0, 1)}


class Rule(NamedTuple):
    options: tuple  # the shape options the rule reads from the preset, and those it draws
    draw: Callable  # (random.Random, preset's values) -> {option: value}, the drawn ones


def shape_options(model, *names):
    return tuple(f"{model}-{name}" for name in names)


# One rule per zoo model, by its splitstep name.
RULES = {
    "gpt2": Rule(shape_options("gpt2", "layers", "width", "heads", "positions", "seq", "batch"),
                 draw_gpt2),
    "llama": Rule(shape_options("llama", "layers", "hidden", "heads", "kv-heads", "intermediate",
                                "seq", "batch"), draw_llama),
    "vit-b16": Rule(shape_options("vit", "layers", "width", "heads", "patch", "image", "batch"),
                    draw_vit_b16),
    "resnet50": Rule(shape_options("resnet50", "image", "width", "batch", "channels-last"),
                     draw_resnet50),
}
TRIES = 1000


def preset_shape(model, preset):
    """The preset's values of the options `model`'s rule reads (integers, as every shape
    option is)."""
    try:
        return {name: int(preset[name]) for name in RULES[model].options}
    except KeyError as e:
        raise BadInput(f"the preset has no {e}, which {model}'s rule reads")
    except ValueError as e:
        raise BadInput(f"a shape option of the preset is no integer ({e})")


def draw(model, preset, seed, count):
    """[(label, {option: value})]: the preset's shape, then `count` drawn ones."""
    if model not in RULES:
        raise BadInput(f"--model: no rule draws shapes of '{model}' (one of "
                         f"{', '.join(RULES)})")
    base = preset_shape(model, preset)
    rng = random.Random(f"{seed}/{model}")
    shapes = [("preset", base)]
    for i in range(1, count + 1):
        for _ in range(TRIES):
            shape = dict(base, **RULES[model].draw(rng, base))
            if all(shape != other for _, other in shapes):
                break
        else:
            raise BadInput(f"{model}: no shape other than the preset's within its bounds")
        shapes.append((f"draw-{i}", shape))
    return shapes


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a zoo model's splitstep name")
    parser.add_argument("--preset", required=True, help="its preset, configs/<name>.ini")
    parser.add_argument("--seed", required=True, type=int)
    parser.add_argument("--draws", type=int, default=3, help="shapes drawn beside the preset")
    parser.add_argument("--json", help="also write the seed and the shapes to this file")
    args = parser.parse_args(argv)
    try:
        if args.draws < 0:
            raise BadInput(f"--draws: {args.draws} is negative")
        shapes = draw(args.model, read_ini(args.preset), args.seed, args.draws)
    except BadInput as e:
        print(f"zoo_shapes: {e}", file=sys.stderr)
        return 2
    for label, shape in shapes:
        changed = {k: v for k, v in shape.items() if v != shapes[0][1][k]}
        print(" ".join([label] + [f"--{k} {v}" for k, v in changed.items()]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"model": args.model, "preset": args.preset, "seed": args.seed,
                       "shapes": [{"label": label, "shape": shape} for label, shape in shapes]},
                      f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
