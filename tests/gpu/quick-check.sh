#!/usr/bin/env bash
# tests/gpu/quick-check.sh - a fast GPU pass for development: build every GPU
# test and tcore-bench (keep going past failures), run each GPU test once,
# then tcore-bench --quick over the workloads given (default: all). Logs go
# to $OUT (packed into one logs.tar.gz) and a summary is printed last.
# Usage: tests/gpu/quick-check.sh [workload,workload,...]
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-$(mktemp -d)}
logs=$out/logs
mkdir -p "$logs"
build=${BUILD:-build-gpu}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >"$logs/configure.log" 2>&1 ||
  { tail -20 "$logs/configure.log"; exit 1; }
targets=$(cmake --build "$build" --target help | sed -n 's/^\.\.\. \(gpu_test_[a-z0-9_]*\).*/\1/p' | tr '\n' ' ')
cmake --build "$build" -j"$(nproc)" --target $targets tcore-bench -- -k >"$logs/build.log" 2>&1 ||
  grep -E "error" "$logs/build.log" | head -20
summary=()
for t in $targets; do
  exe="$build/tests/$t"
  if [ ! -x "$exe" ]; then summary+=("$t: NOT BUILT"); continue; fi
  timeout 180 "$exe" >"$logs/$t.log" 2>&1
  rc=$?
  summary+=("$t: rc=$rc $(grep -E '^[0-9]+ passed' "$logs/$t.log" | tail -1)")
  grep -m 5 FAIL "$logs/$t.log"
done
if [ -x "$build/tcore-bench" ]; then
  timeout ${BENCH_TIMEOUT:-240} "$build/tcore-bench" --quick ${1:+--workload "$1"} --out "$logs/bench" >"$logs/bench.log" 2>&1
  summary+=("tcore-bench --quick: rc=$?")
  grep -iE "error|fail" "$logs/bench.log" | head -20
fi
tar -czf "$out/logs.tar.gz" -C "$out" logs && rm -rf "$logs"
printf '%s\n' "${summary[@]}"
