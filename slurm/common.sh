# shellcheck shell=bash
# Sourced by the slurm/*.sbatch scripts inside their job (it is not submitted on its own): reads
# the parameters every script shares, makes the job's results directory and launches splitstep
# with one rank per task. docs/slurm.md describes the parameters.
#
#   SPLITSTEP               the binary (default build/splitstep); relative paths are taken from
#                           the directory sbatch was run in ($SLURM_SUBMIT_DIR)
#   SPLITSTEP_CONFIG        an INI preset (--config); default none: splitstep's GPU defaults
#   SPLITSTEP_OUT           results root (default slurm-results); the job writes to
#                           $SPLITSTEP_OUT/$SLURM_JOB_ID-<name>/
#   SPLITSTEP_LAUNCHER      srun (default) or mpirun (Open MPI's, inside the allocation)
#   SPLITSTEP_SRUN_MPI      srun's --mpi plugin (default pmix); where srun lacks it, mpirun runs
#   SPLITSTEP_LAUNCHER_ARGS more arguments for srun or mpirun (split at blanks)
#   SPLITSTEP_ARGS          more arguments for splitstep (split at blanks), after the script's
#
# The results directory holds job.txt (the job, its nodes and the exact command), nodes.txt
# (which node and host each task ran on), rank-<R>.out (each rank's stdout and stderr),
# report.txt (rank 0's report) and results.json (docs/results-schema.md).

splitstep_die() {
  echo "splitstep job: $*" >&2
  exit 2
}

# splitstep_path PATH: PATH, relative ones taken from the directory sbatch was run in.
splitstep_path() {
  case $1 in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s\n' "${SLURM_SUBMIT_DIR:-$PWD}/$1" ;;
  esac
}

# splitstep_prepare NAME: checks the parameters and makes the results directory $splitstep_dir.
splitstep_prepare() {
  local name=$1
  [ -n "${SLURM_JOB_ID:-}" ] || splitstep_die "not inside a Slurm job: submit this script with sbatch"

  splitstep_binary=$(splitstep_path "${SPLITSTEP:-build/splitstep}")
  [ -x "$splitstep_binary" ] \
    || splitstep_die "SPLITSTEP: $splitstep_binary is not an executable (build it, or set SPLITSTEP)"
  splitstep_config=()
  if [ -n "${SPLITSTEP_CONFIG:-}" ]; then
    local config
    config=$(splitstep_path "$SPLITSTEP_CONFIG")
    [ -r "$config" ] || splitstep_die "SPLITSTEP_CONFIG: cannot read $config"
    splitstep_config=(--config "$config")
  fi
  read -r -a splitstep_args <<<"${SPLITSTEP_ARGS:-}"
  read -r -a splitstep_launcher_args <<<"${SPLITSTEP_LAUNCHER_ARGS:-}"

  splitstep_launcher=${SPLITSTEP_LAUNCHER:-srun}
  splitstep_mpi=${SPLITSTEP_SRUN_MPI:-pmix}
  splitstep_note=""
  case $splitstep_launcher in
    srun)
      if ! srun --mpi=list 2>&1 | grep -Eq "(^|[[:space:]])$splitstep_mpi([[:space:]]|$)"; then
        splitstep_note="srun has no --mpi=$splitstep_mpi plugin here: mpirun launches instead"
        splitstep_launcher=mpirun
      fi
      ;;
    mpirun) ;;
    *) splitstep_die "SPLITSTEP_LAUNCHER: '$splitstep_launcher' is not srun or mpirun" ;;
  esac
  if [ "$splitstep_launcher" = mpirun ]; then
    command -v mpirun >/dev/null || splitstep_die "no mpirun on PATH"
    # Open MPI refuses to run as root without explicit consent (containers and CI run as root).
    if [ "$(id -u)" -eq 0 ]; then
      export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
  fi

  # LibTorch starts a thread per core it may use; without CPU binding every rank would take all
  # of the node's cores. One thread per CPU given to the task, unless OMP_NUM_THREADS says.
  export OMP_NUM_THREADS=${OMP_NUM_THREADS:-${SLURM_CPUS_PER_TASK:-1}}

  splitstep_dir=$(splitstep_path "${SPLITSTEP_OUT:-slurm-results}")/$SLURM_JOB_ID-$name
  mkdir -p "$splitstep_dir" || splitstep_die "cannot make $splitstep_dir"
  [ -z "$splitstep_note" ] || echo "splitstep job: $splitstep_note" >&2

  # Which node and host each task runs on: a step of its own, before the benchmark.
  # shellcheck disable=SC2016 # expanded by each task
  srun --mpi=none --output="$splitstep_dir/nodes.%t" \
    bash -c 'echo "task $SLURM_PROCID node $SLURMD_NODENAME host $(hostname)"' \
    || splitstep_die "srun could not start the tasks (see $splitstep_dir)"
  local task
  for ((task = 0; task < SLURM_NTASKS; task++)); do
    cat "$splitstep_dir/nodes.$task"
    rm -f "$splitstep_dir/nodes.$task"
  done >"$splitstep_dir/nodes.txt"
}

