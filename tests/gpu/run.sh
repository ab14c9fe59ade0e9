#!/usr/bin/env bash
# tests/gpu/run.sh - the full test run on a GPU machine (H100/H200, CUDA 13.0).
#
#   1. configure a fresh build (sm_90, Release) and build everything (-j16);
#   2. ctest: every test (host, gpu, sass, examples); a skipped gpu test is a
#      failure here, since this machine has a GPU; each skipped sub-check
#      (a "SKIPPED: ..." line of a test) is a row of its own in the summary,
#      marked SKIPPED (not a pass, not a failure);
#   3. compute-sanitizer --tool memcheck (with leak check) over every gpu test;
#   4. compute-sanitizer --tool racecheck over every gpu test, with
#      TCORE_TEST_QUICK=1 (tests that know it run reduced sizes);
#   5. the gpu tests again from a compute_80 PTX-only build, which the driver
#      JIT-compiles with __CUDA_ARCH__ = 800: the sm_80 code paths (FP64
#      m16n8k* as m8n8k4 MMAs) on this sm_90 GPU. Skip with --no-sm80-jit;
#   6. tests/gpu/plant.sh on the sm_90 build: every planted fault must make
#      its test fail (quick sizes). Skip with --no-plants.
# Then a summary table; the exit status is non-zero if any step failed.
# With $OUT set, everything is also written there: run.log (this output),
# one log per step and per sanitizer run, ctest's JUnit XML and LastTest.log.
#
# The sass test in ctest needs cuobjdump and nvdisasm: from the CUDA Toolkit,
# PATH, or build/tools (tests/sass/get-cuobjdump.sh; bring that folder along
# where the machine has no network).
#
# Usage: tests/gpu/run.sh [--no-sm80-jit] [--no-plants]    (env: JOBS=16, BUILD=build-gpu)
set -uo pipefail

cd "$(dirname "$0")/../.."
jobs=${JOBS:-16}
build=${BUILD:-build-gpu}
sm80_jit=1
plants=1
for arg in "$@"; do
  case $arg in
    --no-sm80-jit) sm80_jit=0 ;;
    --no-plants) plants=0 ;;
    *) echo "usage: $0 [--no-sm80-jit] [--no-plants]" >&2; exit 2 ;;
  esac
done

logs=$(mktemp -d)
if [ -n "${OUT:-}" ]; then
  logs="$OUT/gpu-tests"
  mkdir -p "$logs"
  exec > >(tee "$logs/run.log") 2>&1
fi

export PATH="$PATH:/usr/local/cuda/bin"
sanitizer=$(command -v compute-sanitizer || true)

names=() results=() times=()
failed=0
# record NAME STATUS SECONDS: one row of the summary.
record() {
  names+=("$1") results+=("$2") times+=("$3")
  case $2 in PASS* | SKIPPED*) ;; *) failed=1 ;; esac
}
# step NAME LOG CMD...: runs CMD, output to the terminal and LOG.
step() {
  local name=$1 log=$2; shift 2
  echo
  echo "=== $name"
  local t0=$SECONDS
  "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 0 ]; then
    record "$name" PASS $((SECONDS - t0))
  else
    record "$name" "FAIL (exit $rc)" $((SECONDS - t0))
  fi
  return "$rc"
}

echo "=== machine"
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader 2>/dev/null || echo "nvidia-smi: not found"
nvcc --version | tail -n 1
cmake --version | head -n 1
[ -n "$sanitizer" ] && "$sanitizer" --version | tail -n 1

# -- 1. configure and build --------------------------------------------------
rm -rf "$build"
built=0
if step "configure (sm_90, Release)" "$logs/configure.log" \
     cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 &&
   step "build (-j$jobs)" "$logs/build.log" cmake --build "$build" -j"$jobs"; then
  built=1
fi

# -- 2. ctest ----------------------------------------------------------------
if [ $built -eq 1 ]; then
  step "ctest (all tests)" "$logs/ctest.log" \
    ctest --test-dir "$build" --output-on-failure --timeout 900 --output-junit "$logs/ctest-junit.xml"
  cp "$build/Testing/Temporary/LastTest.log" "$logs/ctest-LastTest.log" 2>/dev/null
  skipped=$(grep -cE 'Test +#[0-9]+: gpu/.*Skipped' "$logs/ctest.log" || true)
  if [ "$skipped" -gt 0 ]; then record "ctest: no gpu test skipped" "FAIL ($skipped skipped)" 0; fi
  # Skipped sub-checks, one row each: "<test>: <what and why>".
  while IFS= read -r line; do
    [ -n "$line" ] && record "$line" "SKIPPED" 0
  done < <(awk '/^[0-9]+\/[0-9]+ Testing: / { t = $3 } /^SKIPPED: / { sub(/^SKIPPED: /, ""); print t ": " $0 }' \
             "$logs/ctest-LastTest.log" 2>/dev/null | sort -u)
