#!/usr/bin/env bash
# tests/gpu/quick-check.sh - one bounded GPU pass: build every GPU test and
# tcore-bench (keep going past failures), run each GPU test once
# (TCORE_TEST_QUICK=1 sizes unless QUICK=0), memcheck over the tests named in
# MEMCHECK and racecheck over those in RACECHECK (TCORE_TEST_QUICK=2, each at
# most SANITIZER_TIME seconds, default 90), then one tcore-bench run per
# argument "workload[:case,case...]".
# Every step is cut off so that the logs are packed into $OUT/logs.tar.gz
# before DEADLINE seconds (default 560); a summary is printed last. TESTS, a
# regular expression, limits the GPU tests built and run (default: all).
# PREBUILT=1 runs the binaries already in BUILD (tcore-bench, tests/gpu_test_*)
# instead of configuring and building; CEILINGS names a cached ceilings file
# (bench/results/*/ceilings-<device>.json) to reuse. BENCH_TIME (default 400)
# caps each tcore-bench run, TEST_TIME (default 60) each GPU test.
# Usage: tests/gpu/quick-check.sh [workload[:cases]] ...
set -uo pipefail
cd "$(dirname "$0")/../.."
start=$SECONDS
deadline=${DEADLINE:-560}
out=${OUT:-$(mktemp -d)}
logs=$out/logs
mkdir -p "$logs"
build=${BUILD:-build-gpu}
[ "${QUICK:-1}" = 1 ] && export TCORE_TEST_QUICK=1
left() { echo $((deadline - (SECONDS - start) - 15)); }
# bounded SECONDS CMD...: runs CMD for at most SECONDS and the time left.
bounded() {
  local want=$1; shift
  local t; t=$(left)
  [ "$t" -gt "$want" ] && t=$want
  [ "$t" -le 0 ] && return 124
  timeout "$t" "$@"
}
summary=()
if [ "${PREBUILT:-0}" = 1 ]; then
  # Binaries built elsewhere for sm_90 (same toolkit): $build/tcore-bench, $build/tests/gpu_test_*.
  targets=$(cd "$build/tests" 2>/dev/null && ls gpu_test_* 2>/dev/null | grep -E "${TESTS:-.}" | tr '\n' ' ')
  export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64
  summary+=("build: prebuilt ($build)")
else
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >"$logs/configure.log" 2>&1 ||
    { tail -20 "$logs/configure.log"; exit 1; }
  targets=$(cmake --build "$build" --target help | sed -n 's/^\.\.\. \(gpu_test_[a-z0-9_]*\).*/\1/p' |
    grep -E "${TESTS:-.}" | tr '\n' ' ')
  t0=$SECONDS
  bounded 400 cmake --build "$build" -j"$(nproc)" --target $targets tcore-bench -- -k >"$logs/build.log" 2>&1 ||
    grep -E "error" "$logs/build.log" | head -20
  summary+=("build: $((SECONDS - t0)) s")
fi
# A ceilings file measured earlier on this device kind saves the start-up measurement.
[ -n "${CEILINGS:-}" ] && [ -f "$CEILINGS" ] && cp "$CEILINGS" "$logs/"
for t in $targets; do
  exe="$build/tests/$t"
  if [ ! -x "$exe" ]; then summary+=("$t: NOT BUILT"); continue; fi
  t0=$SECONDS
  bounded "${TEST_TIME:-60}" "$exe" >"$logs/$t.log" 2>&1
  rc=$?
  summary+=("$t: rc=$rc $(grep -E '^[0-9]+ passed' "$logs/$t.log" | tail -1) ($((SECONDS - t0)) s)")
  grep -m 3 FAIL "$logs/$t.log"
done
# Sanitizer passes run the tests with TCORE_TEST_QUICK=2 (smallest sizes).
for tool in memcheck racecheck; do
  list=MEMCHECK
  [ "$tool" = racecheck ] && list=RACECHECK
  for t in ${!list:-}; do
    TCORE_TEST_QUICK=2 bounded "${SANITIZER_TIME:-90}" compute-sanitizer --tool "$tool" "$build/tests/$t" \
      >"$logs/$tool-$t.log" 2>&1
    summary+=("$tool $t: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/$tool-$t.log" | tail -1)")
  done
done
for spec in "$@"; do
  w=${spec%%:*}; cases=""
  [ "$spec" != "$w" ] && cases=${spec#*:}
  bounded "${BENCH_TIME:-400}" "$build/tcore-bench" --workload "=$w" ${cases:+--case "$cases"} --out "$logs/bench-$w" \
    >"$logs/bench-$w.log" 2>&1
  summary+=("tcore-bench $w: rc=$?")
done
tar -czf "$out/logs.tar.gz" -C "$out" logs && rm -rf "$logs"
printf '%s\n' "${summary[@]}"
