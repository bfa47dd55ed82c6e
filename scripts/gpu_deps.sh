#!/usr/bin/env bash
# Fetches, on a development machine, the Debian packages scripts/gpu_check.sh needs on the
# lent GPU machine (which has CUDA, CMake and PyTorch but no network and none of nabla's
# Debian dependencies): OpenBLAS, nlohmann-json, GoogleTest, zlib headers and the
# Fashion-MNIST data, as .deb files into .gpu-deps/ (git-ignored, about 45 MB). Pass
# `.gpu-deps` in the device call's carry list; gpu_check.sh unpacks them there.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .gpu-deps
cd .gpu-deps
apt-get download libopenblas0-pthread libopenblas-pthread-dev libgfortran5 nlohmann-json3-dev \
  libgtest-dev zlib1g-dev dataset-fashion-mnist
ls -la
