#!/usr/bin/env bash
# Exports torchvision's resnet18 (random weights) with python3-torch's torch.onnx.export and
# runs import_model on it, then on the W3 CNN pnnx converted (tests/fixtures/pnnx):
#   bash examples/import_model/run.sh build/examples/import_model/import_model [--runs N]
set -euo pipefail
program=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
python=$(bash "$here/../../scripts/torch_python.sh")
"$python" - <<'PY'
import torch, torchvision
torch.onnx.export(torchvision.models.resnet18(weights=None).eval(), torch.rand(1, 3, 224, 224),
                  "resnet18.onnx", opset_version=13, input_names=["input"], output_names=["output"])
PY
"$program" resnet18.onnx "$@"
"$program" "$here/../../tests/fixtures/pnnx/w3.pnnx.param" "$@"
