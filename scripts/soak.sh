#!/usr/bin/env bash
# Soak (by hand, not in CI): 10,000 W2 and 2,000 W3 training steps on
# Fashion-MNIST with the threaded loader and a checkpoint every 500 steps; prints memory,
# file descriptors and threads at each checkpoint and fails if they grow (bench/bench_soak.cpp).
# Usage: scripts/soak.sh [extra bench_soak flags, e.g. --w2-steps 2000]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --with-data --with-bench
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DNABLA_BUILD_BENCHMARKS=ON \
  ${NABLA_CMAKE_ARGS:-} >/dev/null
cmake --build build-bench -j"$(nproc)" --target bench_soak
./build-bench/bench/bench_soak "$@"
