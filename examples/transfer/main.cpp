// Transfer learning (appendix B): pretrain a CNN on Fashion-MNIST classes 0-4,
// freeze its convolutional layers with requires_grad_(false), then train a new head on
// classes 5-9. The frozen weights come out bit-identical; accuracy is reported for both
// stages.
//   transfer [--epochs N] [--limit N] [--data DIR]
#include <nabla/nabla.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace data = nabla::data;
namespace nn = nabla::nn;
namespace F = nabla::nn::functional;
using nabla::Tensor;

struct FeaturesImpl : nn::Module {
  FeaturesImpl()
      : conv1(register_module("conv1", nn::Conv2d(nn::Conv2dOptions(1, 16, 3).padding(1)))),
        conv2(register_module("conv2", nn::Conv2d(nn::Conv2dOptions(16, 32, 3).padding(1)))) {}
  Tensor forward(const Tensor& x) {
    auto h = nabla::max_pool2d(nabla::relu(conv1(x)), {2});
    return nabla::max_pool2d(nabla::relu(conv2(h)), {2}).flatten(1);  // [N, 32 * 7 * 7]
  }
  nn::Conv2d conv1, conv2;
};
NABLA_MODULE(Features);

// The examples of `split` whose class is in [lo, lo + 5), relabelled 0..4.
std::pair<Tensor, Tensor> classes(const data::datasets::MNIST& split, int64_t lo, int64_t limit) {
  Tensor mask = split.targets().ge(lo).logical_and(split.targets().lt(lo + 5));
  Tensor idx = mask.nonzero().select(1, 0);
  if (limit > 0 && idx.size(0) > limit) idx = idx.narrow(0, 0, limit);
  return {(split.images().index_select(0, idx) - 0.2860) / 0.3530,
          split.targets().index_select(0, idx) - lo};
}

double train_and_test(FeaturesImpl& features, nn::Linear& head,
                      const std::pair<Tensor, Tensor>& train, const std::pair<Tensor, Tensor>& test,
                      const std::vector<Tensor>& params, int epochs) {
  nabla::optim::Adam opt(params, nabla::optim::AdamOptions(1e-3));
  auto loader = data::make_data_loader(
      data::datasets::TensorPairDataset(train.first, train.second).map(data::transforms::Stack<>()),
      data::DataLoaderOptions(64));
  for (int e = 1; e <= epochs; ++e) {
    double loss_sum = 0;
    int steps = 0;
    for (auto& batch : *loader) {
      opt.zero_grad();
      auto loss = F::cross_entropy(head(features.forward(batch.data)), batch.target);
      loss.backward();
      opt.step();
      loss_sum += loss.item<double>();
      ++steps;
    }
    std::printf("  epoch %d: train loss %.4f\n", e, loss_sum / std::max(steps, 1));
  }
  nabla::NoGradGuard no_grad;
  auto pred = head(features.forward(test.first)).argmax(1);
  return pred.eq(test.second).to(nabla::kDouble).mean().item<double>();
}

int main(int argc, char** argv) {
  int epochs = 2;
  int64_t limit = 0;
  std::string root = data::fashion_mnist_root();
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--epochs")) epochs = std::stoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--limit")) limit = std::stoll(argv[i + 1]);
    if (!std::strcmp(argv[i], "--data")) root = argv[i + 1];
  }
  try {
    nabla::manual_seed(0);
    data::datasets::MNIST train(root), test(root, data::datasets::MNIST::Mode::kTest);
    Features features;
    nn::Linear head_a(32 * 7 * 7, 5), head_b(32 * 7 * 7, 5);

    std::printf("stage 1: pretrain on classes 0-4\n");
    auto params = features->parameters();
    for (const auto& p : head_a->parameters()) params.push_back(p);
    const double acc_a = train_and_test(*features, head_a, classes(train, 0, limit),
                                        classes(test, 0, 0), params, epochs);
    std::printf("  test accuracy on classes 0-4: %.4f\n", acc_a);

    std::printf("stage 2: freeze the convolutions, train a new head on classes 5-9\n");
    std::vector<Tensor> frozen;
    for (auto& p : features->parameters()) {
      p.requires_grad_(false);
      frozen.push_back(p.clone());
    }
    const double acc_b = train_and_test(*features, head_b, classes(train, 5, limit),
                                        classes(test, 5, 0), head_b->parameters(), epochs);
    std::printf("  test accuracy on classes 5-9 with frozen features: %.4f\n", acc_b);

    const auto now = features->parameters();
    bool identical = true;
    for (size_t i = 0; i < now.size(); ++i) identical = identical && now[i].equal(frozen[i]);
    std::printf("frozen weights bit-identical after stage 2: %s\n", identical ? "yes" : "NO");
    return identical && acc_a > 0.5 && acc_b > 0.5 ? 0 : 1;
  } catch (const nabla::Error& e) {
    std::fprintf(stderr, "transfer: %s\n", e.what());
    return 1;
  }
}
