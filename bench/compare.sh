#!/usr/bin/env bash
# bench/compare.sh: nabla against LibTorch on this machine, in one table of ratios.
# Builds the benchmarks (build-bench/), then runs W1-W5, the per-op table and the
# Fashion-MNIST trainer side by side with LibTorch at 1 and 2 threads, idle and with
# another process keeping one core busy (a shell busy loop). Ratios are nabla / LibTorch
# (below 1: nabla faster), except W4 (nabla / OpenBLAS GFLOP/s, higher is better).
#
# Usage: bench/compare.sh [--no-build] [--quick]
#   --quick skips the per-op table and the trainer (the long parts, ~10 minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${NABLA_BENCH_BUILD:-build-bench}
do_build=1
quick=0
for arg in "$@"; do
  case "$arg" in
    --no-build) do_build=0 ;;
    --quick) quick=1 ;;
    *) echo "bench/compare.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

if [ "$do_build" = 1 ]; then
  bash scripts/setup.sh --with-libtorch --with-data --with-bench
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DNABLA_BUILD_BENCHMARKS=ON \
    -DNABLA_BUILD_TESTS=ON -DNABLA_CONFORMANCE=ON -DNABLA_BUILD_EXAMPLES=ON >/dev/null
  cmake --build "$build" -j"$(nproc)" --target bench_w1 bench_w2 bench_w3 bench_w5 bench_matmul \
    bench_ops fashion_mnist bench_fashion_libtorch >/dev/null
fi
b="$build/bench"
trainer="$build/examples/fashion_mnist/fashion_mnist"

busy_pid=""
start_load() { ( while :; do :; done ) & busy_pid=$!; }
stop_load() { [ -n "$busy_pid" ] && kill "$busy_pid" 2>/dev/null; wait "$busy_pid" 2>/dev/null || true; busy_pid=""; }
trap stop_load EXIT

# The machine and the kernel paths, as the trainer prints them.
"$trainer" --epochs 0 2>/dev/null | sed -n '1,/intra-op/p' || true
echo

rows=()
row() { rows+=("| $1 | $2 | $3 | $4 | $5 | $6 |"); }
# The "threads nabla libtorch ratio" line of a bench_wN run.
wn() { "$b/$1" --threads "$2" | awk -v t="$2" '$1 == t { print $2, $3, $4 }' | tail -1; }

for load in idle busy; do
  [ "$load" = busy ] && start_load
  for t in 1 2; do
    read -r n l r < <(wn bench_w1 "$t"); row "W1 µs/op" "$t" "$load" "$n" "$l" "$r"
    read -r n l r < <(wn bench_w2 "$t"); row "W2 ms/step" "$t" "$load" "$n" "$l" "$r"
    read -r n l r < <(wn bench_w3 "$t"); row "W3 ms/step" "$t" "$load" "$n" "$l" "$r"
    read -r n o r < <("$b/bench_matmul" --threads "$t" | awk -F'|' -v t="$t" '$1 + 0 == t && NF > 5 { gsub(/ /, ""); print $4, $5, $6 }')
    row "W4 sgemm 1024³ GFLOP/s (vs OpenBLAS)" "$t" "$load" "$n" "$o" "$r"
    if [ "$quick" = 0 ]; then
      read -r f fb < <("$b/bench_ops" --threads "$t" --min-ms 20 --rounds 3 2>/dev/null |
        awk -F'|' '/\*\*all\*\*/ { print $3, $4 }' | sed 's/([0-9]*)//g')
      row "op table, geometric mean fwd / fwd+bwd" "$t" "$load" "" "" "$f / $fb"
      ms=$("$trainer" --epochs 1 --threads "$t" --out /tmp/nabla-compare-run | sed -n 's/.*(\([0-9.]*\) ms\/step).*/\1/p')
      s=$("$b/bench_fashion_libtorch" --model cnn --epochs 1 --threads "$t" | sed -n 's/.*, \([0-9.]*\) s$/\1/p')
      lt=$(awk -v s="$s" 'BEGIN { printf "%.2f", 1000 * s / 938 }')
      row "trainer (README's main job) ms/step" "$t" "$load" "$ms" "$lt" "$(awk -v a="$ms" -v b="$lt" 'BEGIN { printf "%.3f", a / b }')"
    fi
  done
  [ "$load" = busy ] && stop_load
done
# A CPU OpenBLAS does not know (a Xeon measured earlier ran its SSE3 "Prescott" kernels),
# emulated by forcing those kernels: LibTorch's products go through OpenBLAS, nabla's not.
for t in 1 2; do
  read -r n l r < <(OPENBLAS_CORETYPE=Prescott wn bench_w2 "$t")
  row "W2 ms/step, OpenBLAS forced to Prescott" "$t" idle "$n" "$l" "$r"
  read -r n l r < <(OPENBLAS_CORETYPE=Prescott wn bench_w3 "$t")
  row "W3 ms/step, OpenBLAS forced to Prescott" "$t" idle "$n" "$l" "$r"
done
w5n=$("$b/bench_w5" | sed -n 's/.*peak RSS \([0-9.]*\) MiB.*/\1/p')
w5l=$("$b/bench_w3" --only libtorch --threads 1 | sed -n 's/.*peak RSS \([0-9.]*\) MiB.*/\1/p')
row "W5 peak RSS MiB (W3 training)" 1 idle "$w5n" "$w5l" "$(awk -v a="$w5n" -v b="$w5l" 'BEGIN { printf "%.3f", a / b }')"

echo "| workload | threads | load | nabla | LibTorch | ratio |"
echo "|---|---:|---|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
