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
# folder), BASES (a regular expression of the kernel names of the vendor
# bases the tests run beside tcore: cuBLAS's nvjet GEMMs, cuSPARSE's kernels
# (its namespace and csr2bsr_core) and the CUB 2.1.1 scan cuSPARSE carries).
# One line per job, then a summary; exit 1 if any job failed, timed out or
# reported anything in a kernel other than the bases'. A job whose every
# report lies in a base's kernel (and whose test passed) is listed as
# "BASE ONLY", not as a failure.
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
bases=${BASES:-nvjet_sm|cusparse::|csr2bsr_core|CUB_200101_}
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
gpus=${GPUS:-$(seq -s ' ' 0 $(($(nvidia-smi -L | wc -l) - 1)))}
tests=${ONLY:-$(cd "$build/tests" && ls gpu_test_* | grep -v multi_gpu | sort)}

# Whether every report in a sanitizer log LOG lies in a base's kernel: each
# device code location reported ("at NAME+0xOFFSET") matches BASES, none of
# the reports is of another kind (host API access, internal error), every
# report was printed, and the test itself passed.
reports_in_bases_only() {
  local log=$1 sites
  grep -qE '^[0-9]+ passed, 0 failed' "$log" || return 1
  grep -qE 'Host API memory access error|Internal Sanitizer Error|Program hit|were not printed' "$log" && return 1
  sites=$(grep -E '^========= .* at .*\+0x[0-9a-f]+' "$log")
  [ -n "$sites" ] && ! grep -vqE "$bases" <<< "$sites"
}

# One job: KIND TEST, on the GPU in CUDA_VISIBLE_DEVICES; prints its line.
run_job() {
  local kind=$1 t=$2 log="$logs/$1-$2.log" t0=$SECONDS rc
  if [ "$kind" = tests ]; then
    timeout "${TEST_TIME:-300}" "$build/tests/$t" > "$log" 2>&1
    rc=$?
  else
    local extra=()
    [ "$kind" = memcheck ] && extra=(--leak-check full)
    TCORE_TEST_QUICK=2 timeout "${SAN_TIME:-600}" "$sanitizer" --tool "$kind" "${extra[@]}" --error-exitcode 86 \
      --print-limit 2000 "$build/tests/$t" > "$log" 2>&1
    rc=$?
  fi
  local verdict=PASS
  case $rc in 0) ;; 124) verdict="FAIL (timed out)" ;; 86) verdict="FAIL (reports)" ;; *) verdict="FAIL (exit $rc)" ;; esac
  if [ $rc -eq 86 ] && reports_in_bases_only "$log"; then verdict="BASE ONLY"; fi
  printf '%-10s %-30s gpu%s %-18s %s (%d s)\n' "$kind" "$t" "$CUDA_VISIBLE_DEVICES" "$verdict" \
    "$(grep -E '^[0-9]+ passed|ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -2 | tr '\n' ' ')" $((SECONDS - t0))
}
export -f run_job reports_in_bases_only
export build logs sanitizer bases TEST_TIME SAN_TIME

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
echo "${#jobs[@]} jobs, $failed failed, $(grep -c 'BASE ONLY' "$logs/summary.txt") with reports in the bases only; logs in $logs"
[ "$failed" -eq 0 ]
