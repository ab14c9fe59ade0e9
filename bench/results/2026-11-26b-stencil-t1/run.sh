#!/usr/bin/env bash
# run.sh - on the GPU machine, from the repository root, with binaries built
# for sm_90 and carried in .gpu/: the t = 1 probe timed (ONLY picks its
# sections) with the clocks, power and throttle reasons sampled beside it,
# then profiled by ncu (NCU=1: one launch per case; clocks left alone);
# TEST=1 the stencil GPU test at full sizes, MEMCHECK=1 compute-sanitizer
# memcheck of it at quick sizes, CASES the benchmark's cases ("all": every
# case). Logs to $OUT.
set -uo pipefail
bin=${BIN:-.gpu}
out=${OUT:-/tmp/out}
mkdir -p "$out"
export PATH="$PATH:/usr/local/cuda/bin"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > "$out/gpu.txt" 2>&1
cat "$out/gpu.txt"
# clocks, power and throttle reasons every 100 ms while the probes run
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv -lms 100 > "$out/smi.csv" 2>&1 &
smi=$!
for p in ${PROBES-t1_probe}; do
  echo "== $p"
  "$bin/$p" 2>&1 | tee "$out/$p.log"
done
kill $smi
if [ "${NCU:-0}" = 1 ]; then
  echo "== ncu"
  ONLY="${NCU_ONLY:-}" PROFILE=1 timeout 400 ncu --clock-control none \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
    --section WarpStateStats --section Occupancy --section SchedulerStats \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active \
    "$bin/${NCU_PROBE:-t1_probe}" > "$out/ncu.log" 2>&1
  echo "exit $?" >> "$out/ncu.log"
  grep -E "^  [a-z_0-9]+.*\(|Duration|DRAM Throughput|dram__bytes|lts__t_sector_hit|pipe_fp64|Memory Throughput|Achieved Occupancy|Issue Slots Busy|No Eligible|Registers Per|Stall" "$out/ncu.log" | head -150
fi
if [ "${TEST:-0}" = 1 ]; then
  echo "== gpu_test_stencil (full)"
  "$bin/gpu_test_stencil" > "$out/gpu_test_stencil.log" 2>&1; echo "exit $?" >> "$out/gpu_test_stencil.log"
  tail -n 4 "$out/gpu_test_stencil.log"
  grep -i "fail\|wrong" "$out/gpu_test_stencil.log" | head -20
fi
if [ "${MEMCHECK:-0}" = 1 ]; then
  echo "== memcheck (quick)"
  TCORE_TEST_QUICK=1 timeout 300 compute-sanitizer --tool memcheck "$bin/gpu_test_stencil" > "$out/memcheck.log" 2>&1
  echo "exit $?" >> "$out/memcheck.log"
  tail -n 5 "$out/memcheck.log"
fi
if [ -n "${CASES:-}" ]; then
  echo "== tcore-bench-stencil"
  # the measured ceilings of earlier sets (copy bandwidth), cached beside the results folder
  mkdir -p /tmp/bench "$out/bench"
  cp bench/results/2026-11-25b-h100/ceilings-*.json bench/results/2026-11-25e-h200-stencil/ceilings-*.json /tmp/bench/
  filter=(--case "$CASES")
  [ "$CASES" = all ] && filter=()
  "$bin/tcore-bench-stencil" "${filter[@]}" --out /tmp/bench/results > "$out/bench.log" 2>&1; echo "exit $?" >> "$out/bench.log"
  cp /tmp/bench/results/summary.md /tmp/bench/results/results.csv "$out/bench/"
  grep -E "GStencil|exit" "$out/bench.log" | tail -n 60
fi
