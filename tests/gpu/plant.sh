#!/usr/bin/env bash
# tests/gpu/plant.sh - every planted fault must make its test fail.
#
# A test consults TCORE_TEST_PLANT=<name> (tests/common/test_util.hpp) at the
# place where the fault belongs: an output element perturbed or made NaN
# after the kernel, a product dropped from a sum, an empty call that writes
# its output, a call left out so the poisoned output stays unwritten, no
# check run at all, a cudaGetDeviceCount error. For each (test, plant) pair
# below the test runs with the plant set and must exit non-zero (and not 77,
# which is a skip) after printing "PLANTED: <name>" (so the plant was
# reached). Each test also runs once without a plant and must pass
# (--no-baseline leaves that out). Prints a table "plant / test / exit / ok";
# the exit status is non-zero if any row is not ok.
#
# GPU tests need a GPU; --host-only runs the host rows alone. Quick sizes
# (TCORE_TEST_QUICK=1) unless QUICK=0. ONLY="gpu_test_scan gpu_test_gemm"
# keeps the rows of those tests, PLANTS="drop_term nan_result" those plants.
#
# Usage: tests/gpu/plant.sh [--host-only] [--no-baseline] [BUILD_DIR]
#        (default BUILD_DIR: build-gpu; run from anywhere, tests run from
#        the repository root as ctest runs them)
set -uo pipefail

cd "$(dirname "$0")/../.."
host_only=0 baseline=1 build=""
for arg in "$@"; do
  case $arg in
    --host-only) host_only=1 ;;
    --no-baseline) baseline=0 ;;
    -*) echo "usage: $0 [--host-only] [--no-baseline] [BUILD_DIR]" >&2; exit 2 ;;
    *) build=$arg ;;
  esac
done
build=${build:-${BUILD:-build-gpu}}
quick=${QUICK:-1}
[ "$quick" = 0 ] && quick=""

# test binary (under $build/tests) : plants
host_pairs=(
  "host_test_test_util:nan_result zero_checks"
  "host_test_pic:nan_result"
  "host_test_sparse_csr:nan_result"
)
gpu_pairs=(
  "gpu_test_scan:nan_result drop_term write_on_empty device_error"
  "gpu_test_reduce:nan_result drop_term unwritten device_error"
  "gpu_test_gemv:nan_result drop_term write_on_empty unwritten device_error"
  "gpu_test_gemm:nan_result drop_term write_on_empty device_error"
  "gpu_test_spmv:nan_result drop_term unwritten device_error"
  "gpu_test_spgemm:nan_result drop_term device_error"
  "gpu_test_pic:perturb nan_result device_error"
  "gpu_test_bfs:perturb device_error"
  "gpu_test_stencil:nan_result perturb device_error"
  "gpu_test_stencil_3d:nan_result perturb device_error"
  "gpu_test_scale:nan_result perturb zero_checks device_error"
  "gpu_test_frag_mma:nan_result device_error"
  "gpu_test_interp:perturb unwritten nan_result"
  "gpu_test_fft:nan_result perturb nan_round_trip"
  "gpu_test_user_gemv:nan_result drop_term unwritten zero_checks"
  "gpu_test_user_spmv_rows:nan_result drop_term unwritten zero_checks"
  "gpu_test_user_bfs_step:perturb"
  "gpu_test_multi_gpu_spmv:mgpu_spmv_perturb zero_checks"
  "gpu_test_multi_gpu_stencil:perturb zero_checks"
)
pairs=("${host_pairs[@]}")
[ $host_only -eq 0 ] && pairs+=("${gpu_pairs[@]}")

logs=${OUT:+$OUT/plant}
logs=${logs:-$(mktemp -d)}
mkdir -p "$logs"
rows=() bad=0
# run TEST PLANT: one row; PLANT "-" is the baseline (must pass).
run() {
  local test=$1 plant=$2 exe="$build/tests/$1" log="$logs/$1.$2.log" rc ok
  if [ ! -x "$exe" ]; then
    rows+=("$(printf '%-16s %-26s %5s  %s' "$plant" "$test" "-" "NOT OK (not built)")"); bad=1; return
  fi
  if [ "$plant" = - ]; then
    env -u TCORE_TEST_PLANT ${quick:+TCORE_TEST_QUICK=$quick} timeout 1800 "$exe" > "$log" 2>&1
  else
    env TCORE_TEST_PLANT="$plant" ${quick:+TCORE_TEST_QUICK=$quick} timeout 1800 "$exe" > "$log" 2>&1
  fi
  rc=$?
  if [ "$plant" = - ]; then
    if [ $rc -eq 0 ]; then ok=ok; else ok="NOT OK (baseline failed)"; fi
  elif [ $rc -eq 77 ]; then
    ok="NOT OK (skipped: no GPU?)"
  elif [ $rc -eq 0 ]; then
    ok="NOT OK (passed with the fault)"
  elif ! grep -q "PLANTED: $plant" "$log"; then
    ok="NOT OK (plant not reached)"
  else
    ok=ok
  fi
  [ "$ok" = ok ] || bad=1
  rows+=("$(printf '%-16s %-26s %5s  %s' "$plant" "$test" "$rc" "$ok")")
}
for pair in "${pairs[@]}"; do
  test=${pair%%:*}
  if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $test "* ]]; then continue; fi
  [ $baseline -eq 1 ] && run "$test" -
  for plant in ${pair#*:}; do
    if [ -n "${PLANTS:-}" ] && [[ " $PLANTS " != *" $plant "* ]]; then continue; fi
    run "$test" "$plant"
  done
done

printf '%-16s %-26s %5s  %s\n' "plant" "test" "exit" "ok"
printf '%s\n' "${rows[@]}"
echo "logs: $logs"
exit $bad
