#!/usr/bin/env bash
# The archives the CLI tests train (cli_model_file_np2/4, slurm_step_scaling_exported), exported
# once by `splitstep-analysis export` into OUTDIR as the CTest fixture exported_models: the tiny
# Sequential, tiny configs of torchvision's ResNet-50, timm's ViT-B/16 and Hugging Face's Llama,
# and that Llama with transformers' own loss. The tests copy what they change.
#   export_models.sh PYTHON OUTDIR
set -euo pipefail
python=$1 out=$2
cd "$(dirname "$0")"
rm -rf "$out"
mkdir -p "$out"
export_model() {  # export_model NAME MODEL BATCH LOSS
  "$python" -m splitstep_analysis export "$2" --batch "$3" --loss "$4" -o "$out/$1.pt2" \
    >"$out/$1.log" 2>&1 || { cat "$out/$1.log" >&2; echo "export of $1 failed" >&2; exit 1; }
}
export_model seq sequential:model sequential:batch mse
export_model resnet resnet:model resnet:batch cross-entropy
export_model vit vit:model vit:batch cross-entropy
export_model llama decoders:llama decoders:batch cross-entropy
export_model llama_hf decoders:llama decoders:hf_batch decoders:loss
# Read by the Slurm job's ranks, which may run as another user.
chmod 755 "$out"
chmod 644 "$out"/*.pt2
echo "ok: $(cd "$out" && ls ./*.pt2 | tr '\n' ' ')"
