# shellcheck shell=bash disable=SC2154 # sourced by launch/verify: dir, gpus, splitstep and the
# rest are its and stages/common.sh's
describe "each zoo preset's GPU busy time; host-bound shapes beside eager PyTorch (1 GPU)"

host_models=() host_shapes=()
check_host() {
  local spec
  zoo_list ZOO_MODELS configs
  host_models=("${listed[@]}")
  IFS=';' read -r -a host_shapes \
    <<<"${HOST_SHAPES:-vit-b16 --vit-batch 1;gpt2 --gpt2-batch 1 --gpt2-seq 64;resnet50 --resnet50-batch 2}"
  for spec in "${host_shapes[@]}"; do
    read -r -a listed <<<"$spec"
    [ ${#listed[@]} -gt 0 ] || bad "HOST_SHAPES: an empty shape"
    [ -r "configs/${listed[0]}.ini" ] || bad "HOST_SHAPES: '${listed[0]}' has no preset configs/${listed[0]}.ini"
  done
}

# Whether every graphed step of a results file is within PERCENT of its kernel time (its GPU
# busy share, step/graphed/busy/<mode>, at least 100 - PERCENT; with `recovers`, for a
# host-bound shape: at most 10% of the eager step's idle time left) and its graph check found
# nothing wrong; prints each graphed case's time, gain and share, and the reason of each
# graphed case skipped (a model with a host sync inside it cannot be graphed).
graphed_within() {
  "$python" - "$@" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))
limit = 100 - float(sys.argv[2])
recovers = sys.argv[3:] == ["recovers"]
figures = {f["tag"]: f for d in results["derived"] for f in d.get("figures", [])}
graphed = [t for t in figures if t.startswith("step/graphed/busy/")]
ok = bool(graphed)
for tag in graphed:
    mode = tag.rsplit("/", 1)[1]
    busy = figures[tag]["value"]
    gain = figures.get(f"step/graph_gain/{mode}", {}).get("value", float("nan"))
    step = figures[f"step/graphed/{mode}"]["value"]
    if recovers:
        # A host-bound shape: the graph must take out most of the eager step's idle time.
        idle = step * (1 - busy / 100)
        eager_idle = figures[f"step/idle/{mode}"]["value"]
        good = idle <= 0.1 * eager_idle
        print(f"{sys.argv[1]}: graphed {mode} {step * 1e3:.3f} ms, {gain:.2f}x eager, idle "
              f"{idle * 1e3:.3f} ms against eager's {eager_idle * 1e3:.3f} ms: "
              f"{'recovered' if good else 'NOT recovered'} (at most 10% left)")
    else:
        good = busy >= limit
        print(f"{sys.argv[1]}: graphed {mode} {step * 1e3:.3f} ms, {gain:.2f}x eager, kernels "
              f"{busy:.1f}% of it: {'within' if good else 'OUTSIDE'} {100 - limit:g}% of its "
              f"kernel time")
    ok = ok and good
wrong = [(c["case"], ch) for c in results["cases"] if c["case"].endswith(" graphed")
         for ch in [c.get("check") or {}] if ch.get("wrong", 0) > 0]
for case, check in wrong:
    print(f"{sys.argv[1]}: {case}: {check['wrong']} wrong in the graph check")
skipped = [c for c in results["cases"] if c["case"].endswith(" graphed") and c["skipped"]]
for case in skipped:
    print(f"{sys.argv[1]}: {case['case']}: {'; '.join(case['notes'])}")
if not graphed and not skipped:
    print(f"{sys.argv[1]}: no graphed case")
# A model a graph cannot hold (a host sync inside it) is skipped with its reason, not failed.
sys.exit(0 if (ok or (not graphed and skipped)) and not wrong else 1)
PY
}

