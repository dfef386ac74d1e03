// llama's module (models/Llama.hpp declares the model): transformers' modeling_llama.py on its
// training path, op for op (docs/models/llama.md). Modules and parameters carry the library's
// names in the library's registration order, so its state dict loads as it is.
#include <ATen/ScalarOps.h>
#include <ATen/TensorIndexing.h>
#include <ATen/record_function.h>
#include <c10/core/GradMode.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>

#include <cmath>
#include <numbers>
#include <optional>

#include "models/Llama.hpp"
#include "models/ModuleParts.hpp"

namespace splitstep {
namespace {

using namespace llama_model;
using at::indexing::Slice;

// LlamaConfig of Llama-3.2-1B beyond the shape options.
constexpr double kRmsNormEps = 1e-5;
constexpr double kInitializerRange = 0.02;
constexpr double kRopeTheta = 500000.0;
// rope_parameters {"rope_type": "llama3", ...}.
constexpr double kRopeFactor = 32.0;
constexpr double kLowFreqFactor = 1.0;
constexpr double kHighFreqFactor = 4.0;
constexpr std::int64_t kOriginalMaxPositions = 8192;
// sdpa_attention.use_gqa_in_sdpa: on CUDA (and the CPU) the library passes enable_gqa only for
// head sizes fused kernels take, and repeats the key-value heads otherwise.
constexpr std::int64_t kMaxGqaHeadSize = 256;

// A Python number where the library's op takes a tensor (`variance + eps`): the wrapped-number
// tensor Python's argument parser makes of it, so that the op is add.Tensor (autograd's
// AddBackward0) as in the library rather than LibTorch's add.Scalar around it. The same kernel
// runs either way.
at::Tensor pythonNumber(const at::Scalar& value) {
  return at::native::wrapped_scalar_tensor(value);
}

// modeling_rope_utils._compute_llama3_parameters, in the same fp32 operations: the default
// inverse frequencies, divided by `factor` for wavelengths beyond the original context and
// interpolated between the two bounds.
at::Tensor llama3InverseFrequencies(std::int64_t head_size) {
  const at::Tensor exponents =
      at::arange(0, head_size, 2, at::TensorOptions().dtype(at::kLong)).to(at::kFloat) / head_size;
  // Python's `1.0 / t` is t.reciprocal() * 1.0, `2 * math.pi / t` t.reciprocal() * (2 pi).
  const at::Tensor inv_freq = at::reciprocal(at::pow(kRopeTheta, exponents)) * 1.0;
  const double low_freq_wavelen = static_cast<double>(kOriginalMaxPositions) / kLowFreqFactor;
  const double high_freq_wavelen = static_cast<double>(kOriginalMaxPositions) / kHighFreqFactor;
  const at::Tensor wavelen = at::reciprocal(inv_freq) * (2 * std::numbers::pi);
  at::Tensor inv_freq_llama =
      at::where(wavelen > low_freq_wavelen, inv_freq / kRopeFactor, inv_freq);
  const at::Tensor smooth_factor =
      (at::reciprocal(wavelen) * kOriginalMaxPositions - kLowFreqFactor) /
      (kHighFreqFactor - kLowFreqFactor);
  const at::Tensor smoothed_inv_freq =
      at::rsub(smooth_factor, 1) * inv_freq_llama / kRopeFactor + smooth_factor * inv_freq_llama;
  const at::Tensor is_medium_freq =
      at::bitwise_not(wavelen < high_freq_wavelen) * at::bitwise_not(wavelen > low_freq_wavelen);
  return at::where(is_medium_freq, smoothed_inv_freq, inv_freq_llama);
}

// LlamaPreTrainedModel._init_weights draws linear and embedding weights from N(0, 0.02).
void initialise(at::Tensor& weight) {
  const c10::NoGradGuard no_grad;
  weight.normal_(0, kInitializerRange);
}

torch::nn::Linear projection(std::int64_t in, std::int64_t out) {
  torch::nn::Linear layer(torch::nn::LinearOptions(in, out).bias(false));
  initialise(layer->weight);
  return layer;
}

// LlamaRMSNorm: in fp32, and back to the input's dtype before the weight.
class LlamaRMSNorm final : public torch::nn::Module {
 public:
  explicit LlamaRMSNorm(std::int64_t hidden)
      : weight_(register_parameter("weight", at::ones({hidden}))) {}
  at::Tensor forward(const at::Tensor& x) {
    const at::ScalarType input_dtype = x.scalar_type();
    at::Tensor h = x.to(at::kFloat);
    const at::Tensor variance = h.pow(2).mean(-1, /*keepdim=*/true);
    h = h * at::rsqrt(variance + pythonNumber(kRmsNormEps));
    return weight_ * h.to(input_dtype);
  }

