# shellcheck shell=bash disable=SC2154 # sourced by launch/verify: dir, gpus, splitstep and the
# rest are its and stages/common.sh's
describe "the device tests alone: CUDA timers, NVML telemetry, every suite on the GPU"

stage_device_tests() {
  run 240 device-tests "$build/tests/splitstep_device_tests"
  local status=$?
  grep -E "PASSED|FAILED|SKIPPED \]" "$dir/device-tests.txt" | tail -n 6
  return "$status"
}