# The first host shape's library model as a user exports it (an archive in a scratch folder,
# removed after), run by `splitstep step --model-file` with the model's preset's recipe (the
# optimizer and its implementation, the input), eager and graphed, and the factories it
# was exported from in eager PyTorch (splitstep-analysis eager --like --model-factory ...).
host_exported() {
  local args model like name archive scratch status=0
  read -r -a args <<<"${host_shapes[0]}"
  model=${args[0]}
  like=$dir/splitstep-$model-small-1.json
  name=exported-$model-small-1
  [ -r "$like" ] || { echo "$name: no $like to export the model of"; return 1; }
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/host-exported.XXXXXX") || return 1
  archive=$scratch/$model.pt2
  local factories=(env "EXPORTED_LIKE=$like"
    "PYTHONPATH=analysis:tests/reference${PYTHONPATH:+:$PYTHONPATH}")
  if run 900 "export-$name" "${factories[@]}" "$python" -m splitstep_analysis export \
    exported_zoo:model --batch exported_zoo:batch --loss exported_zoo:loss -o "$archive" &&
    run 600 "splitstep-$name" mpirun -np 1 "$splitstep" step --config "configs/$model.ini" \
      --model-file "$archive" --sync-modes single --precision bf16 --step-graphs on "${steps[@]}" \
      --json "$dir/splitstep-$name.json"; then
    grep -q 'host-bound' "$dir/splitstep-$name.txt" \
      || { echo "$name: no host-bound finding"; status=1; }
    graphed_within "$dir/splitstep-$name.json" 2 recovers || status=1
    run 600 "library-$name" "${factories[@]}" "$python" -m splitstep_analysis eager \
      --like "$dir/splitstep-$name.json" --model-factory exported_zoo:model \
      --batch-factory exported_zoo:batch --loss exported_zoo:loss \
      --json "$dir/library-$name.json" || status=1
  else
    status=1
  fi
  rm -rf "$scratch"
  return "$status"
}

# The host in the step (docs/step.md, "GPU busy time"): each zoo model at its preset, bf16, mode
# single, with its GPU busy time per phase; the first of HOST_SHAPES in every sync mode; then
# each of HOST_SHAPES, a shape small enough that
# launches outrun the kernels, beside the library's own model in eager PyTorch at the same shape
# (splitstep-analysis eager --like); then the first shape's library model exported
# (exported_zoo.py), run with --model-file, eager and graphed, beside its factories in eager
# PyTorch. The stage fails unless every small shape's console says "host-bound". parity.py
# prints the pairs last, with both sides' kernels (each run profiled, its traces in traces/):
# the kernel time per step is judged within 1%, and a whole step where neither side is
# host-bound; where one is, the row says which side and how busy its GPU was.
stage_host() {
  needs_gpus 1 || return 1
  local model spec args name i=0 files=() status=0
  # Every run also graphed (--step-graphs on), and checked: graphed gradients and parameters
  # against eager steps' (mode single has no sync check to spend time on).
  for model in "${host_models[@]}"; do
    name=splitstep-$model-preset
    run 600 "$name" mpirun -np 1 "$splitstep" step --config "configs/$model.ini" \
      --sync-modes single --precision bf16 --step-graphs on "${steps[@]}" \
      --json "$dir/$name.json" || status=1
    graphed_within "$dir/$name.json" 2 || status=1
  done
  # The sync modes graphed: the first small shape in every mode, the buckets' packing and
  # collectives (NCCL, on one rank) inside the graph of sequential and overlap.
  if [ ${#host_shapes[@]} -gt 0 ]; then
    read -r -a args <<<"${host_shapes[0]}"
    name=splitstep-${args[0]}-small-1-modes
    run 600 "$name" mpirun -np 1 "$splitstep" step --config "configs/${args[0]}.ini" \
      --sync-modes none,sequential,overlap,single --precision bf16 --step-graphs on \
      "${steps[@]}" "${args[@]:1}" --json "$dir/$name.json" || status=1
    graphed_within "$dir/$name.json" 2 recovers || status=1
  fi
  for spec in "${host_shapes[@]}"; do
    i=$((i + 1))
    read -r -a args <<<"$spec"
    model=${args[0]}
    name=$model-small-$i
    echo "$name: ${args[*]:1}"
    run 600 "splitstep-$name" mpirun -np 1 "$splitstep" step --config "configs/$model.ini" \
      --sync-modes single --precision bf16 --step-graphs on "${steps[@]}" "${args[@]:1}" \
      --torch-profile "$dir/traces/$name" --json "$dir/splitstep-$name.json" \
      || { status=1; continue; }
    files+=("$dir/splitstep-$name.json")
    grep -q 'host-bound' "$dir/splitstep-$name.txt" \
      || { echo "$name: no host-bound finding"; status=1; }
    graphed_within "$dir/splitstep-$name.json" 2 recovers || status=1
    run 600 "library-$name" "${eager[@]}" --like "$dir/splitstep-$name.json" \
      --precision bf16 --profile "$dir/traces/$name" --json "$dir/library-$name.json" \
      || { status=1; continue; }
    files+=("$dir/library-$name.json")
  done
  [ ${#host_shapes[@]} -gt 0 ] && { host_exported || status=1; }
  grep -h -E 'GPU busy|graph|host-bound|too noisy' "$dir"/splitstep-*.txt
  if [ ${#files[@]} -gt 0 ]; then
    "$python" tests/reference/parity.py "${files[@]}" --kernels >"$dir/parity.txt" 2>&1 \
      || status=1
    cat "$dir/parity.txt"
  fi
  return "$status"
}
