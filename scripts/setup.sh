#!/usr/bin/env bash
# Installs the Debian packages nabla needs, only those missing; silent when all are present.
# Usage: scripts/setup.sh [--with-libtorch] [--with-data] [--with-checks] [--with-fuzz]
set -euo pipefail

# g++ brings the sanitizer runtimes (libasan8, libubsan1, libtsan2) for scripts/test_sanitizers.sh.
# libgloo-dev, libopenmpi-dev and openmpi-bin: the distributed layer's backends.
# libonnx-dev and libprotobuf-dev: graph::load_onnx and save_onnx.
packages=(cmake g++ make pkg-config libopenblas-dev libdnnl-dev zlib1g-dev nlohmann-json3-dev libgtest-dev
          libgloo-dev libopenmpi-dev openmpi-bin libonnx-dev libprotobuf-dev)
for arg in "$@"; do
  case "$arg" in
    # tests and benchmarks only (numpy: .npy interchange tests; python3-torch and
    # python3-torchvision: torch.save fixtures and the models they are compared with)
    # libonnx-testdata: ONNX's backend tests, run by tests/onnx; python3-onnx: its
    # checker, which judges the models graph::save_onnx writes
    --with-libtorch) packages+=(libtorch-dev python3-numpy python3-torch python3-torchvision libonnx-testdata python3-onnx) ;;
    --with-data) packages+=(dataset-fashion-mnist libpng-dev) ;;  # examples: data and PNG output
    --with-bench) packages+=(libtorch-dev libbenchmark-dev) ;;
    --with-checks) packages+=(clang-format python3) ;;  # scripts/check_format.sh, check_layers.py
    --with-fuzz) packages+=(clang-14 libclang-rt-14-dev) ;;  # scripts/test_fuzz.sh: clang++-14, libFuzzer
    *) echo "setup.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "setup.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
