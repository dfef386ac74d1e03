# shellcheck shell=bash disable=SC2154 # sourced by launch/verify: dir, gpus, splitstep and the
# rest are its and stages/common.sh's
describe "builds splitstep here without network (launch/offline-build)"

stage_build() {
  launch/offline-build >"$dir/build.log" 2>&1 || { tail -n 40 "$dir/build.log"; return 1; }
  tail -n 1 "$dir/build.log"
}
