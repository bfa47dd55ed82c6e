#!/usr/bin/env bash
# Configures and builds the instrumented build that the sanitizer tests and the fuzzers
# share (docs/reliability.md): clang++-14, ASan + UBSan + libFuzzer's coverage on every
# object (NABLA_FUZZ), -O1, the CPU kernels for this machine's best ISA path only (the
# path every test takes here; the normal build runs the lower paths). One library build
# serves the unit tests, the op table without LibTorch (LibTorch is not instrumented and
# is compared in build-test/), the examples and the fuzz targets.
# Usage: scripts/instrumented_build.sh DIR [TARGET...] (no target: everything)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1
shift
bash scripts/setup.sh --with-fuzz
cmake -S . -B "$dir" -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=Release \
  "-DCMAKE_CXX_FLAGS_RELEASE=-O1" -DNABLA_FUZZ=ON -DNABLA_KERNEL_ISAS=native \
  -DNABLA_BUILD_TESTS=ON -DNABLA_CONFORMANCE=ON -DNABLA_CONFORMANCE_LIBTORCH=OFF \
  -DNABLA_BUILD_EXAMPLES=ON ${NABLA_CMAKE_ARGS:-} >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$dir" -j"$(nproc)" "${targets[@]}"
