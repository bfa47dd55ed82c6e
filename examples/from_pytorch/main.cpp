// Fine-tunes in C++ a model trained in Python (docs/io.md, "From PyTorch"). run.sh runs
// the whole round:
//   python3 train.py train w3_pytorch.pt           PyTorch trains one epoch, saves the state_dict
//   from_pytorch w3_pytorch.pt w3_nabla.pt         nabla loads it, reports the same test
//                                                  accuracy, trains one more epoch, saves .pt
//   python3 train.py eval w3_nabla.pt              PyTorch evaluates nabla's weights
// Flags: --data DIR (Fashion-MNIST), --limit N (training examples), --test-limit N (test
// images), --lr, --threads N.
#include <nabla/nabla.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>

#include "../fashion_mnist/models.h"

namespace data = nabla::data;
namespace F = nabla::nn::functional;

namespace {

auto fashion_mnist(const std::string& root, data::datasets::MNIST::Mode mode) {
  return data::datasets::MNIST(root, mode)
      .map(data::transforms::Normalize<>(0.2860, 0.3530))
      .map(data::transforms::Stack<>());
}

// Prints the accuracy on the first `limit` test images (all 10,000 for 0).
void report_accuracy(Cnn& model, const std::string& root, size_t limit, const char* what) {
  nabla::NoGradGuard no_grad;
  model->eval();
  auto test = fashion_mnist(root, data::datasets::MNIST::Mode::kTest);
  const size_t size = limit > 0 ? std::min<size_t>(limit, *test.size()) : *test.size();
  auto loader = data::make_data_loader(std::move(test), data::samplers::SequentialSampler(size),
                                       data::DataLoaderOptions(1000));
  int64_t correct = 0;
  for (auto& batch : *loader)
    correct += model->forward(batch.data).argmax(1).eq(batch.target).sum().item<int64_t>();
  model->train();
  std::printf("nabla, %s: test accuracy %.2f%% (%lld/%zu)\n", what, 100.0 * correct / size,
              static_cast<long long>(correct), size);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::string in, out, root = data::fashion_mnist_root();
  int64_t limit = 0, test_limit = 0;
  double lr = 1e-3;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--data" && has_value)
      root = argv[++i];
    else if (a == "--limit" && has_value)
      limit = std::stoll(argv[++i]);
    else if (a == "--test-limit" && has_value)
      test_limit = std::stoll(argv[++i]);
    else if (a == "--lr" && has_value)
      lr = std::stod(argv[++i]);
    else if (a == "--threads" && has_value)
      nabla::set_num_threads(std::stoi(argv[++i]));
    else if (in.empty())
      in = a;
    else
      out = a;
  }
  if (in.empty() || out.empty()) {
    std::cerr << "usage: from_pytorch IN.pt OUT.pt [--data DIR] [--limit N] [--test-limit N] "
                 "[--lr LR] [--threads N]\n";
    return 2;
  }
  try {
    std::cout << nabla::show_config();
    nabla::manual_seed(0);
    Cnn model;
    nabla::load(model, in);  // PyTorch's state_dict: same module names, same keys
    report_accuracy(model, root, test_limit, "PyTorch's weights");

    auto train = fashion_mnist(root, data::datasets::MNIST::Mode::kTrain);
    const size_t size = limit > 0 ? std::min<size_t>(limit, *train.size()) : *train.size();
    auto loader = data::make_data_loader(std::move(train), data::samplers::RandomSampler(size),
                                         data::DataLoaderOptions(64));
    nabla::optim::Adam optimizer(model->parameters(), nabla::optim::AdamOptions(lr));
    int64_t step = 0;
    for (auto& batch : *loader) {
      optimizer.zero_grad();
      auto loss = F::cross_entropy(model->forward(batch.data), batch.target);
      loss.backward();
      optimizer.step();
      if (step++ % 200 == 0)
        std::printf("nabla: step %lld, loss %.4f\n", (long long)step - 1, loss.item<double>());
    }
    report_accuracy(model, root, test_limit, "after one more epoch");
    nabla::save(model, out);  // .pt: torch.save's format, for torch.load in Python
    std::cout << "saved " << out << "\n";
  } catch (const nabla::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
