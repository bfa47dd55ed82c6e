#!/usr/bin/env bash
# The fuzzing part of the README's test command (docs/reliability.md, "Fuzzing"): builds
# the libFuzzer targets of tests/fuzz with clang in build-fuzz/ (library instrumented with
# ASan + UBSan), replays every committed corpus file (seeds and past crashes), then fuzzes
# each target for NABLA_FUZZ_SECONDS (default 30) seconds, one target at a time.
# New inputs go to build-fuzz/corpus/<target>/, crashes to build-fuzz/crashes/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --with-fuzz
seconds=${NABLA_FUZZ_SECONDS:-30}
targets=(safetensors npy npz idx csv checkpoint)
# The readers do not depend on the kernels' ISA path: only this machine's is compiled.
cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=Release \
  -DNABLA_KERNEL_ISAS=native -DNABLA_FUZZ=ON -DNABLA_BUILD_TESTS=OFF -DNABLA_BUILD_EXAMPLES=OFF -DNABLA_CONFORMANCE=OFF \
  ${NABLA_FUZZ_CMAKE_ARGS:-} >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]/#/fuzz_}"
# -malloc_limit_mb: no input here is over a few KB, so no reader has a reason to ask for
# 64 MB at once; a header claiming more must be refused before allocating.
flags=(-timeout=1 -rss_limit_mb=2048 -malloc_limit_mb=64)
for t in "${targets[@]}"; do
  bin=build-fuzz/tests/fuzz/fuzz_$t
  mkdir -p "build-fuzz/corpus/$t" "build-fuzz/crashes/$t"
  "$bin" "${flags[@]}" tests/fuzz/corpus/"$t"/* 2>"build-fuzz/replay_$t.log" ||
    { tail -n 40 "build-fuzz/replay_$t.log"; echo "fuzz_$t: a committed corpus file fails" >&2; exit 1; }
  "$bin" "${flags[@]}" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="build-fuzz/crashes/$t/" "build-fuzz/corpus/$t" "tests/fuzz/corpus/$t" \
    2>"build-fuzz/fuzz_$t.log" ||
    { tail -n 60 "build-fuzz/fuzz_$t.log"; echo "fuzz_$t: crash, see build-fuzz/crashes/$t/" >&2; exit 1; }
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "build-fuzz/fuzz_$t.log" | grep -o '[0-9]*$')
  echo "fuzz_$t: ${seconds} s, ${runs:-?} executions, no crash"
done
