#!/usr/bin/env bash
# A fresh clone stays clean through configuring (launch/setup): nothing generated lands in the
# source tree, so the build does not report its revision as "-dirty".
set -u
source "$(dirname "$0")/common.sh"
source_dir=$1 torch_prefix=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
git clone -q "$source_dir" "$dir/clone" || fail "git clone failed"
cd "$dir/clone" || fail "no clone"
output=$(SPLITSTEP_NO_INSTALL=1 SPLITSTEP_TORCH_PREFIX="$torch_prefix" launch/setup 2>&1) \
  || fail "launch/setup failed"
status=$(git status --porcelain --ignored=no)
[ -z "$status" ] || fail "the clone changed: $status"
env -u SPLITSTEP_GIT_REVISION cmake -DSOURCE_DIR="$PWD" -DOUTPUT="$dir/GitRevision.cpp" \
  -P cmake/WriteGitRevision.cmake >/dev/null 2>&1 || fail "WriteGitRevision failed"
revision=$(grep -o 'return "[^"]*"' "$dir/GitRevision.cpp")
grep -q -- '-dirty' <<<"$revision" && fail "the revision reads as dirty: $revision"
echo "ok: clean after launch/setup; $revision"
