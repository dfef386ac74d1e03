"""gpt2: Hugging Face transformers' GPT2LMHeadModel (harness/models/Gpt2.hpp, docs/models/gpt2.md)."""
import torch
from transformers import GPT2Config, GPT2LMHeadModel
from transformers.loss.loss_utils import ForCausalLMLoss

NAME = "gpt2"
REPRODUCES = "transformers 5.24.0 GPT2LMHeadModel(GPT2Config(attn_implementation='sdpa'))"


def _shape(layers, width, heads, positions, vocab, seq, batch, dropout_pct, use_cache):
    return {"gpt2-layers": layers, "gpt2-width": width, "gpt2-heads": heads,
            "gpt2-positions": positions, "gpt2-vocab": vocab, "gpt2-seq": seq,
            "gpt2-batch": batch, "gpt2-dropout-pct": dropout_pct, "gpt2-use-cache": use_cache}


# Dropout 0, so that both sides compute the same thing (their random draws differ). The two
# shapes differ in depth, width, heads, positions, vocabulary, sequence, batch and in the
# cache's copies of keys and values (the library's default, use_cache=True, and without).
CPU_SHAPES = [
    _shape(layers=1, width=16, heads=2, positions=8, vocab=64, seq=8, batch=2, dropout_pct=0,
           use_cache=1),
    _shape(layers=2, width=48, heads=3, positions=24, vocab=97, seq=17, batch=3, dropout_pct=0,
           use_cache=0),
]


def library_model(shape):
    p = shape["gpt2-dropout-pct"] / 100
    config = GPT2Config(n_layer=shape["gpt2-layers"], n_embd=shape["gpt2-width"],
                        n_head=shape["gpt2-heads"], n_positions=shape["gpt2-positions"],
                        vocab_size=shape["gpt2-vocab"], resid_pdrop=p, embd_pdrop=p, attn_pdrop=p,
                        use_cache=bool(shape["gpt2-use-cache"]), attn_implementation="sdpa")
    model = GPT2LMHeadModel(config)
    # What splitstep's module takes for granted of the library's model.
    assert model.config._attn_implementation == "sdpa"
    assert model.lm_head.weight is model.transformer.wte.weight
    assert model.loss_function is ForCausalLMLoss
    return model


def example_batch(shape, generator):
    tokens = torch.randint(0, shape["gpt2-vocab"], (shape["gpt2-batch"], shape["gpt2-seq"]),
                           generator=generator, dtype=torch.int64)
    return tokens, tokens  # labels = input ids: the loss shifts them


def forward(model, input):
    return model(input_ids=input).logits


def loss(output, target):
    # What model(input_ids, labels=target).loss computes from the logits.
    return ForCausalLMLoss(output, target, vocab_size=output.size(-1))
