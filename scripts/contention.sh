#!/usr/bin/env bash
# Contention (bench/README.md, by hand, not in CI): W2 and W3 at 1 and 2 threads,
# nabla beside LibTorch in one process, first on a quiet machine, then while another
# process keeps one core busy. Under that load nabla's 2-thread step must stay within 1.5x
# of its 1-thread step (its pool must not spin-wait for the busy core).
# Usage: scripts/contention.sh [BUILD_DIR]   (default build-bench, built here if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-bench}
if [ ! -x "$build/bench/bench_w3" ]; then
  bash scripts/setup.sh --with-bench
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DNABLA_BUILD_BENCHMARKS=ON \
    ${NABLA_CMAKE_ARGS:-} >/dev/null
  cmake --build "$build" -j"$(nproc)" --target bench_w2 bench_w3
fi

# The "1" and "2" rows of a bench_w2/bench_w3 table: threads, nabla ms, LibTorch ms, ratio.
rows() { awk '$1 == "1" || $1 == "2"'; }

status=0
for w in w2 w3; do
  out=$("$build/bench/bench_$w")
  [ "$w" = w2 ] && echo "$out" | sed -n '1,/^$/p'  # the CPU and kernel paths
  quiet=$(echo "$out" | rows)
  bash -c 'while :; do :; done' &
  busy=$!
  loaded=$("$build/bench/bench_$w" | rows)
  kill "$busy"
  wait "$busy" 2>/dev/null || true
  echo "${w^^} ms/step     quiet: nabla LibTorch | one core busy: nabla LibTorch"
  paste <(echo "$quiet") <(echo "$loaded") |
    awk '{printf "  %s thread(s) %12.2f %8.2f | %21.2f %8.2f\n", $1, $2, $3, $6, $7}'
  # nabla's 2-thread time under load against its 1-thread time under load (the limit) and
  # quiet; LibTorch's under load beside it.
  verdict=$(paste <(echo "$quiet") <(echo "$loaded") | awk '
    NR == 1 {q1 = $2; n1 = $6; t1 = $7} NR == 2 {n2 = $6; t2 = $7}
    END {printf "%.2f %.2f %.2f %s", n2 / n1, n2 / q1, t2 / t1, (n2 <= 1.5 * n1) ? "PASS" : "FAIL"}')
  read -r nratio qratio tratio pass <<<"$verdict"
  echo "  under load, 2 threads / 1 thread: nabla $nratio (limit 1.5) -> $pass" \
    "(against its quiet 1-thread step: $qratio); LibTorch $tratio"
  [ "$pass" = PASS ] || status=1
done
exit $status
