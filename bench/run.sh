#!/usr/bin/env bash
# bench/run.sh - builds tcore-bench in a fresh Release build for sm_90 and runs
# it on the GPU machine (H100/H200, CUDA 13.0, cmake).
#
# usage: bench/run.sh [tcore-bench options]      (none: every workload's headline
#   cases, the README table's rows, in about 8 minutes on an H100; --full: every
#   case; --quick: small sizes, about a minute)
#   e.g. bench/run.sh --workload mma_peak,scale --quick
#
# Writes results.csv, results.json, summary.md and tcore-bench.log into the
# results folder (--out, default results/latest in the build folder, beside
# tcore-bench; the ceilings cache goes to its parent), draws the charts when
# python3 has matplotlib, copies all of it plus the ceilings cache into $OUT
# when $OUT is set, prints summary.md last, and exits with tcore-bench's
# status (0 ok, 1 a workload failed, 2 no GPU or bad options, 130/143 stopped by
# SIGINT/SIGTERM: the files are then marked partial; tee ignores SIGINT so that
# a Ctrl-C reaches tcore-bench alone and its last lines still reach the log). Runs to keep
# go into bench/results/<device>/ by hand (bench/results/README.md says how);
# a fresh build folder starts without earlier runs and ceilings (--out
# elsewhere keeps them).
#
# Environment: TCORE_BENCH_BUILD (build folder, default build-bench-release in
# the repository), TCORE_BENCH_KEEP_BUILD=1 (reuse that build instead of
# starting fresh), TCORE_BENCH_JOBS (default 16), TCORE_CUDA_ARCH (default 90).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TCORE_BENCH_BUILD:-$root/build-bench-release}
jobs=${TCORE_BENCH_JOBS:-16}
arch=${TCORE_CUDA_ARCH:-90}

# The results folder: the one given with --out, else results/latest beside
# tcore-bench in the build folder (passed explicitly once the build is found).
args=("$@")
results=""
for ((i = 0; i < ${#args[@]}; ++i)); do
  case "${args[i]}" in
    --out) results=${args[i + 1]:-} ;;
    --out=*) results=${args[i]#--out=} ;;
  esac
done

echo "== configure ($build, sm_$arch, Release)"
if [ "${TCORE_BENCH_KEEP_BUILD:-0}" != 1 ]; then
  rm -rf "$build"
fi
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch" \
  -DTCORE_BUILD_TESTS=OFF -DTCORE_BUILD_EXAMPLES=ON -DTCORE_BUILD_BENCH=ON || { echo "run.sh: configure failed"; exit 3; }

echo "== build tcore-bench (-j$jobs)"
cmake --build "$build" --target tcore-bench -j "$jobs" || { echo "run.sh: build failed"; exit 3; }
bench=$(find "$build" -maxdepth 2 -type f -name tcore-bench -perm -u+x | head -n 1)
[ -n "$bench" ] || { echo "run.sh: tcore-bench not found under $build"; exit 3; }
if [ -z "$results" ]; then
  results=$(cd "$(dirname "$bench")" && pwd)/results/latest
  args+=(--out "$results")
fi

if [ -z "${TCORE_COMMIT:-}" ] && commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null); then
  export TCORE_COMMIT=$commit
fi

echo "== run: $bench ${args[*]}"
mkdir -p "$results"
"$bench" "${args[@]}" 2>&1 | (trap '' INT; tee "$results/tcore-bench.log")
status=${PIPESTATUS[0]}

if python3 -c "import matplotlib" 2>/dev/null && [ -f "$results/results.json" ]; then
  echo "== charts"
  python3 "$root/bench/plot.py" "$results" || echo "run.sh: plot.py failed (results are unaffected)"
else
  echo "== charts skipped (needs python3 with matplotlib: pip install matplotlib; then python3 bench/plot.py $results)"
fi

if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  for f in "$results"/results.csv "$results"/results.json "$results"/summary.md "$results"/tcore-bench.log \
           "$results"/*.png "$(dirname "$results")"/ceilings-*.json; do
    [ -f "$f" ] && cp "$f" "$OUT/"
  done
  echo "== copied results into $OUT"
fi

echo
if [ -f "$results/summary.md" ]; then
  cat "$results/summary.md"
else
  echo "run.sh: no summary.md (tcore-bench exited with $status)"
fi
exit "$status"
