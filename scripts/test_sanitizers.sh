#!/usr/bin/env bash
# The sanitizer half of the test command (scripts/test.sh calls it; docs/reliability.md):
#   build-asan/  AddressSanitizer + UndefinedBehaviorSanitizer: every unit test, the op table
#                without LibTorch (nabla's side of each entry) and the examples' smoke tests;
#   build-tsan/  ThreadSanitizer: the tests that start threads (ctest label `threads`).
# Any report fails the run. Both build at -O1 (a third less compile time than -O3; the
# sanitizers find the same bugs) and compile the CPU kernels for this machine's best ISA
# path only (NABLA_KERNEL_ISAS=native: the path every test takes here; the normal build
# runs the lower paths). Usage: scripts/test_sanitizers.sh [asan] [tsan]
set -euo pipefail
cd "$(dirname "$0")/.."
which=("$@")
[ ${#which[@]} -eq 0 ] && which=(asan tsan)
jobs=$(nproc)
# allocator_may_return_null=1: tests/core/test_limits.cpp asks for 10^13 bytes on purpose
# to check nabla's out-of-memory error; the sanitizers' allocators then return null as
# glibc's does, instead of reporting the request (ASan and TSan cap single allocations).
# No report of any other kind is affected.
common=(-DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -g1" -DNABLA_BUILD_TESTS=ON
  -DNABLA_KERNEL_ISAS=native)

for kind in "${which[@]}"; do
  case "$kind" in
    asan)
      # The op table without LibTorch: LibTorch is not instrumented, would be slow under
      # ASan and is already compared in build-test/; the finite-difference, by-name and
      # poisoned-memory checks still run every entry through nabla.
      cmake -S . -B build-asan "${common[@]}" -DNABLA_SANITIZE=address -DNABLA_CONFORMANCE=ON \
        -DNABLA_CONFORMANCE_LIBTORCH=OFF -DNABLA_BUILD_EXAMPLES=ON ${NABLA_CMAKE_ARGS:-} >/dev/null
      cmake --build build-asan -j"$jobs"
      # The threads.* entries repeat tests ctest already runs here one by one.
      ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:allocator_may_return_null=1 \
        UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        ctest --test-dir build-asan --output-on-failure -j"$jobs" --timeout 900 -LE threads
      ;;
    tsan)
      targets=(test_core test_backend test_ops test_autograd test_data)
      cmake -S . -B build-tsan "${common[@]}" -DNABLA_SANITIZE=thread -DNABLA_CONFORMANCE=OFF \
        -DNABLA_BUILD_EXAMPLES=OFF ${NABLA_CMAKE_ARGS:-} >/dev/null
      cmake --build build-tsan -j"$jobs" --target "${targets[@]}"
      TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:allocator_may_return_null=1 \
        ctest --test-dir build-tsan --output-on-failure -j"$jobs" --timeout 900 -L threads
      ;;
    *) echo "test_sanitizers.sh: unknown build $kind (asan, tsan)" >&2; exit 2 ;;
  esac
done
