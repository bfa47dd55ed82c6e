"""ONNX files for test_import_onnx.cpp, exported at test time by Debian's python3-torch.

  onnx_models.py DIR NAME [OPSET [dynamic]]
      writes DIR/NAME.onnx (torch.onnx.export, eval mode; with `dynamic`, the batch
      dimension a dynamic axis) and DIR/NAME_io.pt ({"input": x, "output": model(x)})

NAME: w2, w3, resnet18, mobilenet_v2, transformer (a TransformerEncoderLayer), lstm (an
embedding, an LSTM and a linear layer on the last step, over int64 tokens; random
weights, batch-norm statistics moved away from their defaults; no downloads), cnn_view
(W3 flattened by view(x.size(0), -1)), split_cast (Split and Cast), bilstm (a two-layer
bidirectional LSTM), gru_rnn (a bidirectional GRU, then a ReLU RNN), resize
(F.interpolate: bilinear, nearest and bicubic), or unsupported (torch.bernoulli, which
torch.onnx.export writes with RandomUniformLike: nabla does not map it).
"""
import sys

import torch
import torchvision


def w2():
    return torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(),
                               torch.nn.Linear(256, 128), torch.nn.ReLU(),
                               torch.nn.Linear(128, 10)), (4, 784)


def w3():
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(32, 64, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(3136, 128), torch.nn.ReLU(),
        torch.nn.Linear(128, 10)), (4, 1, 28, 28)


class LstmClassifier(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(100, 32)
        self.lstm = torch.nn.LSTM(32, 64, batch_first=True)
        self.fc = torch.nn.Linear(64, 5)

    def forward(self, tokens):
        out, _ = self.lstm(self.emb(tokens))
        return self.fc(out[:, -1])


class CnnView(torch.nn.Module):
    """W3 flattened by x.view(x.size(0), -1): with a dynamic batch, shape arithmetic."""

    def __init__(self):
        super().__init__()
        self.body, _ = w3()
        self.features = self.body[:6]
        self.head = self.body[7:]

    def forward(self, x):
        h = self.features(x)
        return self.head(h.view(h.size(0), -1))


class SplitCast(torch.nn.Module):
    """Split (equal and uneven), Cast to float64 and back, to int64 and back."""

    def forward(self, x):
        a, b = torch.split(x, [3, 5], dim=1)
        c, d = torch.chunk(x, 2, dim=1)
        e = (a.double() * 2).float() + b.sum(1, keepdim=True)
        f = (c * 10).long().float() / 10 - d
        return torch.cat([e, f], dim=1)


class BiLstm(torch.nn.Module):
    """A two-layer bidirectional LSTM (ONNX: one bidirectional LSTM node per layer)."""

    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(6, 8, num_layers=2, bidirectional=True)

    def forward(self, x):
        out, (h, c) = self.lstm(x)
        return out + torch.cat([h.sum(0), c.sum(0)], 1)


class GruRnn(torch.nn.Module):
    """ONNX GRU (linear_before_reset=1) and RNN (Relu) nodes."""

    def __init__(self):
        super().__init__()
        self.gru = torch.nn.GRU(6, 8, bidirectional=True)
        self.rnn = torch.nn.RNN(16, 5, nonlinearity="relu")

    def forward(self, x):
        out, h = self.gru(x)
        y, _ = self.rnn(out)
        return y + h.sum(0)[:, :5]


class Resize(torch.nn.Module):
    """Resize nodes of three modes and two coordinate transformations."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 3, 3, padding=1)

    def forward(self, x):
        f = torch.nn.functional
        a = f.interpolate(self.conv(x), scale_factor=2, mode="bilinear", align_corners=False)
        b = f.interpolate(a, size=(9, 7), mode="nearest")
        return f.interpolate(b, size=(12, 10), mode="bicubic", align_corners=True)


class Unsupported(torch.nn.Module):
    def forward(self, x):
        return torch.bernoulli(x)


MODELS = {
    "w2": w2,
    "w3": w3,
    "resnet18": lambda: (torchvision.models.resnet18(weights=None), (2, 3, 224, 224)),
    "mobilenet_v2": lambda: (torchvision.models.mobilenet_v2(weights=None), (2, 3, 224, 224)),
    "transformer": lambda: (torch.nn.TransformerEncoderLayer(
        d_model=32, nhead=4, dim_feedforward=64, batch_first=True), (2, 5, 32)),
    "lstm": lambda: (LstmClassifier(), (2, 7)),
    "cnn_view": lambda: (CnnView(), (4, 1, 28, 28)),
    "split_cast": lambda: (SplitCast(), (2, 8, 3)),
    "bilstm": lambda: (BiLstm(), (5, 2, 6)),
    "gru_rnn": lambda: (GruRnn(), (5, 2, 6)),
    "resize": lambda: (Resize(), (2, 2, 5, 4)),
    "unsupported": lambda: (Unsupported(), (2, 3)),
}


def main(d, name, opset=13, dynamic_batch=""):
    torch.manual_seed(0)
    model, shape = MODELS[name]()
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
    model.eval()
    x = torch.randint(0, 100, shape) if name == "lstm" else torch.rand(shape)
    with torch.no_grad():
        y = model(x)
    axes = {"input": {0: "batch"}, "output": {0: "batch"}} if dynamic_batch else None
    torch.onnx.export(model, x, f"{d}/{name}.onnx", opset_version=int(opset),
                      input_names=["input"], output_names=["output"], dynamic_axes=axes)
    torch.save({"input": x, "output": y}, f"{d}/{name}_io.pt")


if __name__ == "__main__":
    main(*sys.argv[1:])
