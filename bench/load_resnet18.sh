#!/usr/bin/env bash
# Issue 17's figure: loading resnet18's state_dict. PyTorch (python3-torch) saves it as
# resnet18.pt; torch.load (and load_state_dict into torchvision's resnet18) is timed in
# Python; bench_load times nabla::load of the .pt and of the same weights as safetensors
# (written by nabla), each in a fresh process, with the memory the first load adds.
#   bash bench/load_resnet18.sh [build-dir]     (default build-bench; needs bench_load)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-bench}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python=$(bash "scripts/torch_python.sh")
"$python" - "$dir" <<'PY'
import resource, statistics, sys, time
import torch, torchvision
d = sys.argv[1]
torch.save(torchvision.models.resnet18(weights=None).state_dict(), d + "/resnet18.pt")
model = torchvision.models.resnet18(weights=None)
def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
before = rss()
model.load_state_dict(torch.load(d + "/resnet18.pt"))
added = rss() - before
def timed(f, runs=20):
    ts = []
    for _ in range(runs):
        t = time.perf_counter(); f(); ts.append((time.perf_counter() - t) * 1e3)
    return min(ts), statistics.median(ts), max(ts)
a = timed(lambda: torch.load(d + "/resnet18.pt"))
b = timed(lambda: model.load_state_dict(torch.load(d + "/resnet18.pt")))
print(f"torch.load: min {a[0]:.1f} / median {a[1]:.1f} / max {a[2]:.1f} ms; with load_state_dict: "
      f"min {b[0]:.1f} / median {b[1]:.1f} / max {b[2]:.1f} ms (20 runs); "
      f"peak added by the first load: resident {added:.1f} MB (torch {torch.__version__})")
PY
"$build/bench/bench_load" "$dir/resnet18.pt" 20 --save "$dir/resnet18.safetensors"
"$build/bench/bench_load" "$dir/resnet18.safetensors" 20
