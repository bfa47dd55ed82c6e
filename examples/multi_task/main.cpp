// Multi-task learning: a shared trunk with two heads, one
// regression loss and one classification loss. Backpropagating the two losses one after
// the other (the first with retain_graph, since the trunk's graph is shared) accumulates
// exactly the gradients of backpropagating their sum once; the program checks this every
// step, then trains on the summed loss.
//   multi_task [--steps N]
#include <nabla/nabla.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

namespace nn = nabla::nn;
namespace F = nabla::nn::functional;

struct MultiTaskImpl : nn::Module {
  MultiTaskImpl()
      : trunk(register_module("trunk",
                              nn::Sequential(nn::Linear(8, 32), nn::Functional(nabla::tanh),
                                             nn::Linear(32, 32), nn::Functional(nabla::relu)))),
        regress(register_module("regress", nn::Linear(32, 1))),
        classify(register_module("classify", nn::Linear(32, 3))) {}
  std::pair<nabla::Tensor, nabla::Tensor> forward(const nabla::Tensor& x) {
    auto h = trunk->forward(x);
    return {regress(h), classify(h)};
  }
  nn::Sequential trunk;
  nn::Linear regress, classify;
};
NABLA_MODULE(MultiTask);

int main(int argc, char** argv) {
  int steps = 200;
  for (int i = 1; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], "--steps")) steps = std::stoi(argv[i + 1]);
  nabla::manual_seed(1);
  MultiTask model;
  nabla::optim::Adam optimizer(model->parameters(), nabla::optim::AdamOptions(1e-2));
  const auto x = nabla::randn({128, 8});
  const auto y_reg = x.narrow(1, 0, 3).sum(1, true).sin();
  const auto y_cls =
      (x.narrow(1, 3, 2).sum(1) > 0).to(nabla::kLong) + (x.select(1, 5) > 1).to(nabla::kLong);

  double worst = 0;
  for (int step = 1; step <= steps; ++step) {
    // Two backward passes through the shared trunk...
    optimizer.zero_grad();
    auto [r1, c1] = model(x);
    auto loss_reg = F::mse_loss(r1, y_reg);
    auto loss_cls = F::cross_entropy(c1, y_cls);
    loss_reg.backward({}, /*retain_graph=*/true);
    loss_cls.backward();
    std::vector<nabla::Tensor> separate;
    for (const auto& p : model->parameters()) separate.push_back(p.grad().clone());
    // ...give the gradients of one backward pass of the sum.
    optimizer.zero_grad();
    auto [r2, c2] = model(x);
    auto total = F::mse_loss(r2, y_reg) + F::cross_entropy(c2, y_cls);
    total.backward();
    const auto params = model->parameters();
    for (size_t i = 0; i < params.size(); ++i)
      worst = std::max(worst, (params[i].grad() - separate[i]).abs().max().item<double>());
    optimizer.step();
    if (step % (steps / 5 > 0 ? steps / 5 : 1) == 0)
      std::printf("step %4d  regression %.4f  classification %.4f  total %.4f\n", step,
                  loss_reg.item<double>(), loss_cls.item<double>(), total.item<double>());
  }
  std::printf("largest difference between the two ways of computing gradients: %.3g\n", worst);
  if (worst > 1e-6) {
    std::fprintf(stderr, "multi_task: retain_graph gradients differ from the summed loss's\n");
    return 1;
  }
  return 0;
}
