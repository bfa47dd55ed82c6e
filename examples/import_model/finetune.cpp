// import_model --finetune (finetune.h): the imported graph's parameters are tensors an
// optimizer steps; a cross-entropy node on its output is the loss backward starts from.
#include "finetune.h"

#include <nabla/nabla.h>

#include <algorithm>
#include <cstdio>

namespace data = nabla::data;
namespace g = nabla::graph;

namespace {

auto fashion_mnist(const std::string& root, data::datasets::MNIST::Mode mode) {
  return data::datasets::MNIST(root, mode)
      .map(data::transforms::Normalize<>(0.2860, 0.3530))
      .map(data::transforms::Stack<>());
}

// Correct answers on the first `limit` test images (all for 0), and how many were asked.
std::pair<int64_t, size_t> accuracy(g::Graph& graph, const FinetuneOptions& o) {
  nabla::NoGradGuard no_grad;
  auto test = fashion_mnist(o.data, data::datasets::MNIST::Mode::kTest);
  const size_t size =
      o.test_limit > 0 ? std::min<size_t>(o.test_limit, *test.size()) : *test.size();
  auto loader = data::make_data_loader(std::move(test), data::samplers::SequentialSampler(size),
                                       data::DataLoaderOptions(500));
  int64_t correct = 0;
  for (auto& batch : *loader) {
    graph.set_value(graph.inputs().at(0), batch.data);
    correct +=
        graph.forward(graph.outputs().at(0)).argmax(1).eq(batch.target).sum().item<int64_t>();
  }
  return {correct, size};
}

void print_accuracy(const char* when, std::pair<int64_t, size_t> a) {
  std::printf("%s: test accuracy %.2f%% (%lld/%zu)\n", when, 100.0 * a.first / a.second,
              static_cast<long long>(a.first), a.second);
  std::fflush(stdout);
}

}  // namespace

int finetune(g::Graph& graph, const FinetuneOptions& o) {
  const auto before = accuracy(graph, o);
  print_accuracy("imported", before);
  std::vector<nabla::Tensor> params;
  for (const auto& p : graph.parameters()) params.push_back(p.value());
  const g::Value target = graph.input("finetune.target");
  const g::Value loss = graph.call("cross_entropy_loss", {graph.outputs().at(0), target});
  auto train = fashion_mnist(o.data, data::datasets::MNIST::Mode::kTrain);
  const size_t size = o.limit > 0 ? std::min<size_t>(o.limit, *train.size()) : *train.size();
  auto loader = data::make_data_loader(std::move(train), data::samplers::RandomSampler(size),
                                       data::DataLoaderOptions(64));
  nabla::optim::Adam adam(params, nabla::optim::AdamOptions(o.lr));
  int64_t step = 0;
  for (auto& batch : *loader) {
    graph.set_value(graph.inputs().at(0), batch.data);
    graph.set_value(target, batch.target);
    adam.zero_grad();
    graph.zero_grad();
    const double value = graph.forward(loss).item<double>();
    graph.backward(loss);
    adam.step();
    if (step++ % 200 == 0)
      std::printf("step %lld, loss %.4f\n", static_cast<long long>(step - 1), value);
  }
  const auto after = accuracy(graph, o);
  print_accuracy("after one epoch in nabla", after);
  return after.first * static_cast<int64_t>(before.second) >
                 before.first * static_cast<int64_t>(after.second)
             ? 0
             : 1;
}
