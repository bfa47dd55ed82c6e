#!/usr/bin/env bash
# The fuzzing part of the README's test command (docs/reliability.md, "Fuzzing"): the
# libFuzzer targets of tests/fuzz in the instrumented build (scripts/instrumented_build.sh,
# in NABLA_FUZZ_BUILD, default build-asan/, which the sanitizer tests share), replays every
# committed corpus file (seeds and past crashes), then fuzzes each target for
# NABLA_FUZZ_SECONDS (default 30; the test command gives 10) seconds, one at a time.
# New inputs go to <build>/corpus/<target>/, crashes to <build>/crashes/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${NABLA_FUZZ_BUILD:-build-asan}
seconds=${NABLA_FUZZ_SECONDS:-30}
targets=(safetensors npy npz idx csv checkpoint torch_file pnnx_param onnx)
bash scripts/instrumented_build.sh "$build" "${targets[@]/#/fuzz_}"
# -malloc_limit_mb: no input here is over a few KB, so no reader has a reason to ask for
# 64 MB at once; a header claiming more must be refused before allocating.
flags=(-timeout=1 -rss_limit_mb=2048 -malloc_limit_mb=64)
for t in "${targets[@]}"; do
  bin=$build/tests/fuzz/fuzz_$t
  mkdir -p "$build/corpus/$t" "$build/crashes/$t"
  "$bin" "${flags[@]}" tests/fuzz/corpus/"$t"/* 2>"$build/replay_$t.log" ||
    { tail -n 40 "$build/replay_$t.log"; echo "fuzz_$t: a committed corpus file fails" >&2; exit 1; }
  "$bin" "${flags[@]}" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$build/crashes/$t/" "$build/corpus/$t" "tests/fuzz/corpus/$t" \
    2>"$build/fuzz_$t.log" ||
    { tail -n 60 "$build/fuzz_$t.log"; echo "fuzz_$t: crash, see $build/crashes/$t/" >&2; exit 1; }
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$build/fuzz_$t.log" | grep -o '[0-9]*$')
  echo "fuzz_$t: ${seconds} s, ${runs:-?} executions, no crash"
done
