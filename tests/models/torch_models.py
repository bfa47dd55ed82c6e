"""Models saved by PyTorch for test_from_pytorch.cpp (Debian's python3-torch, -torchvision).

  torch_models.py make DIR NAME   DIR/NAME.pt (the model's state_dict: random weights and
                                 batch-norm statistics, no downloads) and DIR/NAME_io.pt
                                 ({"input": x, "output": model(x)}, eval mode)
  torch_models.py check DIR NAME loads nabla's DIR/nabla_NAME.pt into the PyTorch model
                               (strict) and compares its output on DIR/NAME_io.pt's input
                               with DIR/nabla_NAME_out.pt (what nabla computed); exit 1 if
                               they differ by more than 1e-5 (relative to the output's scale)
"""
import os
import sys

import torch
import torchvision


def w2():
    return torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(),
                               torch.nn.Linear(256, 128), torch.nn.ReLU(),
                               torch.nn.Linear(128, 10))


def w3():
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(32, 64, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(3136, 128), torch.nn.ReLU(),
        torch.nn.Linear(128, 10))


MODELS = {
    "resnet18": (lambda: torchvision.models.resnet18(weights=None), (2, 3, 224, 224)),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(weights=None), (2, 3, 224, 224)),
    "w2": (w2, (4, 784)),
    "w3": (w3, (4, 1, 28, 28)),
}


def build(name):
    torch.manual_seed(0)
    model = MODELS[name][0]()
    # Batch-norm statistics and affine parameters away from their defaults, so that
    # loading them is checked too.
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
                m.num_batches_tracked.fill_(10)
    return model.eval()


def make(d, name):
    model = build(name)
    x = torch.rand(MODELS[name][1])
    with torch.no_grad():
        y = model(x)
    torch.save(model.state_dict(), os.path.join(d, name + ".pt"))
    torch.save({"input": x, "output": y}, os.path.join(d, name + "_io.pt"))


def check(d, name):
    model = MODELS[name][0]().eval()
    model.load_state_dict(torch.load(os.path.join(d, "nabla_" + name + ".pt"),
                                     weights_only=True), strict=True)
    x = torch.load(os.path.join(d, name + "_io.pt"), weights_only=True)["input"]
    theirs = torch.load(os.path.join(d, "nabla_" + name + "_out.pt"), weights_only=True)
    with torch.no_grad():
        ours = model(x)
    err = ((ours - theirs).abs().max() / ours.abs().max().clamp(min=1)).item()
    print(f"{name}: PyTorch on nabla's weights vs nabla: max relative difference {err:.2e}")
    sys.exit(1 if err > 1e-5 else 0)


if __name__ == "__main__":
    {"make": make, "check": check}[sys.argv[1]](sys.argv[2], sys.argv[3])