 private:
  at::Tensor weight_;
};

// LlamaRotaryEmbedding's forward: cos and sin of position x inverse frequency, each half twice.
class LlamaRotaryEmbedding final : public torch::nn::Module {
 public:
  explicit LlamaRotaryEmbedding(std::int64_t head_size)
      : inv_freq_(register_buffer("inv_freq", llama3InverseFrequencies(head_size))) {}
  std::pair<at::Tensor, at::Tensor> forward(const at::Tensor& x, const at::Tensor& position_ids) {
    // One statement per operand here and below: C++ leaves the order of operands open, and the
    // library's op order is Python's, left to right.
    const at::Tensor positions = position_ids.unsqueeze(-1).to(at::kFloat);
    const at::Tensor freqs = positions * inv_freq_.to(x.device(), at::kFloat);
    const at::Tensor emb = at::cat({freqs, freqs}, -1);
    // The llama3 type's attention scaling is 1.0, and the library multiplies by it.
    const at::Tensor cos = emb.cos() * pythonNumber(1.0);
    const at::Tensor sin = emb.sin() * pythonNumber(1.0);
    return {cos.to(x.scalar_type()), sin.to(x.scalar_type())};
  }

 private:
  at::Tensor inv_freq_;
};

at::Tensor rotateHalf(const at::Tensor& x) {
  const std::int64_t last = x.dim() - 1;
  const std::int64_t half = x.size(last) / 2;
  const at::Tensor x1 = x.slice(last, 0, half);
  const at::Tensor x2 = x.slice(last, half);
  return at::cat({-x2, x1}, -1);
}

class LlamaAttention final : public torch::nn::Module {
 public:
  LlamaAttention(std::int64_t hidden, std::int64_t heads, std::int64_t kv_heads)
      : head_size_(hidden / heads),
        groups_(heads / kv_heads),
        scaling_(std::pow(static_cast<double>(head_size_), -0.5)),
        q_proj_(register_module("q_proj", projection(hidden, heads * head_size_))),
        k_proj_(register_module("k_proj", projection(hidden, kv_heads * head_size_))),
        v_proj_(register_module("v_proj", projection(hidden, kv_heads * head_size_))),
        o_proj_(register_module("o_proj", projection(heads * head_size_, hidden))) {}

  // `mask`: undefined for sdpa's is_causal, or create_causal_mask's boolean mask under capture.
  at::Tensor forward(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin,
                     const at::Tensor& mask) {
    const std::int64_t b = x.size(0);
    const std::int64_t s = x.size(1);
    const at::Tensor query = linear(q_proj_, x).view({b, s, -1, head_size_}).transpose(1, 2);
    at::Tensor key = linear(k_proj_, x).view({b, s, -1, head_size_}).transpose(1, 2);
    at::Tensor value = linear(v_proj_, x).view({b, s, -1, head_size_}).transpose(1, 2);
    // apply_rotary_pos_emb.
    const at::Tensor c = cos.unsqueeze(1);
    const at::Tensor n = sin.unsqueeze(1);
    const at::Tensor q_cos = query * c;
    const at::Tensor q_embed = q_cos + rotateHalf(query) * n;
    const at::Tensor k_cos = key * c;
    key = k_cos + rotateHalf(key) * n;
    // sdpa_attention_forward: without a mask the causal mask is sdpa's is_causal (the sequence
    // has at least two tokens); with one, the key-value heads are repeated (use_gqa_in_sdpa).
    const bool causal = !mask.defined();
    const bool gqa = causal && groups_ > 1 && head_size_ <= kMaxGqaHeadSize;
    if (groups_ > 1 && !gqa) {
      key = repeatKv(key);
      value = repeatKv(value);
    }
    const at::Tensor attended =
        at::scaled_dot_product_attention(q_embed, key, value,
                                         causal ? std::nullopt : std::optional<at::Tensor>(mask),
                                         0.0, causal, scaling_, gqa)
            .reshape({b, -1, s, value.size(-1)})
            .transpose(1, 2)
            .contiguous();
    return linear(o_proj_, attended.reshape({b, s, -1}).contiguous());
  }

