#!/usr/bin/env bash
# Fine-tunes in nabla a model PyTorch trained briefly and exported to ONNX:
#   bash examples/import_model/finetune.sh build/examples/import_model/import_model \
#        [--pytorch-limit N] [--limit N] [--test-limit N]
# PyTorch trains the W3 CNN of examples/from_pytorch on the first N training images
# (default 2000) and exports it (torch.onnx.export, dynamic batch); import_model imports
# it, reports its test accuracy, trains it one epoch (all 60,000 images, or --limit) and
# reports it again. Fails unless the accuracy improved.
set -euo pipefail
program=$1
shift
pytorch_limit=2000
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --pytorch-limit) pytorch_limit=$2; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
python=$(bash "$here/../../scripts/torch_python.sh")
"$python" "$here/../from_pytorch/train.py" train w3_brief.pt --limit "$pytorch_limit" \
  --test-limit 1000 | tail -1
"$python" - <<PY
import sys, torch
sys.path.insert(0, "$here/../from_pytorch")
from train import Cnn
model = Cnn()
model.load_state_dict(torch.load("w3_brief.pt"))
torch.onnx.export(model.eval(), torch.zeros(1, 1, 28, 28), "w3_brief.onnx", opset_version=13,
                  input_names=["input"], output_names=["output"],
                  dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
PY
"$program" w3_brief.onnx --finetune "${args[@]}"
