#!/usr/bin/env bash
# The README's first command: installs what is missing, builds nabla and runs the main job.
# Until training lands (see the README's status table) the main job is a tour of the
# tensor core.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --with-data
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DNABLA_BUILD_TESTS=OFF -DNABLA_BUILD_EXAMPLES=ON >/dev/null
cmake --build build -j"$(nproc)" --target tensor_tour
./build/examples/tensor_tour/tensor_tour
