# shellcheck shell=bash disable=SC2034 # its names are read by the stages
# Sourced by launch/verify before the stages (launch/stages/NNN-<stage>.sh): the settings and
# helpers that more than one stage uses.
build=${BUILD_DIR:-build}
splitstep=$build/splitstep
anchor=anchors/nccl-tests/build
python=${PYTHON:-python3}
# splitstep-analysis eager from this checkout, whatever the interpreter has installed.
eager=(env "PYTHONPATH=analysis${PYTHONPATH:+:$PYTHONPATH}" "$python" -m splitstep_analysis eager)
gpus=$(gpu_count)
ranks=${RANKS:-$gpus}
pair=(mpirun -np 2 --bind-to none)
steps=(--warmup 3 --samples 12)

# needs_gpus N: whether this node has N GPUs, saying so when not.
needs_gpus() {
  [ "$gpus" -ge "$1" ] && return 0
  echo "needs $1 GPU(s), $gpus here"
  return 1
}

# zoo_model MODEL: whether MODEL reproduces a library's model (a module in analysis/splitstep_analysis/zoo).
zoo_model() { [ -r "analysis/splitstep_analysis/zoo/${1//-/_}.py" ]; }

# zoo_list VARIABLE PRESETS: into `listed`, the zoo models the environment's VARIABLE names
# (default: every module of analysis/splitstep_analysis/zoo), each with its module and its preset
# PRESETS/<name>.ini.
listed=()
zoo_list() {
  local model module
  listed=()
  if [ -n "${!1:-}" ]; then
    read -r -a listed <<<"${!1}"
  else
    for module in analysis/splitstep_analysis/zoo/*.py; do
      [[ $module == */__init__.py || ! -e $module ]] && continue
      module=${module##*/}
      module=${module%.py}
      listed+=("${module//_/-}")
    done
  fi
  [ ${#listed[@]} -gt 0 ] || bad "$1: no zoo model (analysis/splitstep_analysis/zoo has none)"
  for model in "${listed[@]}"; do
    [ -r "analysis/splitstep_analysis/zoo/${model//-/_}.py" ] \
      || bad "$1: '$model' has no module analysis/splitstep_analysis/zoo/${model//-/_}.py"
    [ -r "$2/$model.ini" ] || bad "$1: '$model' has no preset $2/$model.ini"
  done
}

# precision_list VARIABLE: the comma-separated precisions VARIABLE holds, each checked.
precision_list() {
  local precision
  for precision in ${2//,/ }; do
    case $precision in
      bf16 | fp32 | fp16) ;;
      *) bad "$1: '$precision' is not bf16, fp32 or fp16" ;;
    esac
  done
}

# precisions_ran RESULTS: the precisions of RESULTS's step cases that ran, one a line (a case
# splitstep skipped, for memory say, is named in its console); results schema 2 keeps a case's
# values in "fields", schema 1 in "params".
precisions_ran() {
  "$python" - "$1" <<'EOF'
import json
import sys

ran = []
for case in json.load(open(sys.argv[1]))["cases"]:
    p = case.get("fields", case.get("params"))
    if case["suite"] == "step" and not case["skipped"] and p["precision"] not in ran:
        ran.append(p["precision"])
print("\n".join(ran))
EOF
}
