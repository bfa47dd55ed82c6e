#!/usr/bin/env bash
# W6's third column: llm.c's train_gpt2.c (karpathy/llm.c, plain C with OpenMP) on the same
# GPT-2 124M, batch 4 x 64, at 1 and 2 threads. llm.c is not part of nabla: give the path
# of a checkout (never committed here). Its training loop is copied to a scratch folder
# with the step count cut to 8 and the sampling turned off (both only change how long the
# run lasts, not what a step computes); the weights are nabla's initial ones written in
# llm.c's checkpoint layout by bench_w6 --write-llmc, the tokens random.
#
#   bench/w6_llmc.sh LLMC_CHECKOUT [BUILD_DIR]     (BUILD_DIR: where bench_w6 is built)
set -euo pipefail
llmc=${1:?usage: bench/w6_llmc.sh LLMC_CHECKOUT [BUILD_DIR]}
build=${2:-build-bench}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed -e 's/step <= 40/step <= 8/' -e 's/step % 20 == 0/step < 0/' "$llmc/train_gpt2.c" > "$work/train_gpt2.c"
cp -r "$llmc/llmc" "$work/llmc"
# The flags the W6 anchor was measured with (llm.c's Makefile adds -Ofast).
gcc -O3 -march=native -fopenmp -Wno-unused-result "$work/train_gpt2.c" -lm -o "$work/train_gpt2"
"$build/bench/bench_w6" --write-llmc "$work"
grep -m1 "model name" /proc/cpuinfo
for t in 1 2; do
  echo "llm.c train_gpt2.c, OMP_NUM_THREADS=$t (ms per step after the first two):"
  (cd "$work" && OMP_NUM_THREADS=$t ./train_gpt2) | grep -o "took [0-9.]* ms" | tail -n +3 |
    awk '{print $2}' | sort -n | awk '{a[NR]=$1} END {print "  median", a[int((NR+1)/2)], "ms over", NR, "steps"}'
done
