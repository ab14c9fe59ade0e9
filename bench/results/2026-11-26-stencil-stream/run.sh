#!/usr/bin/env bash
# run.sh - on the GPU machine, from the repository root, with binaries built
# here for sm_90 and carried in .gpu/: the warp streaming driver, the stencil
# GPU test (full sizes), the stencil benchmark's star2d cases, and
# compute-sanitizer memcheck of the GPU test at quick sizes. Logs to $OUT.
set -uo pipefail
bin=${BIN:-.gpu}
out=${OUT:-/tmp/out}
mkdir -p "$out"
export PATH="$PATH:/usr/local/cuda/bin"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > "$out/gpu.txt" 2>&1
cat "$out/gpu.txt"
echo "== stream_r"
"$bin/stream_r" ${STREAM_ARGS:-} 2>&1 | tee "$out/stream_r.log"
echo "== gpu_test_stencil (full)"
"$bin/gpu_test_stencil" > "$out/gpu_test_stencil.log" 2>&1; echo "exit $?" >> "$out/gpu_test_stencil.log"
tail -n 4 "$out/gpu_test_stencil.log"
grep -i "fail\|wrong" "$out/gpu_test_stencil.log" | head -20
if [ "${BENCH:-1}" = 1 ]; then
  echo "== tcore-bench-stencil star2d t=3"
  # the measured ceilings of earlier sets (copy bandwidth), cached beside the results folder
  mkdir -p /tmp/bench "$out/bench"
  cp bench/results/2026-11-25b-h100/ceilings-*.json bench/results/2026-11-25e-h200-stencil/ceilings-*.json /tmp/bench/
  "$bin/tcore-bench-stencil" --case "${CASES:-star2d3r 10240^2 t=3,star2d3r 4096^2 t=3,star2d1r 10240^2 t=3,star2d1r 4096^2 t=3,box2d3r 10240^2 t=1,box2d3r 4096^2 t=1}" \
    --out /tmp/bench/results > "$out/bench.log" 2>&1; echo "exit $?" >> "$out/bench.log"
  cp /tmp/bench/results/summary.md /tmp/bench/results/results.csv "$out/bench/"
  tail -n 30 "$out/bench.log"
fi
if [ "${MEMCHECK:-1}" = 1 ]; then
  echo "== memcheck (quick)"
  TCORE_TEST_QUICK=1 timeout 240 compute-sanitizer --tool memcheck "$bin/gpu_test_stencil" > "$out/memcheck.log" 2>&1
  echo "exit $?" >> "$out/memcheck.log"
  tail -n 5 "$out/memcheck.log"
fi
