#!/usr/bin/env bash
# The sanitizer half of the test command (scripts/test.sh calls it; docs/reliability.md):
#   build-asan/  AddressSanitizer + UndefinedBehaviorSanitizer (scripts/instrumented_build.sh,
#                shared with the fuzzers): every unit test, the op table without LibTorch
#                (nabla's side of each entry) and the examples' smoke tests;
#   build-tsan/  ThreadSanitizer: the tests that start threads (ctest label `threads`),
#                at -O1 with the kernels for this machine's ISA path only.
# Any report fails the run. Usage: scripts/test_sanitizers.sh [asan] [tsan]
set -euo pipefail
cd "$(dirname "$0")/.."
which=("$@")
[ ${#which[@]} -eq 0 ] && which=(asan tsan)
jobs=$(nproc)
# allocator_may_return_null=1: tests/core/test_limits.cpp asks for 10^13 bytes on purpose
# to check nabla's out-of-memory error; the sanitizers' allocators then return null as
# glibc's does, instead of reporting the request (ASan and TSan cap single allocations).
# No report of any other kind is affected.
for kind in "${which[@]}"; do
  case "$kind" in
    asan)
      bash scripts/instrumented_build.sh build-asan
      # The threads.* entries repeat tests ctest already runs here one by one.
      ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:allocator_may_return_null=1 \
        UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        ctest --test-dir build-asan --output-on-failure -j"$jobs" --timeout 900 -LE threads
      ;;
    tsan)
      targets=(test_core test_backend test_ops test_autograd test_data)
      cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -g1" \
        -DNABLA_BUILD_TESTS=ON -DNABLA_KERNEL_ISAS=native -DNABLA_SANITIZE=thread \
        -DNABLA_CONFORMANCE=OFF -DNABLA_BUILD_EXAMPLES=OFF ${NABLA_CMAKE_ARGS:-} >/dev/null
      cmake --build build-tsan -j"$jobs" --target "${targets[@]}"
      TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:allocator_may_return_null=1 \
        ctest --test-dir build-tsan --output-on-failure -j"$jobs" --timeout 900 -L threads
      ;;
    *) echo "test_sanitizers.sh: unknown build $kind (asan, tsan)" >&2; exit 2 ;;
  esac
done
