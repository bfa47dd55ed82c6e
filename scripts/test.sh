#!/usr/bin/env bash
# The README's test command: installs what is missing, builds from scratch in build-test/,
# and runs every test (conformance against LibTorch and the examples' smoke tests included;
# those need Fashion-MNIST from Debian's dataset-fashion-mnist). CI runs it on every change.
#
# --full adds the reliability builds (docs/reliability.md), well over an hour more on 2
# cores from scratch (README.md): the instrumented clang build in build-asan/
# (scripts/instrumented_build.sh) runs the tests under AddressSanitizer + UBSan and fuzzes
# every file reader (the committed corpora, then NABLA_FUZZ_SECONDS, default here 10, per
# target), ThreadSanitizer runs the threaded tests in build-tsan/
# (scripts/test_sanitizers.sh, scripts/test_fuzz.sh), and LibTorch's own C++ API tests
# are ported and run (scripts/libtorch_tests.sh, about 30 minutes more the first time:
# its LibTorch side is kept for later runs).
# They are not in CI's run, whose budget they would exceed.
set -euo pipefail
cd "$(dirname "$0")/.."
full=0
case "${1:-}" in
  "") ;;
  --full) full=1 ;;
  *) echo "usage: scripts/test.sh [--full]" >&2; exit 2 ;;
esac
# Each part prints its start, minutes into the command, so a slow part shows in CI's log.
part() { echo "test.sh: $1 (at $((SECONDS / 60)) min $((SECONDS % 60)) s)"; }
part "packages"
extra=()
[ $full -eq 1 ] && extra=(--with-fuzz)
bash scripts/setup.sh --with-libtorch --with-data --with-checks "${extra[@]}"
part "format and layers"
bash scripts/check_format.sh
python3 scripts/check_layers.py
part "build and tests"
jobs=$(nproc)
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Release -DNABLA_BUILD_TESTS=ON \
  -DNABLA_CONFORMANCE=ON -DNABLA_BUILD_EXAMPLES=ON -DNABLA_QUICK_EXAMPLES=ON \
  ${NABLA_CMAKE_ARGS:-} >/dev/null
cmake --build build-test -j"$jobs"
# Tests that compare with Python's torch fail, instead of skipping, if it is missing.
NABLA_REQUIRE_TORCH_PYTHON=1 ctest --test-dir build-test --output-on-failure -j"$jobs" --timeout 600
if [ $full -eq 1 ]; then
  part "AddressSanitizer + UBSan"
  bash scripts/test_sanitizers.sh asan
  part "fuzzing"
  NABLA_FUZZ_SECONDS=${NABLA_FUZZ_SECONDS:-10} bash scripts/test_fuzz.sh
  part "ThreadSanitizer"
  bash scripts/test_sanitizers.sh tsan
  part "LibTorch's own C++ API tests, ported (docs/compat.md)"
  bash scripts/libtorch_tests.sh
fi
part "all passed"
