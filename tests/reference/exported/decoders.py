"""Hugging Face decoders from tiny configs (nothing downloaded), returning their logits.

Two ways to their causal-LM loss: `batch` gives the tokens and the next tokens, for the standard
cross-entropy (per-token losses in the graph); `hf_batch` gives the tokens twice, for `loss`,
transformers' own causal-LM loss, which shifts the labels inside it, on one token more. With no
padding the two are the same loss (the decoder is causal: the last token changes no earlier
logit), which test_decoders.py holds.
"""
import torch
from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM
from transformers.loss.loss_utils import ForCausalLMLoss

VOCAB = 97


class Logits(torch.nn.Module):
    """The decoder's logits alone: the loss below is the one model(..., labels=) computes.
    Without a cache (training's usual call), or with one, as the zoo's GPT-2 preset trains."""

    def __init__(self, decoder, use_cache=False):
        super().__init__()
        self.decoder = decoder
        self.use_cache = use_cache

    def forward(self, input_ids):
        return self.decoder(input_ids=input_ids, use_cache=self.use_cache).logits


def gpt2(use_cache=False):
    torch.manual_seed(0)
    return Logits(GPT2LMHeadModel(GPT2Config(
        n_layer=2, n_embd=32, n_head=2, n_positions=16, vocab_size=VOCAB, resid_pdrop=0,
        embd_pdrop=0, attn_pdrop=0, attn_implementation="sdpa")), use_cache)


def llama(use_cache=False):
    torch.manual_seed(0)
    return Logits(LlamaForCausalLM(LlamaConfig(
        num_hidden_layers=2, hidden_size=32, intermediate_size=64, num_attention_heads=4,
        num_key_value_heads=2, vocab_size=VOCAB, max_position_embeddings=16,
        attn_implementation="sdpa")), use_cache)


def gpt2_cached():
    return gpt2(use_cache=True)


def llama_cached():
    return llama(use_cache=True)


def tokens():
    gen = torch.Generator().manual_seed(1)
    return torch.randint(0, VOCAB, (2, 13), generator=gen)


def batch():
    ids = tokens()
    return ids[:, :-1].contiguous(), ids[:, 1:].contiguous()


def hf_batch():
    ids = tokens()
    return ids, ids


def loss(logits, labels):
    return ForCausalLMLoss(logits, labels, vocab_size=logits.size(-1))
