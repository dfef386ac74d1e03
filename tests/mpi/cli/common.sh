# Shared by the CLI tests: fail with a message, and run splitstep under mpirun so that every rank
# reports its own exit status ("rank=R status=S").
fail() {
  echo "FAIL: $*" >&2
  [ -n "${output:-}" ] && printf '%s\n' "--- output ---" "$output" >&2
  exit 1
}

# mpirun_each_rank MPIEXEC RANKS BINARY ARGS...: one line "rank=R status=S" per rank on stdout.
mpirun_each_rank() {
  local mpiexec=$1 ranks=$2
  shift 2
  # shellcheck disable=SC2086
  timeout 60 "$mpiexec" -np "$ranks" ${SPLITSTEP_MPIEXEC_FLAGS:-} \
    sh -c '"$@"; echo "rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-?}} status=$?"' splitstep "$@"
}
