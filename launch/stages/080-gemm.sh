# shellcheck shell=bash disable=SC2154 # sourced by launch/verify: dir, gpus, splitstep and the
# rest are its and stages/common.sh's
describe "the bf16 8192 GEMM between two runs of a plain event-pair loop, telemetry on and off"

stage_gemm() {
  needs_gpus 1 || return 1
  local telemetry
  run 120 gemm-ref-before "$build/tests/splitstep_gemm_reference" 8192 bf16 10 8 0 || return 1
  for telemetry in on off; do
    run 60 "gemm-telemetry-$telemetry" mpirun -np "$ranks" "$splitstep" matmul \
      --matmul-sizes 8192 --matmul-dtypes bf16 --min-time 8s --max-time 9s \
      --telemetry "$telemetry" --json "$dir/gemm-telemetry-$telemetry.json" || return 1
  done
  run 120 gemm-ref-after "$build/tests/splitstep_gemm_reference" 8192 bf16 10 8 0 || return 1
  python3 - "$dir" <<'PY' | tee "$dir/gemm-check.txt"
import json, re, sys
out = sys.argv[1]
ref = [float(re.search(r"median ([0-9.]+) ms", open(f"{out}/gemm-ref-{w}.txt").read()).group(1))
       for w in ("before", "after")]
print(f"plain loop, rank 0's GPU: {ref[0]:.4f} ms before, {ref[1]:.4f} ms after")
for mode in ("on", "off"):
    r0 = json.load(open(f"{out}/gemm-telemetry-{mode}.json"))["cases"][0]["ranks"][0]
    ms = r0["summary"]["median"] * 1e3
    print(f"splitstep, telemetry {mode}: rank 0 median {ms:.4f} ms, "
          f"{100 * (ms / ref[0] - 1):+.2f}% against the loop before, {100 * (ms / ref[1] - 1):+.2f}% after")
PY
}
