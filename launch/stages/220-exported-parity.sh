# shellcheck shell=bash disable=SC2154 # sourced by launch/verify: dir, gpus, splitstep and the
# rest are its and stages/common.sh's
describe "each zoo model exported from the library, against it and the built-in model"

exported_models=() exported_presets=configs exported_precisions=bf16,fp32 exported_ranks=()
check_exported_parity() {
  local n
  exported_presets=${EXPORTED_PRESETS:-configs}
  [ -d "$exported_presets" ] || bad "EXPORTED_PRESETS: no folder $exported_presets"
  EXPORTED_MODELS=${EXPORTED_MODELS:-${ZOO_MODELS:-}} zoo_list EXPORTED_MODELS "$exported_presets"
  exported_models=("${listed[@]}")
  exported_precisions=${EXPORTED_PRECISIONS:-bf16,fp32}
  precision_list EXPORTED_PRECISIONS "$exported_precisions"
  read -r -a exported_ranks <<<"${EXPORTED_RANKS:-1 $([ "$gpus" -ge 2 ] && echo 2)}"
  [ ${#exported_ranks[@]} -gt 0 ] || bad "EXPORTED_RANKS: no rank count"
  for n in "${exported_ranks[@]}"; do
    case $n in '' | *[!0-9]* | 0) bad "EXPORTED_RANKS: '$n' is not a rank count" ;; esac
    [[ $gpus -eq 0 || $n -le $gpus ]] || bad "EXPORTED_RANKS: $n ranks, but $gpus GPU(s) here"
  done
}

# export_archives FOLDER: each model of EXPORTED_MODELS exported from the library at its preset
# (exported_zoo.py, EXPORTED_CONFIG, with splitstep-analysis export) into FOLDER/<model>.pt2,
# one after another, each marked FOLDER/<model>.done or .failed when it ends. On a GPU node it
# keeps off the host's first quarter of cores, left to the timed runs (their host threads
# launch; the GPU computes): a library model's eager step at its preset takes minutes on the
# CPU.
export_archives() {
  local folder=$1 model cores=() threads=() count
  count=$(nproc)
  if [ "$gpus" -gt 0 ] && [ "$count" -ge 4 ] && command -v taskset >/dev/null; then
    cores=(taskset -c "$((count / 4))-$((count - 1))")
    threads=("OMP_NUM_THREADS=$((count - count / 4))")
  fi
  for model in "${exported_models[@]}"; do
    # Kept from an earlier run (EXPORTED_ARCHIVES): the archive of the same preset.
    [ -e "$folder/$model.done" ] && [ -e "$folder/$model.pt2" ] && continue
    rm -f "$folder/$model.failed"
    if EXPORTED_LIKE='' EXPORTED_CONFIG="$exported_presets/$model.ini" \
      PYTHONPATH=analysis:tests/reference${PYTHONPATH:+:$PYTHONPATH} \
      run 900 "export-$model" env "${threads[@]}" "${cores[@]}" "$python" -m splitstep_analysis \
      export exported_zoo:model --batch exported_zoo:batch --loss exported_zoo:loss \
      -o "$folder/$model.pt2"; then
      touch "$folder/$model.done"
    else
      touch "$folder/$model.failed"
    fi
  done
}

# For each model of EXPORTED_MODELS at its preset, in every precision, at each rank count of
# EXPORTED_RANKS (one: mode single; more: none and overlap): splitstep's built-in model
# (builtin-<model>-np<N>.json); the library's model as it ran (splitstep-analysis eager --like:
# alone, or under DDP and DDP's no_sync(); library-<model>-<precision>-np<N>[-ddp|-nosync].json);
# that library model exported once (export_archives, in the background from the start; the
# archive in a scratch folder, removed after its runs) and run by `splitstep step --model-file`
# with the same preset and options, a run per precision (exported-<model>-<precision>-np<N>.json).
# Every run is profiled (traces/), and parity.py on all of it (--exported pairs each exported run
# with its built-in one; --kernels holds their kernel lists), printed last: the stage passes only
# when every row is within 2% (kernel time 1%), every case found its partners, every pair's
# parameter counts are equal and its kernel lists are the same, but for what the library
# launches to make transformers' mask decisions (docs/own-model.md). Without a GPU everything
# runs on CPU ranks: a check of the procedure, not a measurement.
stage_exported_parity() {
  local mpi=(mpirun --bind-to none) device=() common model n modes builtin precision exporter
  local variant flags name scratch port=29561 files=() declared=() precisions status=0
  local traces=$dir/traces
  if [ "$gpus" -eq 0 ]; then
    echo "no GPU visible: CPU ranks (a check of the procedure, not a measurement)"
    mpi+=(--oversubscribe)
    device=(--device cpu)
  fi
  if [ -n "${EXPORTED_ARCHIVES:-}" ]; then
    scratch=$EXPORTED_ARCHIVES
    mkdir -p "$scratch" || return 1
  else
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/exported-parity.XXXXXX") || return 1
  fi
  # A marker without its archive (one removed to export it again) is stale: the foreground must
  # not take it for this run's.
  for model in "${exported_models[@]}"; do
    [ -e "$scratch/$model.done" ] && [ -e "$scratch/$model.pt2" ] && continue
    rm -f "$scratch/$model.done" "$scratch/$model.failed"
  done
  export_archives "$scratch" &
  exporter=$!
  for model in "${exported_models[@]}"; do
    common=(--config "$exported_presets/$model.ini" --check off "${steps[@]}" "${device[@]}")
    for n in "${exported_ranks[@]}"; do
      modes=single
      [ "$n" -gt 1 ] && modes=none,overlap
      builtin=$dir/builtin-$model-np$n.json
      rm -f "$builtin"  # an earlier run's, in a folder used again, is not this run's
      run 600 "builtin-$model-np$n" "${mpi[@]}" -np "$n" "$splitstep" step "${common[@]}" \
        --precision "$exported_precisions" --sync-modes "$modes" --json "$builtin" \
        --torch-profile "$traces/builtin-$model-np$n" || { status=1; continue; }
      files+=("$builtin")
      mapfile -t precisions < <(precisions_ran "$builtin")
      for precision in "${precisions[@]}"; do
        [ -n "$precision" ] || continue
        name=library-$model-$precision-np$n
        if [ "$n" -eq 1 ]; then
          if run 600 "$name" "${eager[@]}" --like "$builtin" --precision "$precision" \
            --json "$dir/$name.json" --profile "$traces/$name"; then
            files+=("$dir/$name.json")
          else
            status=1
          fi
          continue
        fi
        for variant in ddp nosync; do
          flags=(--ddp)
          [[ $variant == nosync ]] && flags+=(--no-sync)
          # A port per run: the previous run's may not be free again yet.
          if MASTER_PORT=$port run 600 "$name-$variant" "${mpi[@]}" -np "$n" -x MASTER_PORT \
            "${eager[@]}" "${flags[@]}" --like "$builtin" --precision "$precision" \
            --json "$dir/$name-$variant.json" --profile "$traces/$name-$variant"; then
            files+=("$dir/$name-$variant.json")
          else
            status=1
          fi
          port=$((port + 1))
        done
      done
    done
  done
  for model in "${exported_models[@]}"; do
    common=(--config "$exported_presets/$model.ini" --check off "${steps[@]}" "${device[@]}")
    # An exporter that died without a marker ends the wait: the model failed.
    while [ ! -e "$scratch/$model.done" ] && [ ! -e "$scratch/$model.failed" ]; do
      kill -0 "$exporter" 2>/dev/null || break
      sleep 1
    done
    [ -e "$scratch/$model.done" ] || { status=1; continue; }
    for n in "${exported_ranks[@]}"; do
      modes=single
      [ "$n" -gt 1 ] && modes=none,overlap
      builtin=$dir/builtin-$model-np$n.json
      [ -e "$builtin" ] || continue
      mapfile -t precisions < <(precisions_ran "$builtin")
      # A run per precision: one the graph cannot run in ends its run, not the others'.
      for precision in "${precisions[@]}"; do
        [ -n "$precision" ] || continue
        name=exported-$model-$precision-np$n
        if ! run 600 "$name" "${mpi[@]}" -np "$n" "$splitstep" step "${common[@]}" \
          --precision "$precision" --model-file "$scratch/$model.pt2" --sync-modes "$modes" \
          --json "$dir/$name.json" --torch-profile "$traces/$name"; then
          # mpirun's own lines come last: the reason is splitstep's line.
          grep -m 1 '^splitstep: ' "$dir/$name.txt"
          status=1
          continue
        fi
        files+=("$dir/$name.json")
        declared+=(--exported "$dir/$name.json=$builtin")
      done
    done
    [ -n "${EXPORTED_ARCHIVES:-}" ] || rm -f "$scratch/$model.pt2"
  done
  wait "$exporter"
  [ -n "${EXPORTED_ARCHIVES:-}" ] || rm -rf "$scratch"
  # Kernel lists on a GPU only: CPU ranks launch none (parity.py's "no GPU kernels").
  local kernels=()
  [ "$gpus" -gt 0 ] && kernels=(--kernels)
  "$python" tests/reference/parity.py "${files[@]}" "${declared[@]}" --strict "${kernels[@]}" \
    --csv "$dir/parity.csv" >"$dir/parity.txt" 2>&1 || status=1
  cat "$dir/parity.txt"
  return "$status"
}