fi

# The gpu test executables of a build: from ctest's label "gpu".
gpu_tests() {
  ctest --test-dir "$1" -L gpu --show-only=json-v1 2>/dev/null |
    python3 -c 'import json,sys
for t in json.load(sys.stdin)["tests"]:
    print(t["command"][0])' 2>/dev/null ||
    find "$1/tests" -maxdepth 1 -type f -perm -u+x -name 'gpu_test_*' | sort
}

# -- 3./4. compute-sanitizer ---------------------------------------------------
# sanitize TOOL ENV...: every gpu test under compute-sanitizer --tool TOOL.
sanitize() {
  local tool=$1; shift
  if [ -z "$sanitizer" ]; then record "compute-sanitizer $tool" "FAIL (compute-sanitizer not found)" 0; return; fi
  local extra=()
  [ "$tool" = memcheck ] && extra=(--leak-check full)
  local exe name t0 rc
  while read -r exe; do
    [ -n "$exe" ] || continue
    name=$(basename "$exe")
    echo
    echo "=== $tool: $name"
    t0=$SECONDS
    env "$@" timeout 1800 "$sanitizer" --tool "$tool" "${extra[@]}" --error-exitcode 86 --print-limit 20 \
      "$exe" 2>&1 | tee "$logs/$tool-$name.log"
    rc=${PIPESTATUS[0]}
    case $rc in
      0) record "$tool: $name" PASS $((SECONDS - t0)) ;;
      77) record "$tool: $name" "FAIL (skipped: no GPU seen)" $((SECONDS - t0)) ;;
      86) record "$tool: $name" "FAIL (sanitizer errors)" $((SECONDS - t0)) ;;
      124) record "$tool: $name" "FAIL (timed out)" $((SECONDS - t0)) ;;
      *) record "$tool: $name" "FAIL (test exit $rc)" $((SECONDS - t0)) ;;
    esac
  done < <(gpu_tests "$build")
}
if [ $built -eq 1 ]; then
  sanitize memcheck TCORE_SANITIZER=memcheck
  sanitize racecheck TCORE_SANITIZER=racecheck TCORE_TEST_QUICK=1
fi

# -- 5. sm_80 code paths through compute_80 PTX ---------------------------------
# Only the tests/gpu executables are built (targets gpu_<file stem>).
if [ $sm80_jit -eq 1 ]; then
  jit_build="$build-sm80ptx"
  rm -rf "$jit_build"
  jit_targets=()
  for src in tests/gpu/test_*.cu tests/gpu/test_*.cpp; do
    [ -e "$src" ] && jit_targets+=("gpu_$(basename "${src%.*}")")
  done
  if step "configure (compute_80 PTX only)" "$logs/configure-sm80ptx.log" \
       cmake -S . -B "$jit_build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=80-virtual &&
     step "build tests/gpu (compute_80 PTX)" "$logs/build-sm80ptx.log" \
       cmake --build "$jit_build" -j"$jobs" --target "${jit_targets[@]}"; then
    step "ctest tests/gpu, JIT from compute_80 PTX" "$logs/ctest-sm80ptx.log" \
      ctest --test-dir "$jit_build" -R '^gpu/' --output-on-failure --timeout 900
    skipped=$(grep -cE 'Test +#[0-9]+: gpu/.*Skipped' "$logs/ctest-sm80ptx.log" || true)
    if [ "$skipped" -gt 0 ]; then record "ctest sm80 PTX: no gpu test skipped" "FAIL ($skipped skipped)" 0; fi
  fi
fi

# -- 6. planted faults -----------------------------------------------------------
if [ $built -eq 1 ] && [ $plants -eq 1 ]; then
  step "planted faults (tests/gpu/plant.sh)" "$logs/plant.log" tests/gpu/plant.sh --no-baseline "$build"
fi

# -- summary -------------------------------------------------------------------
echo
echo "=== summary ($(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1))"
printf '%-58s %-34s %6s\n' "step" "result" "sec"
for i in "${!names[@]}"; do
  printf '%-58s %-34s %6s\n' "${names[$i]}" "${results[$i]}" "${times[$i]}"
done
[ -n "${OUT:-}" ] && echo "logs: $logs"
if [ $failed -ne 0 ]; then
  echo "RESULT: FAILED"
  exit 1
fi
echo "RESULT: all passed"