 private:
  // repeat_kv: (b, kv, s, d) -> (b, kv x groups, s, d).
  at::Tensor repeatKv(const at::Tensor& x) const {
    const std::int64_t b = x.size(0);
    const std::int64_t kv = x.size(1);
    const std::int64_t s = x.size(2);
    const std::int64_t d = x.size(3);
    return x.index({Slice(), Slice(), at::indexing::None, Slice(), Slice()})
        .expand({b, kv, groups_, s, d})
        .reshape({b, kv * groups_, s, d});
  }

  std::int64_t head_size_;
  std::int64_t groups_;
  double scaling_;
  torch::nn::Linear q_proj_;
  torch::nn::Linear k_proj_;
  torch::nn::Linear v_proj_;
  torch::nn::Linear o_proj_;
};

// LlamaMLP: down(silu(gate(x)) * up(x)).
class LlamaMLP final : public torch::nn::Module {
 public:
  LlamaMLP(std::int64_t hidden, std::int64_t intermediate)
      : gate_proj_(register_module("gate_proj", projection(hidden, intermediate))),
        up_proj_(register_module("up_proj", projection(hidden, intermediate))),
        down_proj_(register_module("down_proj", projection(intermediate, hidden))) {}
  at::Tensor forward(const at::Tensor& x) {
    const at::Tensor gated = at::silu(linear(gate_proj_, x));
    return linear(down_proj_, gated * linear(up_proj_, x));
  }

 private:
  torch::nn::Linear gate_proj_;
  torch::nn::Linear up_proj_;
  torch::nn::Linear down_proj_;
};

class LlamaDecoderLayer final : public torch::nn::Module {
 public:
  explicit LlamaDecoderLayer(const StepShape& shape)
      : self_attn_(register_module(
            "self_attn",
            std::make_shared<LlamaAttention>(shape[kHidden], shape[kHeads], shape[kKvHeads]))),
        mlp_(register_module("mlp",
                             std::make_shared<LlamaMLP>(shape[kHidden], shape[kIntermediate]))),
        input_layernorm_(
            register_module("input_layernorm", std::make_shared<LlamaRMSNorm>(shape[kHidden]))),
        post_attention_layernorm_(register_module(
            "post_attention_layernorm", std::make_shared<LlamaRMSNorm>(shape[kHidden]))) {}
  at::Tensor forward(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin,
                     const at::Tensor& mask) {
    const at::Tensor h = x + self_attn_->forward(input_layernorm_->forward(x), cos, sin, mask);
    return h + mlp_->forward(post_attention_layernorm_->forward(h));
  }

