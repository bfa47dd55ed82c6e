#!/usr/bin/env bash
# The round trip between PyTorch and nabla on Fashion-MNIST's W3 CNN:
#   bash examples/from_pytorch/run.sh build/examples/from_pytorch/from_pytorch [--limit N]
#        [--test-limit N]
# PyTorch trains one epoch and saves w3_pytorch.pt; nabla loads it, checks that it gets
# PyTorch's test accuracy, trains one more epoch and saves w3_nabla.pt; PyTorch loads that
# (torch.load weights_only=True, strict load_state_dict) and reports the same accuracy as
# nabla. Fails if either pair of accuracies differs by more than 2 test images (float
# rounding of two libraries may flip a borderline one).
set -euo pipefail
program=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
python=$(bash "$here/../../scripts/torch_python.sh")
count() { sed -n 's/.*(\([0-9]*\)\/[0-9]*).*/\1/p' "$1" | tail -1; }
agree() {
  local a b
  a=$(count "$1"); b=$(count "$2")
  echo "from_pytorch: $3: $a vs $b correct"
  [ -n "$a" ] && [ -n "$b" ] && [ $((a > b ? a - b : b - a)) -le 2 ]
}
"$python" "$here/train.py" train w3_pytorch.pt "$@" | tee pytorch_train.log
"$program" w3_pytorch.pt w3_nabla.pt "$@" | tee nabla.log
grep "PyTorch's weights" nabla.log > nabla_loaded.log
"$python" "$here/train.py" eval w3_nabla.pt "$@" | tee pytorch_eval.log
agree pytorch_train.log nabla_loaded.log "PyTorch's weights, PyTorch vs nabla"
agree nabla.log pytorch_eval.log "nabla's weights, nabla vs PyTorch"
