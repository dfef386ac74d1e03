# shellcheck shell=bash disable=SC2154 # sourced by launch/verify: dir, gpus, splitstep and the
# rest are its and stages/common.sh's
describe "PARITY_CONFIG's step against its PyTorch reference on 1 and 2 ranks, the ratio table"

parity_extra=()
check_parity() {
  local owned arg
  read -r -a parity_extra <<<"${PARITY_ARGS:-}"
  [ -r "${PARITY_CONFIG:-configs/h200-step.ini}" ] \
    || bad "PARITY_CONFIG: cannot read ${PARITY_CONFIG:-configs/h200-step.ini}"
  for owned in sync-modes json ddp no-sync optimizer-only profile device; do
    for arg in "${parity_extra[@]}"; do
      [[ $arg == "--$owned" || $arg == "--$owned="* ]] && bad "PARITY_ARGS: --$owned is set by the parity stage"
    done
  done
}

# parity_given NAME: whether PARITY_ARGS names --NAME.
parity_given() {
  local arg
  for arg in "${parity_extra[@]}"; do [[ $arg == "--$1" || $arg == "--$1="* ]] && return 0; done
  return 1
}

# twin_args RESULTS MODEL PRECISION INPUT [IMPLEMENTATION]: splitstep-analysis eager's options for one case
# of the parity stage, one a line: for a zoo model its library's model as splitstep ran it in
# RESULTS (--like), for the mlp its twin with the stage's common options ($common).
twin_args() {
  if zoo_model "$2"; then
    printf '%s\n' --like "$1" --model "$2" --precision "$3"
    return
  fi
  local impl=()
  [[ -n ${5:-} ]] && impl=(--optimizer-impl "$5")
  printf '%s\n' "${common[@]}" --model "$2" --precision "$3" --input "$4" "${impl[@]}"
}

# 1 rank: splitstep mode none, the twin alone, the twin's optimizer step alone, per model; 2
# ranks: splitstep modes none and overlap, the twin under DDP and under DDP's no_sync(); then the
# ratio table (tests/reference/parity.py), printed last. Without a GPU both run on the CPU (a
# check of the procedure, not a measurement).
stage_parity() {
  local mpi=(mpirun --bind-to none) device=() timing=() common cases line model precision input
  local impl args variant flags name port=29541 alone_done=" "
  # splitstep refuses an option given twice: the defaults only where PARITY_ARGS gave none.
  parity_given warmup || timing+=(--warmup 3)
  parity_given samples || timing+=(--samples 15)
  if [ "$gpus" -eq 0 ]; then
    echo "no GPU visible: splitstep and the twin run on the CPU"
    mpi+=(--oversubscribe)
    device=(--device cpu)
  fi
  common=(--config "${PARITY_CONFIG:-configs/h200-step.ini}" "${timing[@]}" "${device[@]}"
          "${parity_extra[@]}")
  run 600 splitstep-np1 "${mpi[@]}" -np 1 "$splitstep" step "${common[@]}" --sync-modes none \
    --json "$dir/splitstep-np1.json" || return 1
  # What splitstep ran, one line per model, precision and input (and optimizer implementation,
  # where it names one), so that the twin runs exactly those. Results schema 2 keeps a case's
  # values in "fields", schema 1 in "params".
  mapfile -t cases < <("$python" - "$dir/splitstep-np1.json" <<'EOF'
import json
import sys

seen = []
for case in json.load(open(sys.argv[1]))["cases"]:
    if case["suite"] != "step":
        continue
    p = case.get("fields", case.get("params"))
    line = " ".join([p["model"], p["precision"], p["input"], p.get("optimizer_impl", "")])
    if line not in seen:
        seen.append(line)
print("\n".join(seen))
EOF
)
  [[ ${#cases[@]} -gt 0 && -n ${cases[0]} ]] || { echo "splitstep ran no step case"; return 1; }
  for line in "${cases[@]}"; do
    read -r model precision input impl <<<"$line"
    mapfile -t args < <(twin_args "$dir/splitstep-np1.json" "$model" "$precision" "$input" "$impl")
    run 600 "twin-np1-$model-$precision" "${eager[@]}" "${args[@]}" \
      --json "$dir/twin-np1-$model-$precision.json" || return 1
    if [[ $alone_done != *" $model "* ]]; then
      run 600 "twin-np1-optimizer-$model" "${eager[@]}" "${args[@]}" --optimizer-only \
        --json "$dir/twin-np1-optimizer-$model.json" || return 1
      alone_done+="$model "
    fi
  done
  if [[ $gpus -eq 1 ]]; then
    echo "one GPU: the two-rank runs are left out"
  else
    run 600 splitstep-np2 "${mpi[@]}" -np 2 "$splitstep" step "${common[@]}" \
      --sync-modes none,overlap --json "$dir/splitstep-np2.json" || return 1
    for line in "${cases[@]}"; do
      read -r model precision input impl <<<"$line"
      mapfile -t args < <(twin_args "$dir/splitstep-np2.json" "$model" "$precision" "$input" \
        "$impl")
      for variant in ddp nosync; do
        flags=(--ddp)
        [[ $variant == nosync ]] && flags+=(--no-sync)
        name=twin-np2-$variant-$model-$precision
        # A port per run: the previous run's may not be free again yet.
        MASTER_PORT=$port run 600 "$name" "${mpi[@]}" -np 2 -x MASTER_PORT \
          "${eager[@]}" "${flags[@]}" "${args[@]}" --json "$dir/$name.json" || return 1
        port=$((port + 1))
      done
    done
  fi
  "$python" tests/reference/parity.py "$dir"/splitstep-np*.json "$dir"/twin-*.json \
    --csv "$dir/parity.csv" >"$dir/parity.txt" || { cat "$dir/parity.txt"; return 1; }
  cat "$dir/parity.txt"
}
