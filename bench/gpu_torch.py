"""PyTorch's side of bench/bench_gpu.cpp: the same W2 and W3 training steps (Adam,
batch 128 / 64, random data) and float32 products on the GPU, eager mode, timed by CUDA
events; one "name value" line per figure. TF32 off, as nabla's float32 default."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = True  # PyTorch's default for convolutions, as nabla's
dev = torch.device("cuda")


def median_event_ms(step, runs, warmup):
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        step()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2]


def workload(name, net, x, y):
    net = net.to(dev)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    x, y = x.to(dev), y.to(dev)

    def step():
        opt.zero_grad()
        F.cross_entropy(net(x), y).backward()
        opt.step()

    print(f"{name}_step_ms {median_event_ms(step, 50, 15):.4f}")


def product(m, k, n):
    a = torch.randn(m, k, device=dev)
    b = torch.randn(k, n, device=dev)
    ms = median_event_ms(lambda: a @ b, 20, 3)
    print(f"matmul_{m}x{k}x{n}_tflops {2.0 * m * k * n / (ms * 1e-3) / 1e12:.3f}")


torch.manual_seed(0)
print(f"# torch {torch.__version__}, {torch.cuda.get_device_name()}")
workload("w2", nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                             nn.Linear(128, 10)),
         torch.rand(128, 784), torch.randint(0, 10, (128,)))
workload("w3", nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Flatten(), nn.Linear(3136, 128), nn.ReLU(), nn.Linear(128, 10)),
         torch.rand(64, 1, 28, 28), torch.randint(0, 10, (64,)))
product(4096, 4096, 4096)
product(256, 768, 3072)
