#!/usr/bin/env bash
# The GPU check (docs/cuda.md), run on the lent GPU machine from the repository root:
#   bash scripts/gpu_check.sh            (with .gpu-deps carried: scripts/gpu_deps.sh)
#   bash scripts/gpu_check.sh diagnose   (one failing test under compute-sanitizer; below)
# builds nabla with CUDA for the GPU there, runs every test labelled `cuda` (the CUDA
# unit tests and the op table against the CPU), the Fashion-MNIST example on the GPU, and
# bench/bench_gpu against the PyTorch installed there (bench/gpu_torch.py), then prints a
# short table last. Logs go to $OUT (the device tool's output folder) when set. Designed
# to finish in under 8 minutes on 16 cores.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/nabla-gpu-check}
mkdir -p "$out"
log() { echo "gpu_check: $* (at ${SECONDS} s)"; }
# Every stage gets at most what is left of GPU_CHECK_SECONDS (default 540), so the summary
# prints before the device call's own limit even when a stage hangs.
deadline=${GPU_CHECK_SECONDS:-540}
cap() { local left=$((deadline - SECONDS)); ((left < 5)) && left=5; ((left < $1)) && echo $left || echo $1; }
summary=()
row() { summary+=("$1|$2"); }

log "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
nvcc --version | tail -2
nproc

