#!/usr/bin/env bash
# tests/fuzz/run.sh - build the Matrix Market fuzzer with clang's libFuzzer
# and run it (default 300 s) on tests/fuzz/corpus plus the hand-written seeds.
# New interesting inputs land in a scratch corpus; with --merge they are
# minimised into tests/fuzz/corpus (files over 2 KiB are left out).
#
# Usage: tests/fuzz/run.sh [SECONDS] [--merge]     (env: CXX=clang++, JOBS=1)
# Needs clang++ with libFuzzer (Debian: clang and libclang-rt-<ver>-dev) and
# the CUDA headers (tcore/check.cuh includes cuda_runtime.h; no GPU needed).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-300}
merge=0
for arg in "$@"; do [ "$arg" = --merge ] && merge=1; done
cxx=${CXX:-clang++}
cuda_inc=${CUDA_INC:-/usr/local/cuda/include}
out=build/fuzz
mkdir -p "$out/scratch"
"$cxx" -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -Iinclude -I"$cuda_inc" tests/fuzz/fuzz_mtx.cpp -o "$out/fuzz_mtx"
"$out/fuzz_mtx" -max_total_time="$seconds" -max_len=2048 -timeout=10 -rss_limit_mb=2048 \
  -dict=tests/fuzz/mtx.dict "$out/scratch" tests/fuzz/corpus tests/fuzz/seeds
if [ $merge -eq 1 ]; then
  mkdir -p "$out/merged"
  "$out/fuzz_mtx" -merge=1 -max_len=2048 "$out/merged" tests/fuzz/corpus tests/fuzz/seeds "$out/scratch"
  find "$out/merged" -type f -size +2k -delete
  rm -rf tests/fuzz/corpus && mkdir -p tests/fuzz/corpus && cp "$out/merged"/* tests/fuzz/corpus/
  echo "corpus: $(ls tests/fuzz/corpus | wc -l) files"
fi