 private:
  std::shared_ptr<LlamaAttention> self_attn_;
  std::shared_ptr<LlamaMLP> mlp_;
  std::shared_ptr<LlamaRMSNorm> input_layernorm_;
  std::shared_ptr<LlamaRMSNorm> post_attention_layernorm_;
};

// masking_utils.find_packed_sequence_indices, which the library runs on every training forward
// (no attention mask, no cache): which sequence of its row each token belongs to, counting the
// places where the positions restart.
at::Tensor packedSequenceIndices(const at::Tensor& position_ids) {
  const at::Tensor first_dummy_value = position_ids.slice(1, 0, 1) - pythonNumber(1);
  const at::Tensor position_diff = at::diff(position_ids, 1, -1, first_dummy_value);
  return position_diff.ne(1).cumsum(-1);
}

// Eagerly the library then asks whether any row restarts; reading the answer waits for the
// device, as its `if` does.
bool restarts(const at::Tensor& packed_sequence_mask) {
  return !(packed_sequence_mask.select(1, -1) == 0).all().is_nonzero();
}

// create_causal_mask under capture, where the library does not ask: it keeps the packed-sequence
// indices, and sdpa_mask materialises the boolean mask (batch, 1, q, kv) by broadcasting index
// tensors (_non_vmap_expansion_sdpa). A key is seen where its remapped position is at most the
// query's (causal_mask_function through remap_positions_for_packed_sequence) and it belongs to
// the query's sequence (packed_sequence_mask_function), each and_masks'd onto a true scalar.
at::Tensor capturedCausalMask(const at::Tensor& position_ids,
                              const at::Tensor& packed_sequence_mask) {
  const std::int64_t batch = position_ids.size(0);
  const std::int64_t length = position_ids.size(1);
  const at::TensorOptions options = position_ids.options();
  const at::Tensor b = at::arange(batch, options).view({-1, 1, 1, 1});
  const at::Tensor q = (at::arange(length, options) + pythonNumber(0)).view({1, 1, -1, 1});
  const at::Tensor kv = (at::arange(length, options) + pythonNumber(0)).view({1, 1, 1, -1});
  at::Tensor result = at::ones({}, options.dtype(at::kBool));
  result = result & (position_ids.index({b, kv}) <= position_ids.index({b, q}));
  result = result & (packed_sequence_mask.index({b, q}) == packed_sequence_mask.index({b, kv}));
  return result.expand({batch, -1, length, length});
}

// LlamaModel: embedding, rotary embedding, decoder layers, final norm.
class LlamaModel final : public torch::nn::Module {
 public:
  explicit LlamaModel(const StepShape& shape)
      : embed_tokens_(
            register_module("embed_tokens", torch::nn::Embedding(shape[kVocab], shape[kHidden]))),
        layers_(register_module("layers", torch::nn::ModuleList())) {
    initialise(embed_tokens_->weight);
    for (std::int64_t i = 0; i < shape[kLayers]; ++i) {
      layers_->push_back(std::make_shared<LlamaDecoderLayer>(shape));
    }
    norm_ = register_module("norm", std::make_shared<LlamaRMSNorm>(shape[kHidden]));
    rotary_emb_ = register_module(
        "rotary_emb", std::make_shared<LlamaRotaryEmbedding>(shape[kHidden] / shape[kHeads]));
  }
  at::Tensor forward(const at::Tensor& input_ids) {
    const at::Tensor inputs_embeds = at::embedding(embed_tokens_->weight, input_ids);
    // The positions of a forward without cache: arange + 0 seen tokens, one row for the batch.
    const at::Tensor position_ids =
        (at::arange(inputs_embeds.size(1), input_ids.options()) + pythonNumber(0)).unsqueeze(0);
    // create_causal_mask: eagerly, no mask for sdpa (its is_causal) when no row packs several
    // sequences, and splitstep's positions never restart; under capture, the mask. The library
    // expands the positions to the batch.
    const std::int64_t batch = inputs_embeds.size(0);
    const at::Tensor positions = batch == 1 ? position_ids : position_ids.expand({batch, -1});
    at::Tensor packed_sequence_mask;
    {
      // The library's decision in a profiler scope named as splitstep-analysis names it in an
      // eager profile (export.EagerMaskDecisions): an exported graph leaves out what it runs.
      RECORD_USER_SCOPE("transformers find_packed_sequence_indices");
      packed_sequence_mask = packedSequenceIndices(positions);
      TORCH_CHECK(forwardIsCaptured() || !restarts(packed_sequence_mask),
                  "llama: packed sequences need a mask");
    }
    at::Tensor mask;
    if (forwardIsCaptured()) {
      mask = capturedCausalMask(position_ids.expand({batch, -1}), packed_sequence_mask);
    }
    const auto [cos, sin] = rotary_emb_->forward(inputs_embeds, position_ids);
    at::Tensor hidden_states = inputs_embeds;
    for (const auto& layer : *layers_) {
      hidden_states = layer->as<LlamaDecoderLayer>()->forward(hidden_states, cos, sin, mask);
    }
    return norm_->forward(hidden_states);
  }
  const at::Tensor& embedding() const { return embed_tokens_->weight; }

 private:
  torch::nn::Embedding embed_tokens_;
  torch::nn::ModuleList layers_;
  std::shared_ptr<LlamaRMSNorm> norm_{nullptr};
  std::shared_ptr<LlamaRotaryEmbedding> rotary_emb_{nullptr};
};

// LlamaForCausalLM: the model and a head tied to its embedding (tie_word_embeddings), which
// therefore is no parameter of its own, as named_parameters() lists the library's.
class LlamaForCausalLM final : public torch::nn::Module {
 public:
  explicit LlamaForCausalLM(const StepShape& shape)
      : model_(register_module("model", std::make_shared<LlamaModel>(shape))) {}
  at::Tensor forward(const at::Tensor& input_ids) {
    // slice_logits_to_keep with logits_to_keep 0: hidden_states[:, 0:, :], an alias.
    const at::Tensor hidden_states =
        model_->forward(input_ids).index({Slice(), Slice(0, at::indexing::None), Slice()});
    return at::linear(hidden_states, model_->embedding());
  }

 private:
  std::shared_ptr<LlamaModel> model_;
};

const WorkloadRegistration kLlamaWorkload(kLlamaModel, [](const StepShape& shape,
                                                          c10::Device device) {
  return std::unique_ptr<Workload>(std::make_unique<CausalLmWorkload<LlamaForCausalLM>>(
      std::make_shared<LlamaForCausalLM>(shape), device,
      CausalLmWorkload<LlamaForCausalLM>::Sizes{shape[kBatch], shape[kSeq], shape[kVocab]}));
});

}  // namespace
}  // namespace splitstep
