#!/usr/bin/env bash
# tests/fuzz/run.sh - build the Matrix Market fuzzer with clang's libFuzzer
# and run it (default 300 s) on tests/fuzz/corpus plus the hand-written seeds.
# New interesting inputs land in a scratch corpus; with --merge they are
# minimised into tests/fuzz/corpus (files over 2 KiB are left out).
#
# Usage: tests/fuzz/run.sh [SECONDS] [--merge]
#        tests/fuzz/run.sh --ci      bounded run for CI: build plus 45 s of
#                                    fuzzing (FUZZ_SECONDS), exit status
#                                    nonzero on a crash, sanitizer report,
#                                    uncaught exception or hang; skips (status
#                                    0, with a message) where no compiler with
#                                    libFuzzer is found.
# Env: CXX=clang++, CUDA_INC=/usr/local/cuda/include, CUDA_LIB=$CUDA_INC/../lib64,
#      FUZZ_OUT=build/fuzz.
# Needs clang++ with libFuzzer (Debian: clang and libclang-rt-<ver>-dev) and
# the CUDA headers and static runtime (tcore/check.cuh includes
# cuda_runtime.h; sparse/dasp.hpp asks the runtime for the SM count, which
# reads 0 without a GPU; no GPU needed).
set -euo pipefail
cd "$(dirname "$0")/../.."
ci=0
merge=0
seconds=300
for arg in "$@"; do
  case "$arg" in
    --ci) ci=1; seconds=${FUZZ_SECONDS:-45} ;;
    --merge) merge=1 ;;
    *) seconds=$arg ;;
  esac
done
cxx=${CXX:-clang++}
cuda_inc=${CUDA_INC:-/usr/local/cuda/include}
cuda_lib=${CUDA_LIB:-$cuda_inc/../lib64}
out=${FUZZ_OUT:-build/fuzz}
mkdir -p "$out"

if [ $ci -eq 1 ]; then
  probe="$out/probe.cpp"
  echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' > "$probe"
  if ! command -v "$cxx" >/dev/null 2>&1 ||
     ! "$cxx" -fsanitize=fuzzer,address,undefined "$probe" -o "$out/probe" >/dev/null 2>&1; then
    echo "fuzz: SKIPPED: '$cxx' cannot build with -fsanitize=fuzzer,address,undefined (install clang and libclang-rt-dev)"
    exit 0
  fi
  if [ ! -f "$cuda_inc/cuda_runtime.h" ] || [ ! -f "$cuda_lib/libcudart_static.a" ]; then
    echo "fuzz: SKIPPED: no cuda_runtime.h under $cuda_inc or libcudart_static.a under $cuda_lib (set CUDA_INC, CUDA_LIB)"
    exit 0
  fi
fi

"$cxx" -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -Iinclude -I"$cuda_inc" tests/fuzz/fuzz_mtx.cpp -o "$out/fuzz_mtx" \
  -L"$cuda_lib" -lcudart_static -ldl -lrt -lpthread
# The CUDA runtime maps memory where ASan's shadow gap would be.
export ASAN_OPTIONS=${ASAN_OPTIONS:-protect_shadow_gap=0}

scratch="$out/scratch"
if [ $ci -eq 1 ]; then
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/tcore-fuzz.XXXXXX")
  trap 'rm -rf "$scratch"' EXIT
fi
mkdir -p "$scratch"
echo "fuzz: $seconds s on tests/fuzz/corpus and tests/fuzz/seeds (findings: $out/crash-*)"
"$out/fuzz_mtx" -max_total_time="$seconds" -max_len=2048 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$out/" -dict=tests/fuzz/mtx.dict "$scratch" tests/fuzz/corpus tests/fuzz/seeds

if [ $merge -eq 1 ]; then
  rm -rf "$out/merged" && mkdir -p "$out/merged"
  "$out/fuzz_mtx" -merge=1 -max_len=2048 "$out/merged" tests/fuzz/corpus tests/fuzz/seeds "$scratch"
  find "$out/merged" -type f -size +2k -delete
  rm -rf tests/fuzz/corpus && mkdir -p tests/fuzz/corpus && cp "$out/merged"/* tests/fuzz/corpus/
  echo "corpus: $(ls tests/fuzz/corpus | wc -l) files"
fi