# Debian's packages, unpacked into a private root (never into /).
deps=$PWD/.gpu-deps/root
if [ -d .gpu-deps ] && [ ! -d "$deps" ]; then
  for f in .gpu-deps/*.deb; do dpkg -x "$f" "$deps"; done
fi
lib=$deps/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$lib/openblas-pthread:$lib:${LD_LIBRARY_PATH:-}
zlib_args=()
if [ ! -f /usr/include/zlib.h ]; then
  zlib_so=$(ls /usr/lib/x86_64-linux-gnu/libz.so.1 /lib/x86_64-linux-gnu/libz.so.1 2>/dev/null | head -1)
  zlib_args=(-DZLIB_INCLUDE_DIR="$deps/usr/include" -DZLIB_LIBRARY="$zlib_so")
fi

log "configure and build"
gen=()
keep_going=(-k)  # make: go on past a failed file, so one run shows every error
command -v ninja >/dev/null && { gen=(-G Ninja); keep_going=(-k 0); }
cmake -S . -B build-gpu "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DNABLA_CUDA=ON \
  -DNABLA_KERNEL_ISAS=native -DNABLA_WITH_DNNL=OFF -DNABLA_WITH_ONNX=OFF \
  -DNABLA_DISTRIBUTED=OFF -DNABLA_CONFORMANCE_LIBTORCH=OFF -DNABLA_BUILD_TESTS=ON \
  -DNABLA_BUILD_EXAMPLES=ON -DNABLA_QUICK_EXAMPLES=ON -DNABLA_BUILD_BENCHMARKS=ON \
  -DCMAKE_PREFIX_PATH="$deps/usr" -DNABLA_CBLAS_INCLUDE_DIR="$deps/usr/include/x86_64-linux-gnu/openblas-pthread" \
  -DNABLA_OPENBLAS_LIBRARY="$lib/openblas-pthread/libopenblas.so" \
  -DNABLA_JSON_INCLUDE_DIR="$deps/usr/include" "${zlib_args[@]}" >"$out/configure.log" 2>&1 ||
  { tail -30 "$out/configure.log"; exit 1; }
if timeout "$(cap 420)" cmake --build build-gpu -j"$(nproc)" --target test_cuda test_conformance_cuda \
    test_core fashion_mnist bench_gpu -- "${keep_going[@]}" >"$out/build.log" 2>&1; then
  row build ok
else
  grep -E "error:|Error " "$out/build.log" | sort -u | head -40
  row build FAILED
fi

# `bash scripts/gpu_check.sh diagnose`: after the build, compute-sanitizer's view of one
# failing test (which CUDA call fails, with the host backtrace), then the same test
# rebuilt with each of DIAG_FLAGS' CUDA flag sets (separated by '|'); no other stage.
if [ "${1:-}" = diagnose ]; then
  t=build-gpu/tests/test_cuda
  f=${DIAG_TEST:-Cuda.ElementwiseAndBroadcastMatchTheCpu}
  timeout "$(cap 90)" compute-sanitizer --tool memcheck --show-backtrace host --print-limit 8 \
    "$t" --gtest_filter="$f" >"$out/sanitizer.log" 2>&1
  grep -m 12 -E "=========|FAILED|PASSED" "$out/sanitizer.log"
  CUDA_MODULE_LOADING=EAGER timeout "$(cap 30)" "$t" --gtest_filter="$f" >"$out/eager.log" 2>&1
  row "EAGER module loading" "$(grep -m1 -E '^\[  (PASSED|FAILED)  \]' "$out/eager.log")"
  obj=$(find build-gpu -name 'elementwise.cu.o' | head -1)
  row "folded host kernel stubs" "$(nm "$obj" | awk '$2 ~ /^[tTwW]$/ && /elementwise_kernel/ && !/cold/ {print $1}' | sort | uniq -d | wc -l)"
  cuobjdump -res-usage "$obj" 2>&1 | grep -A1 -m2 "UnaryOpE0Eff" | cut -c1-220
  timeout "$(cap 60)" compute-sanitizer --tool memcheck --print-limit 4 \
    build-gpu/tests/conformance/test_conformance_cuda --gtest_filter='Cuda_reductions.sort*' \
    >"$out/sort.log" 2>&1
  row "sort under memcheck" "$(grep -m1 -E 'ERROR SUMMARY' "$out/sort.log") $(grep -m1 -E '^\[  (PASSED|FAILED)  \]' "$out/sort.log")"
  IFS='|' read -ra variants <<<"${DIAG_FLAGS:-}"
  for flags in "${variants[@]}"; do
    log "variant: $flags"
    cmake build-gpu -DCMAKE_CUDA_FLAGS="$flags" >>"$out/variants.log" 2>&1
    timeout "$(cap 120)" cmake --build build-gpu -j"$(nproc)" --target test_cuda >>"$out/variants.log" 2>&1
    timeout "$(cap 30)" "$t" --gtest_filter="$f" >>"$out/variants.log" 2>&1
    row "with $flags" "$(grep -E '^\[  (PASSED|FAILED)  \] [0-9]' "$out/variants.log" | tail -1)"
  done
  echo
  echo "==== gpu_check diagnose summary ===="
  for r in "${summary[@]}"; do printf '%-34s %s\n' "${r%%|*}" "${r#*|}"; done
  exit 0
fi

log "tests labelled cuda"
# The unit tests through ctest; the op table (the other `cuda` test) directly, once, so
# its per-entry failures land in its own log.
timeout "$(cap 240)" ctest --test-dir build-gpu -L cuda -E conformance.cuda --output-on-failure \
  --timeout 200 -j4 >"$out/ctest.log" 2>&1
row "ctest -L cuda (unit tests)" "$(grep -E 'tests passed|tests failed' "$out/ctest.log" | tail -1)"
grep -E "^\[  FAILED  \]" "$out/ctest.log" | sort -u | head -30
timeout "$(cap 200)" build-gpu/tests/conformance/test_conformance_cuda --gtest_brief=1 \
  >"$out/optable.log" 2>&1
row "op table on CUDA" "$(grep -E '^\[  PASSED  \]|^\[  FAILED  \] [0-9]+ test' "$out/optable.log" | tr '\n' ' ')"
grep -E "^\[  FAILED  \]" "$out/optable.log" | sort -u | head -30

log "fashion_mnist on the GPU"
data=$deps/usr/share/datasets/fashion-mnist
if [ -d "$data" ]; then
  (cd build-gpu && timeout "$(cap 120)" examples/fashion_mnist/fashion_mnist --device cuda --model cnn --limit 30000 \
     --epochs 1 --data "$data" --out /tmp/nabla-gpu-run >"$out/example.log" 2>&1)
  row "fashion_mnist cnn, 1 epoch" "$(grep -iE 'test accuracy|error' "$out/example.log" | tail -1)"
fi

log "benchmarks"
timeout "$(cap 100)" build-gpu/bench/bench_gpu >"$out/bench_nabla.txt" 2>&1
timeout "$(cap 100)" python3 bench/gpu_torch.py >"$out/bench_torch.txt" 2>&1
for key in w2_step_ms w3_step_ms matmul_4096x4096x4096_tflops matmul_256x768x3072_tflops \
    w2_mallocs_per_20_steps w2_host_syncs_per_20_steps w3_mallocs_per_20_steps \
    w3_host_syncs_per_20_steps; do
  n=$(awk -v k=$key '$1 == k {print $2}' "$out/bench_nabla.txt")
  t=$(awk -v k=$key '$1 == k {print $2}' "$out/bench_torch.txt")
  row "$key" "nabla ${n:-?}  torch ${t:--}"
done

# compute-sanitizer's memcheck over the CUDA unit tests, in what time is left.
if command -v compute-sanitizer >/dev/null; then
  log "memcheck"
  timeout "$(cap 150)" compute-sanitizer --tool memcheck --print-limit 20 \
    build-gpu/tests/test_cuda >"$out/memcheck.log" 2>&1
  row "memcheck, test_cuda" "$(grep -m1 'ERROR SUMMARY' "$out/memcheck.log") $(grep -m1 -E '^\[  (PASSED|FAILED)  \]' "$out/memcheck.log")"
fi

echo
echo "==== gpu_check summary ($(head -1 "$out/gpu.txt")) ===="
for r in "${summary[@]}"; do printf '%-34s %s\n' "${r%%|*}" "${r#*|}"; done
