#!/usr/bin/env bash
# One job on one H200: c6633c6 (from .kit/before.tar.gz, `git archive c6633c6 -- .
# ':(exclude)results'`) and this tree (named by SPLITSTEP_GIT_REVISION) built side by side, this
# tree's device tests, then the quick preset on one rank four times, alternating before, after,
# before, after, so that each side has two runs of its own to compare against the other's.
# Everything lands under $1, packed into $1.tar.gz.
set -u
out=$1
mkdir -p "$out/before" "$out/after"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
kit=/opt/kit
mkdir -p "$kit" /tmp/before
for deb in .kit/debs/*.deb; do dpkg -x "$deb" "$kit"; done
tar xJf .kit/boost-headers.tar.xz -C "$kit"
tar xzf .kit/before.tar.gz -C /tmp/before
torch_prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
{ nvidia-smi; date -u; hostname; } >"$out/node.txt" 2>&1
(launch/offline-build >"$out/after/build.log" 2>&1; echo "rc=$?" >>"$out/after/build.log") &
(cd /tmp/before && SPLITSTEP_GIT_REVISION=c6633c6e530d SPLITSTEP_NO_INSTALL=1 \
   SPLITSTEP_TORCH_PREFIX=$torch_prefix SPLITSTEP_EXTRA_PREFIX=$kit/usr \
   SPLITSTEP_CMAKE_ARGS=-DSPLITSTEP_WERROR=OFF launch/setup && cmake --build build) \
  >"$out/before/build.log" 2>&1 &
wait
(date -u && build/tests/splitstep_device_tests) >"$out/after/device-tests.log" 2>&1
for run in 1 2; do
  for side in before after; do
    root=$PWD
    [ "$side" = before ] && root=/tmp/before
    (cd "$root" && date -u && mpirun -np 1 build/splitstep all --config configs/quick.ini \
       --json "$out/$side/quick-$run.json") >"$out/$side/quick-$run.log" 2>&1
  done
done
tar czf "$out.tar.gz" -C "$(dirname "$out")" "$(basename "$out")"
