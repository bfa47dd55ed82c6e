"""The PyTorch half of examples/from_pytorch (run.sh runs both halves).

  train.py train OUT.pt [--limit N]   trains the W3 CNN one epoch on Fashion-MNIST (its
                                      first N images), prints its test accuracy, saves its
                                      state_dict to OUT.pt
  train.py eval MODEL.pt              loads a state_dict (nabla's, say) with
                                      torch.load(weights_only=True), prints test accuracy
  --test-limit N: the first N test images only.

Data: Debian's dataset-fashion-mnist (/usr/share/datasets/fashion-mnist), or --data DIR.
"""
import argparse
import gzip
import os

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F


class Cnn(nn.Module):
    """examples/fashion_mnist/models.h's Cnn: the same module names, so the same keys."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.fc1 = nn.Linear(3136, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        h = F.max_pool2d(F.relu(self.conv1(x)), 2)
        h = F.max_pool2d(F.relu(self.conv2(h)), 2)
        return self.fc2(F.relu(self.fc1(h.flatten(1))))


def read_idx(path):
    with gzip.open(path) as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def load(root, split):
    images = torch.from_numpy(read_idx(os.path.join(root, split + "-images-idx3-ubyte.gz")).copy())
    labels = torch.from_numpy(read_idx(os.path.join(root, split + "-labels-idx1-ubyte.gz")).copy())
    x = (images.float().div(255).unsqueeze(1) - 0.2860) / 0.3530  # as the C++ side's Normalize
    return x, labels.long()


def accuracy(model, root, limit):
    x, y = load(root, "t10k")
    if limit:
        x, y = x[:limit], y[:limit]
    model.eval()
    with torch.no_grad():
        correct = sum(int((model(x[i:i + 100]).argmax(1) == y[i:i + 100]).sum())
                      for i in range(0, len(y), 100))
    return correct, len(y)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["train", "eval"])
    p.add_argument("path")
    p.add_argument("--limit", type=int, default=0)
    p.add_argument("--test-limit", type=int, default=0)
    p.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    a = p.parse_args()
    torch.manual_seed(0)
    model = Cnn()
    if a.mode == "train":
        x, y = load(a.data, "train")
        if a.limit:
            x, y = x[:a.limit], y[:a.limit]
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        order = torch.randperm(len(y))
        for step, i in enumerate(range(0, len(y), 64)):
            idx = order[i:i + 64]
            loss = F.cross_entropy(model(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 200 == 0:
                print(f"pytorch: step {step}, loss {loss.item():.4f}", flush=True)
        torch.save(model.state_dict(), a.path)
        what = "PyTorch, after training"
    else:
        model.load_state_dict(torch.load(a.path, weights_only=True), strict=True)
        what = "PyTorch, " + os.path.basename(a.path)
    correct, total = accuracy(model, a.data, a.test_limit)
    print(f"{what}: test accuracy {100.0 * correct / total:.2f}% ({correct}/{total})")


if __name__ == "__main__":
    main()
