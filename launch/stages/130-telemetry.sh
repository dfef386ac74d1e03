# shellcheck shell=bash disable=SC2154 # sourced by launch/verify: dir, gpus, splitstep and the
# rest are its and stages/common.sh's
describe "the MLP step with telemetry and a trace: clock and power per phase (2 GPUs)"

stage_telemetry() {
  needs_gpus 2 || return 1
  run 120 step-telemetry "${pair[@]}" "$splitstep" step --config configs/h200-step.ini \
    --step-models mlp --sync-modes none,overlap --min-time 4s --max-time 6s --check off \
    --trace "$dir/trace-step.json" --json "$dir/step-telemetry.json" \
    --csv "$dir/step-telemetry.csv" || return 1
  grep -A14 -i "clock and power by phase" "$dir/step-telemetry.txt" | cut -c1-170
  grep -i "telemetry:" "$dir/step-telemetry.txt" | cut -c1-250
  gzip -f "$dir/trace-step.json"
}
