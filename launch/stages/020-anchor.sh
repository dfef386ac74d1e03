# shellcheck shell=bash disable=SC2154 # sourced by launch/verify: dir, gpus, splitstep and the
# rest are its and stages/common.sh's
describe "builds nccl-tests from .kit/nccl-tests-*.tar.gz into anchors/nccl-tests"

stage_anchor() {
  local tarball
  tarball=$(find .kit -maxdepth 1 -name 'nccl-tests-*.tar.gz' 2>/dev/null | sort | head -n 1)
  [ -n "$tarball" ] || { echo "no .kit/nccl-tests-*.tar.gz"; return 1; }
  mkdir -p anchors
  [ -d anchors/nccl-tests ] || tar xzf "$tarball" -C anchors || return 1
  make -C anchors/nccl-tests -j"$(nproc)" src.build CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" \
    NCCL_HOME="${NCCL_HOME:-/usr}" MPI=1 MPI_HOME="${MPI_HOME:-/usr/lib/x86_64-linux-gnu/openmpi}" \
    NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" >"$dir/anchor.log" 2>&1 \
    || { tail -n 20 "$dir/anchor.log"; return 1; }
  echo "nccl-tests binaries: $(find "$anchor" -name '*_perf' | wc -l)"
}
