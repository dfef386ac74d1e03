# shellcheck shell=bash
# Sourced by the launch/ scripts (not run on its own): messages, a bounded and timed run of one
# command, the GPU count, the analysis command, and what mpirun needs on every machine
# splitstep runs on. It changes no shell option: each script sets its own.

# The checkout this file belongs to, and the name of the script that sourced it.
splitstep_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
splitstep_me=${0##*/}

say() { printf '%s: %s\n' "$splitstep_me" "$*"; }
# die MESSAGE: something went wrong on the way (exit 1).
die() { printf '%s: %s\n' "$splitstep_me" "$*" >&2; exit 1; }
# bad MESSAGE: the caller's input is wrong (exit 2, the project's status for bad input).
bad() { printf '%s: %s\n' "$splitstep_me" "$*" >&2; exit 2; }

# Open MPI refuses to run as root without explicit consent (containers and CI run as root).
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# gpu_count: how many GPUs nvidia-smi lists (0 without a driver).
gpu_count() {
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true
  else
    echo 0
  fi
}

# run LIMIT_S NAME COMMAND...: COMMAND, ended after LIMIT_S seconds, its console to $dir/NAME.txt
# and its wall seconds to $dir/NAME.seconds; prints one line with its exit status, its wall time
# and its last line of output, and returns its exit status ($dir: the caller's output folder).
run() {
  local limit=$1 name=$2 start end status=0
  shift 2
  start=$(date +%s.%N)
  timeout "$limit" "$@" >"${dir:?}/$name.txt" 2>&1 || status=$?
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f\n", e - s }' >"$dir/$name.seconds"
  printf '[%s] exit %d, %s s: %s\n' "$name" "$status" "$(cat "$dir/$name.seconds")" \
    "$(tail -n 1 "$dir/$name.txt" | cut -c1-120)"
  return "$status"
}

# analysis SUBCOMMAND ARG...: splitstep's analysis command (analysis/, docs/analysis.md): the one
# launch/setup installed into .venv, else the package from this checkout with the python3 on
# PATH (a GPU node's, whose python3 brings pandas).
analysis() {
  if [ -x "$splitstep_root/.venv/bin/splitstep-analysis" ]; then
    "$splitstep_root/.venv/bin/splitstep-analysis" "$@"
  else
    PYTHONPATH=$splitstep_root/analysis${PYTHONPATH:+:$PYTHONPATH} \
      python3 -m splitstep_analysis "$@"
  fi
}
