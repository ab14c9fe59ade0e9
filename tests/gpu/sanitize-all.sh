#!/usr/bin/env bash
# tests/gpu/sanitize-all.sh - the GPU tests of a build (binaries built
# elsewhere and carried are fine), run at full size and under
# compute-sanitizer's memcheck (with the leak check), racecheck, initcheck
# and synccheck (TCORE_TEST_QUICK=2), spread over every GPU of the machine:
# jobs go round robin to the GPUs, PER (default 3) at a time on each.
#
#   tests/gpu/sanitize-all.sh [KIND...]     KIND: tests memcheck racecheck initcheck synccheck
#
# Environment: BUILD (default build-gpu; its tests/gpu_test_* are run),
# ONLY (test names, default all but the multi-GPU ones, which need every
# GPU to themselves), GPUS (the GPU indices, default all), TEST_TIME (300)
# and SAN_TIME (600) seconds per job, OUT (logs kept there; else a temporary
# folder), EXCLUDE (a regular expression of kernel names the tools leave
# uninstrumented; default: the bases the tests run beside tcore, cuBLAS's
# nvjet GEMMs, cuSPARSE's kernels and the CUB 2.1.1 scan cuSPARSE carries;
# EXCLUDE= instruments every kernel). One line per job, then a summary;
# exit 1 if any job failed, timed out or reported anything.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD:-build-gpu}
kinds=("$@")
[ ${#kinds[@]} -eq 0 ] && kinds=(tests memcheck racecheck initcheck synccheck)
logs=${OUT:-$(mktemp -d)}/sanitize
mkdir -p "$logs"
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64
export TCORE_MATRIX_DIR=${TCORE_MATRIX_DIR:-$PWD/shared/data/matrices}
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
exclude=${EXCLUDE-nvjet|cusparse|CUB_200101}
echo "uninstrumented kernels: ${exclude:-none}"
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
gpus=${GPUS:-$(seq -s ' ' 0 $(($(nvidia-smi -L | wc -l) - 1)))}
tests=${ONLY:-$(cd "$build/tests" && ls gpu_test_* | grep -v multi_gpu | sort)}

# One job: KIND TEST, on the GPU in CUDA_VISIBLE_DEVICES; prints its line.
run_job() {
  local kind=$1 t=$2 log="$logs/$1-$2.log" t0=$SECONDS rc
  if [ "$kind" = tests ]; then
    timeout "${TEST_TIME:-300}" "$build/tests/$t" > "$log" 2>&1
    rc=$?
  else
    local extra=()
    [ "$kind" = memcheck ] && extra=(--leak-check full)
    [ -n "$exclude" ] && extra+=(--kernel-name-exclude "regex=$exclude")
    TCORE_TEST_QUICK=2 timeout "${SAN_TIME:-600}" "$sanitizer" --tool "$kind" "${extra[@]}" --error-exitcode 86 \
      --print-limit 20 "$build/tests/$t" > "$log" 2>&1
    rc=$?
  fi
  local verdict=PASS
  case $rc in 0) ;; 124) verdict="FAIL (timed out)" ;; 86) verdict="FAIL (reports)" ;; *) verdict="FAIL (exit $rc)" ;; esac
  printf '%-10s %-30s gpu%s %-18s %s (%d s)\n' "$kind" "$t" "$CUDA_VISIBLE_DEVICES" "$verdict" \
    "$(grep -E '^[0-9]+ passed|ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -2 | tr '\n' ' ')" $((SECONDS - t0))
}
export -f run_job
export build logs sanitizer exclude TEST_TIME SAN_TIME

jobs=()
for kind in "${kinds[@]}"; do
  for t in $tests; do jobs+=("$kind $t"); done
done
ngpu=$(echo $gpus | wc -w)
i=0
for g in $gpus; do
  printf '%s\n' "${jobs[@]}" | awk -v k=$i -v n=$ngpu 'NR % n == k' |
    CUDA_VISIBLE_DEVICES=$g xargs -P "${PER:-3}" -L 1 bash -c 'run_job "$0" "$1"' &
  i=$((i + 1))
done | tee "$logs/summary.txt"
wait
failed=$(grep -c 'FAIL' "$logs/summary.txt")
echo "${#jobs[@]} jobs, $failed failed; logs in $logs"
[ "$failed" -eq 0 ]
