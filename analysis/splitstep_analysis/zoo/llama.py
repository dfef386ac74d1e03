"""llama: transformers' LlamaForCausalLM at a Llama-3.2-1B-like config (harness/models/Llama.hpp)."""
import torch
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.loss.loss_utils import ForCausalLMLoss

NAME = "llama"
REPRODUCES = ("transformers 5.24.0 LlamaForCausalLM (LlamaConfig of Llama-3.2-1B: llama3 rope, "
              "tied head; attn_implementation=sdpa, use_cache=False)")

# Llama-3.2-1B's config.json beyond splitstep's shape options.
ROPE_PARAMETERS = {
    "rope_type": "llama3",
    "rope_theta": 500000.0,
    "factor": 32.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
}


def library_model(shape):
    config = LlamaConfig(
        vocab_size=shape["llama-vocab"],
        hidden_size=shape["llama-hidden"],
        intermediate_size=shape["llama-intermediate"],
        num_hidden_layers=shape["llama-layers"],
        num_attention_heads=shape["llama-heads"],
        num_key_value_heads=shape["llama-kv-heads"],
        head_dim=shape["llama-hidden"] // shape["llama-heads"],
        hidden_act="silu",
        max_position_embeddings=131072,
        rms_norm_eps=1e-5,
        rope_parameters=ROPE_PARAMETERS,
        tie_word_embeddings=True,
        attention_bias=False,
        mlp_bias=False,
        attention_dropout=0.0,
        # Training: no key-value cache (the default, True, concatenates every layer's keys and
        # values into a DynamicCache on each forward).
        use_cache=False,
        attn_implementation="sdpa",
    )
    return LlamaForCausalLM(config)


def example_batch(shape, generator):
    tokens = torch.randint(0, shape["llama-vocab"], (shape["llama-batch"], shape["llama-seq"]),
                           generator=generator)
    return tokens, tokens  # labels = input_ids


def forward(model, input):
    return model(input_ids=input).logits


def loss(output, target):
    # What model(input_ids, labels=input_ids) computes: its loss_function.
    return ForCausalLMLoss(output, target, vocab_size=output.shape[-1])


_TINY = {"llama-layers": 2, "llama-hidden": 64, "llama-intermediate": 128, "llama-heads": 4,
         "llama-kv-heads": 2, "llama-vocab": 512, "llama-seq": 16, "llama-batch": 2}

CPU_SHAPES = [
    _TINY,
    # No grouping (kv heads = heads, sdpa without enable_gqa), three layers, batch 1 (the
    # positions are not expanded), an odd sequence.
    {**_TINY, "llama-layers": 3, "llama-heads": 8, "llama-kv-heads": 8, "llama-seq": 9,
     "llama-batch": 1, "llama-vocab": 300},
    # A head size past use_gqa_in_sdpa's 256: the library repeats the key-value heads.
    {**_TINY, "llama-layers": 1, "llama-hidden": 520, "llama-heads": 2, "llama-kv-heads": 1,
     "llama-intermediate": 96, "llama-seq": 8},
    # Four query heads per key-value head.
    {**_TINY, "llama-heads": 8, "llama-kv-heads": 2, "llama-hidden": 128, "llama-batch": 3},
]
