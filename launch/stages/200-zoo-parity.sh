# shellcheck shell=bash disable=SC2154 # sourced by launch/verify: dir, gpus, splitstep and the
# rest are its and stages/common.sh's
describe "each zoo model, preset and drawn shapes, against the library's own model (1 GPU)"

zoo_models=() zoo_draws=3 zoo_seed='' zoo_precisions=bf16,fp32
check_zoo_parity() {
  zoo_list ZOO_MODELS configs
  zoo_models=("${listed[@]}")
  zoo_draws=${ZOO_DRAWS:-3}
  case $zoo_draws in '' | *[!0-9]*) bad "ZOO_DRAWS: '$zoo_draws' is not a count" ;; esac
  zoo_seed=${ZOO_SEED:-$(date +%s)}
  case $zoo_seed in
    '' | *[!0-9]*) bad "ZOO_SEED: '$zoo_seed' is not a seed (an integer >= 0)" ;;
  esac
  zoo_precisions=${ZOO_PRECISIONS:-bf16,fp32}
  precision_list ZOO_PRECISIONS "$zoo_precisions"
}

# For each zoo model, its preset and ZOO_DRAWS shapes drawn from ZOO_SEED
# (tests/reference/zoo_shapes.py; the seed in seed.txt, the shapes in shapes-<model>.txt and
# .json): splitstep on one GPU at the shape in every precision, profiled; the library's own model
# as splitstep ran it (splitstep-analysis eager --like), profiled; the kernel table of each pair. Then
# parity.py on all of them with the kernel lists, printed last: the stage fails unless every
# row is within 2% and every pair's parameter counts and kernel lists are equal.
stage_zoo_parity() {
  needs_gpus 1 || return 1
  local model label name traces precision line shapes precisions args files=() status=0
  echo "seed $zoo_seed (ZOO_SEED=$zoo_seed draws these shapes again)," \
    "$zoo_draws draw(s) per model, $zoo_precisions"
  echo "$zoo_seed" >"$dir/seed.txt"
  for model in "${zoo_models[@]}"; do
    "$python" tests/reference/zoo_shapes.py --model "$model" --preset "configs/$model.ini" \
      --seed "$zoo_seed" --draws "$zoo_draws" --json "$dir/shapes-$model.json" \
      >"$dir/shapes-$model.txt" 2>&1 || { cat "$dir/shapes-$model.txt"; status=1; continue; }
    mapfile -t shapes <"$dir/shapes-$model.txt"
    for line in "${shapes[@]}"; do
      read -r label line <<<"$line"
      read -r -a args <<<"$line"
      name=$model-$label
      traces=$dir/traces/$name
      echo "$name: ${args[*]:-configs/$model.ini as it is}"
      run 600 "splitstep-$name" mpirun -np 1 "$splitstep" step --config "configs/$model.ini" \
        --sync-modes single --precision "$zoo_precisions" --check off "${steps[@]}" \
        --torch-profile "$traces" "${args[@]}" --json "$dir/splitstep-$name.json" \
        || { status=1; continue; }
      files+=("$dir/splitstep-$name.json")
      mapfile -t precisions < <(precisions_ran "$dir/splitstep-$name.json")
      for precision in "${precisions[@]}"; do
        [ -n "$precision" ] || continue
        run 600 "library-$name-$precision" "${eager[@]}" --like "$dir/splitstep-$name.json" \
          --precision "$precision" --profile "$traces" \
          --json "$dir/library-$name-$precision.json" || { status=1; continue; }
        files+=("$dir/library-$name-$precision.json")
        "$python" tests/reference/kernel_table.py --labels splitstep,library \
          "$traces/splitstep-$model-$precision-single-rank0.json" \
          "$traces/library-$model-$precision-rank0.json" >"$dir/kernels-$name-$precision.txt" 2>&1 \
          || status=1
      done
    done
  done
  "$python" tests/reference/parity.py "${files[@]}" --kernels --strict --csv "$dir/parity.csv" \
    >"$dir/parity.txt" 2>&1 || status=1
  cat "$dir/parity.txt"
  echo "seed $zoo_seed; the shapes: $dir/shapes-*.txt"
  return "$status"
}
