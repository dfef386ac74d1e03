# shellcheck shell=bash disable=SC2154 # sourced by launch/verify: dir, gpus, splitstep and the
# rest are its and stages/common.sh's
describe "allreduce with rank 1 stopped, stopped late, killed; mpirun interrupted (2 GPUs)"

# fault NAME: one sweep, disturbed once two of its cases are in the JSON; the run is meant to
# end early, so its console, exit status, time to end and JSON are the record.
fault() {
  local name=fault-$1 json="$dir/fault-$1.json" job target at status
  rm -f "$json"
  timeout 150 "${pair[@]}" "$splitstep" allreduce --bytes 1M,64M,256M,1G,4G --min-time 1s \
    --max-time 2s --timeout 10s --json "$json" >"$dir/$name.txt" 2>&1 &
  job=$!
  if ! wait_for_cases "$json" 2 100 "$job"; then
    echo "[$name] no two cases within 100 s"
    end_job "$job"
    return 1
  fi
  target=$(rank_pid "$job" 1)
  at=$SECONDS
  case $1 in
    stopped) kill -STOP "$target" ;;
    late) kill -STOP "$target"; sleep 11; kill -CONT "$target" ;;  # after --timeout, in the roll call
    killed) kill -KILL "$target" ;;
    interrupted) target=$(pgrep -P "$job"); kill -INT "$target" ;;  # mpirun, below timeout
  esac
  wait "$job"
  status=$?
  end_job "$job"
  echo "[$name] exit $status, ended $((SECONDS - at)) s after the fault (pid $target)" \
    | tee -a "$dir/$name.txt"
  grep -E "^(splitstep: rank|The run ended early)" "$dir/$name.txt" | cut -c1-250
  python3 - "$json" <<'PY' | tee -a "$dir/$name.txt"
import json, sys
doc = json.load(open(sys.argv[1]))
print("json: complete %s, %d cases kept: %s" % (doc["complete"], len(doc["cases"]),
      ", ".join(c["case"] for c in doc["cases"])))
print("json: ended: %s" % doc["ended"])
PY
}

stage_faults() {
  needs_gpus 2 || return 1
  local name status=0
  source tests/mpi/cli/common.sh  # wait_for_cases, rank_pid, end_job
  for name in stopped late killed interrupted; do fault "$name" || status=1; done
  return "$status"
}
