#!/usr/bin/env bash
# The README's test command: installs what is missing, builds from scratch in build-test/,
# and runs every test (conformance against LibTorch and the examples' smoke tests included;
# those need Fashion-MNIST from Debian's dataset-fashion-mnist), fuzzes every file reader
# (scripts/test_fuzz.sh: clang build in build-fuzz/, 30 s per target), then runs the
# sanitizer builds (scripts/test_sanitizers.sh: ASan+UBSan in build-asan/, ThreadSanitizer
# in build-tsan/).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --with-libtorch --with-data --with-checks --with-fuzz
bash scripts/check_format.sh
python3 scripts/check_layers.py
# Before the main build, so that ctest's summary stays the command's closing lines.
bash scripts/test_fuzz.sh
jobs=$(nproc)
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Release -DNABLA_BUILD_TESTS=ON \
  -DNABLA_CONFORMANCE=ON -DNABLA_BUILD_EXAMPLES=ON ${NABLA_CMAKE_ARGS:-} >/dev/null
cmake --build build-test -j"$jobs"
ctest --test-dir build-test --output-on-failure -j"$jobs" --timeout 600
bash scripts/test_sanitizers.sh
