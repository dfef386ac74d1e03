# shellcheck shell=bash disable=SC2154 # sourced by launch/verify: dir, gpus, splitstep and the
# rest are its and stages/common.sh's
describe "each of PRESETS on 1 GPU beside its PyTorch reference, profiled kernel by kernel"

# Each preset's models, as its step-models line names them.
models_of() { sed -n 's/^step-models *= *//p' "configs/$1.ini" | tr ',' ' '; }

stage_kernels() {
  needs_gpus 1 || return 1
  local preset model status=0
  mkdir -p "$dir/traces"
  local reference
  for preset in ${PRESETS:-h200-step}; do
    run 120 "np1-$preset" mpirun -np 1 "$splitstep" step --config "configs/$preset.ini" \
      --sync-modes none --check off "${steps[@]}" --torch-profile "$dir/traces/$preset" \
      --json "$dir/np1-$preset.json" || status=1
    for model in $(models_of "$preset"); do
      # A zoo model's reference is its library's model as splitstep ran it, the mlp's its twin.
      reference=(--config "configs/$preset.ini" --model "$model" "${steps[@]}")
      zoo_model "$model" && reference=(--like "$dir/np1-$preset.json" --model "$model")
      run 120 "twin-np1-$preset-$model" "${eager[@]}" "${reference[@]}" \
        --profile "$dir/traces/$preset" --json "$dir/twin-np1-$preset-$model.json" || status=1
      "$python" tests/reference/kernel_table.py \
        "$dir/traces/$preset/splitstep-$model-bf16-none-rank0.json" \
        "$dir/traces/$preset/twin-$model-rank0.json" >"$dir/kernels-$preset-$model.txt" 2>&1 \
        || status=1
    done
    "$python" tests/reference/parity.py "$dir/np1-$preset.json" "$dir"/twin-np1-"$preset"-*.json \
      >"$dir/parity-np1-$preset.txt" 2>&1 || status=1
    tail -n 8 "$dir/parity-np1-$preset.txt"
  done
  return "$status"
}
