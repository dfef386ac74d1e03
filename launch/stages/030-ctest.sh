# shellcheck shell=bash disable=SC2154 # sourced by launch/verify: dir, gpus, splitstep and the
# rest are its and stages/common.sh's
describe "every test of the build, GPU tests included"

stage_ctest() {
  local status=0
  (cd "$build" && ctest --output-on-failure -j4) >"$dir/ctest.log" 2>&1 || status=$?
  grep -E 'tests passed' "$dir/ctest.log"
  [ "$status" -eq 0 ] || grep -A3 -E 'FAILED|Failed' "$dir/ctest.log" | tail -n 40
  return "$status"
}
