#!/usr/bin/env bash
# The README's test command: installs what is missing, builds from scratch in build-test/,
# and runs every test (conformance against LibTorch and the examples' smoke tests included;
# those need Fashion-MNIST from Debian's dataset-fashion-mnist), fuzzes every file reader
# (scripts/test_fuzz.sh: clang build in build-fuzz/, 30 s per target), then runs the
# sanitizer builds (scripts/test_sanitizers.sh: ASan+UBSan in build-asan/, ThreadSanitizer
# in build-tsan/).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each part prints its start, minutes into the command, so a slow part shows in CI's log.
part() { echo "test.sh: $1 (at $((SECONDS / 60)) min $((SECONDS % 60)) s)"; }
part "packages"
bash scripts/setup.sh --with-libtorch --with-data --with-checks --with-fuzz
part "format and layers"
bash scripts/check_format.sh
python3 scripts/check_layers.py
part "fuzzing"
bash scripts/test_fuzz.sh
part "build and tests"
jobs=$(nproc)
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Release -DNABLA_BUILD_TESTS=ON \
  -DNABLA_CONFORMANCE=ON -DNABLA_BUILD_EXAMPLES=ON ${NABLA_CMAKE_ARGS:-} >/dev/null
cmake --build build-test -j"$jobs"
ctest --test-dir build-test --output-on-failure -j"$jobs" --timeout 600
part "sanitizers"
bash scripts/test_sanitizers.sh
part "all passed"