# splitstep_run ARGS...: splitstep ARGS on every task, rank 0's report to report.txt and stdout;
# returns splitstep's exit status.
splitstep_run() {
  local command status=0 gpus
  command=("$splitstep_binary" "$@" "${splitstep_config[@]}" --json "$splitstep_dir/results.json"
           "${splitstep_args[@]}")
  gpus=${SLURM_GPUS_ON_NODE:-0}
  {
    echo "job: $SLURM_JOB_ID ${SLURM_JOB_NAME:-}"
    echo "nodes: ${SLURM_JOB_NUM_NODES:-1} (${SLURM_JOB_NODELIST:-?})"
    echo "tasks: ${SLURM_NTASKS:-?} (per node: ${SLURM_TASKS_PER_NODE:-?})"
    echo "gpus per node: $gpus"
    echo "OMP_NUM_THREADS: $OMP_NUM_THREADS"
    echo "launcher: $splitstep_launcher${splitstep_note:+ ($splitstep_note)}"
    echo "submitted from: ${SLURM_SUBMIT_DIR:-?}"
    echo "started: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    printf 'command:'
    printf ' %q' "${command[@]}"
    echo
  } >"$splitstep_dir/job.txt"
  if [ "$gpus" -gt 0 ] && [ "${SLURM_NTASKS_PER_NODE:-$gpus}" != "$gpus" ]; then
    echo "splitstep job: note: $gpus GPU(s) per node and ${SLURM_NTASKS_PER_NODE} task(s) per node; splitstep runs one rank per GPU (--ntasks-per-node=$gpus)" >&2
  fi

  local launch pid
  if [ "$splitstep_launcher" = srun ]; then
    launch=(srun --mpi="$splitstep_mpi" --kill-on-bad-exit=1 --output="$splitstep_dir/rank-%t.out"
            "${splitstep_launcher_args[@]}" "${command[@]}")
  else
    # Inside the allocation mpirun starts one rank per task slot; each rank's output to its file.
    # shellcheck disable=SC2016 # expanded by each rank
    launch=(mpirun -np "$SLURM_NTASKS" "${splitstep_launcher_args[@]}"
            bash -c 'exec "$@" >"$0/rank-$OMPI_COMM_WORLD_RANK.out" 2>&1' "$splitstep_dir"
            "${command[@]}")
  fi
  "${launch[@]}" &
  pid=$!
  # Slurm's early warning (#SBATCH --signal=B:USR1@N) reaches this shell alone: passed on to the
  # launcher, which forwards it to every rank ("finish this case, write, leave").
  trap 'kill -USR1 "$pid" 2>/dev/null || true' USR1
  # A trapped signal ends `wait` early: wait again until the launcher itself has ended.
  while :; do
    status=0
    wait "$pid" || status=$?
    kill -0 "$pid" 2>/dev/null || break
  done
  trap - USR1
  if [ -f "$splitstep_dir/rank-0.out" ]; then
    cp "$splitstep_dir/rank-0.out" "$splitstep_dir/report.txt"
    cat "$splitstep_dir/report.txt"
  fi
  if [ "$status" -ne 0 ]; then
    echo "splitstep job: splitstep exited with status $status; every rank's output is in $splitstep_dir" >&2
    local f
    for f in "$splitstep_dir"/rank-*.out; do
      if [ "$f" = "$splitstep_dir/rank-0.out" ] || [ ! -s "$f" ]; then continue; fi
      echo "--- ${f##*/} (end)" >&2
      tail -n 5 "$f" >&2
    done
  fi
  echo "results: $splitstep_dir"
  return "$status"
}
