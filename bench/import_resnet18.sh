#!/usr/bin/env bash
# Issue 18's figure: torchvision's resnet18 exported to ONNX by python3-torch, imported by
# graph::load_onnx, against LibTorch's eager ResNet-18 (bench_import); then the same with
# the resnet18 pnnx converted (tests/fixtures/pnnx; its .pnnx.bin extracted by the build's
# CMake configure into tests/pnnx_fixtures), imported by graph::load_pnnx.
#   bash bench/import_resnet18.sh [build-dir]     (default build-bench; needs bench_import)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-bench}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python=$(bash "scripts/torch_python.sh")
"$python" - "$dir" <<'PY'
import sys, torch, torchvision
torch.onnx.export(torchvision.models.resnet18(weights=None).eval(), torch.rand(1, 3, 224, 224),
                  sys.argv[1] + "/resnet18.onnx", opset_version=13)
PY
"$build/bench/bench_import" "$dir/resnet18.onnx"
pnnx_bin="$build/tests/pnnx_fixtures/resnet18.pnnx.bin"
if [ -f "$pnnx_bin" ]; then
  "$build/bench/bench_import" tests/fixtures/pnnx/resnet18.pnnx.param "$pnnx_bin"
fi
