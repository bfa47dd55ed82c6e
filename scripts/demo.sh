#!/usr/bin/env bash
# The README's first command: installs what is missing (Fashion-MNIST from Debian's
# dataset-fashion-mnist included), builds nabla and runs the main job: train the CNN for
# three epochs with a progress bar, evaluating and checkpointing after each, then
# re-evaluate the saved checkpoint. Extra arguments go to the trainer (see --help).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --with-data
# Built for this machine only (docs/build.md, "Build time"): the CPU kernels for its best
# ISA path alone (the path a library built for every x86-64 CPU would pick here at run
# time), and the CUDA code only when a GPU is present.
cuda=OFF
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  cuda=AUTO
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DNABLA_BUILD_TESTS=OFF -DNABLA_BUILD_EXAMPLES=ON \
  -DNABLA_KERNEL_ISAS=native -DNABLA_CUDA=$cuda >/dev/null
cmake --build build -j"$(nproc)" --target fashion_mnist
out=runs/fashion_mnist
./build/examples/fashion_mnist/fashion_mnist --model cnn --epochs 3 --out "$out" "$@"
last=$(ls -t "$out"/checkpoint-epoch*.safetensors | head -1)
./build/examples/fashion_mnist/fashion_mnist --model cnn --eval-only "$last"
