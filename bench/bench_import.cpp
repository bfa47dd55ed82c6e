// Issue 18's figure: resnet18 inference, the ONNX file imported as a nabla static graph
// against LibTorch's eager ResNet-18 written below (the same architecture; batch norms
// separate there, folded into the convolutions by torch.onnx.export here), batch 1 and
// 32, 1 and 2 threads, alternating in one process: ms per batch (median) and the ratio.
//   bench_import resnet18.onnx      (bench/import_resnet18.sh exports the file)
#include <torch/torch.h>

#include <nabla/graph.h>
#include <nabla/nabla.h>

#include <cstdio>
#include <string>

#include "median_ms.h"

namespace {

struct BlockImpl : torch::nn::Module {
  BlockImpl(int64_t in, int64_t out, int64_t stride)
      : conv1(register_module(
            "conv1",
            torch::nn::Conv2d(
                torch::nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false)))),
        bn1(register_module("bn1", torch::nn::BatchNorm2d(out))),
        conv2(register_module(
            "conv2",
            torch::nn::Conv2d(torch::nn::Conv2dOptions(out, out, 3).padding(1).bias(false)))),
        bn2(register_module("bn2", torch::nn::BatchNorm2d(out))) {
    if (stride != 1 || in != out)
      down = register_module(
          "downsample",
          torch::nn::Sequential(
              torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 1).stride(stride).bias(false)),
              torch::nn::BatchNorm2d(out)));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto y = bn2(conv2(torch::relu(bn1(conv1(x)))));
    return torch::relu(y + (down ? down->forward(x) : x));
  }
  torch::nn::Conv2d conv1;  // declared in the order the constructor registers them
  torch::nn::BatchNorm2d bn1;
  torch::nn::Conv2d conv2;
  torch::nn::BatchNorm2d bn2;
  torch::nn::Sequential down = nullptr;
};
TORCH_MODULE(Block);

struct ResNet18Impl : torch::nn::Module {
  ResNet18Impl() {
    int64_t in = 64;
    for (int64_t planes : {64, 128, 256, 512}) {
      const int64_t stride = planes == 64 ? 1 : 2;
      layers->push_back(Block(in, planes, stride));
      layers->push_back(Block(planes, planes, 1));
      in = planes;
    }
    register_module("layers", layers);
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto y = torch::max_pool2d(torch::relu(bn1(conv1(x))), 3, 2, 1);
    y = layers->forward(y);
    return fc(torch::adaptive_avg_pool2d(y, {1, 1}).flatten(1));
  }
  torch::nn::Conv2d conv1{register_module(
      "conv1",
      torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 64, 7).stride(2).padding(3).bias(false)))};
  torch::nn::BatchNorm2d bn1{register_module("bn1", torch::nn::BatchNorm2d(64))};
  torch::nn::Sequential layers;
  torch::nn::Linear fc{register_module("fc", torch::nn::Linear(512, 1000))};
};
TORCH_MODULE(ResNet18);

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: bench_import resnet18.onnx | resnet18.pnnx.param resnet18.pnnx.bin\n");
    return 2;
  }
  std::printf("%s", nabla::show_config().c_str());
  const std::string path = argv[1];
  std::printf("model: %s\n", path.c_str());
  nabla::graph::Graph graph = path.ends_with(".param") && argc > 2
                                  ? nabla::graph::load_pnnx(path, argv[2])
                                  : nabla::graph::load_onnx(path);
  const nabla::graph::Value in = graph.inputs().at(0), out = graph.outputs().at(0);
  ResNet18 theirs;
  theirs->eval();
  nabla::NoGradGuard nabla_no_grad;
  torch::NoGradGuard torch_no_grad;
  std::printf("| batch | threads | nabla imported graph ms | LibTorch eager ms | ratio |\n");
  std::printf("| --- | --- | --- | --- | --- |\n");
  for (int threads : {1, 2})
    for (int64_t batch : {1, 32}) {
      nabla::set_num_threads(threads);
      torch::set_num_threads(threads);
      const nabla::Tensor x = nabla::rand({batch, 3, 224, 224});
      const torch::Tensor tx = torch::rand({batch, 3, 224, 224});
      const int runs = batch == 1 ? 20 : 5;
      double ours = 1e30, ref = 1e30;
      for (int round = 0; round < 3; ++round) {  // alternating, the best median of each
        ours = std::min(ours, median_ms(
                                  [&] {
                                    graph.set_value(in, x);  // every node recomputes
                                    graph.forward(out);
                                  },
                                  runs, 1));
        ref = std::min(ref, median_ms([&] { theirs->forward(tx); }, runs, 1));
      }
      std::printf("| %lld | %d | %.1f | %.1f | %.2f |\n", static_cast<long long>(batch), threads,
                  ours, ref, ours / ref);
    }
}
