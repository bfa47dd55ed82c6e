// Polynomial regression: fit y = 0.5 x^3 - x^2 + 2 x + 1 (plus noise) with nn::Linear on
// the features (x, x^2, x^3) and SGD with momentum — the smallest complete training loop.
//   regression [--steps N]
#include <nabla/nabla.h>

#include <cstdio>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  int steps = 2000;
  for (int i = 1; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], "--steps")) steps = std::stoi(argv[i + 1]);
  nabla::manual_seed(0);
  const auto x = nabla::rand({256, 1}) * 4 - 2;  // uniform in [-2, 2)
  const auto features = nabla::cat({x, x.pow(2), x.pow(3)}, 1);
  const auto y = 0.5 * x.pow(3) - x.pow(2) + 2 * x + 1 + 0.05 * nabla::randn({256, 1});

  nabla::nn::Linear model(3, 1);
  nabla::optim::SGD optimizer(model->parameters(), nabla::optim::SGDOptions(0.01).momentum(0.9));
  double first = 0, last = 0;
  for (int step = 1; step <= steps; ++step) {
    optimizer.zero_grad();
    auto loss = nabla::nn::functional::mse_loss(model(features), y);
    loss.backward();
    optimizer.step();
    last = loss.item<double>();
    if (step == 1) first = last;
    if (step % (steps / 10 > 0 ? steps / 10 : 1) == 0)
      std::printf("step %5d  loss %.6f\n", step, last);
  }
  auto w = model->weight.detach();
  std::printf("learned y = %.3f x^3 %+.3f x^2 %+.3f x %+.3f   (true: 0.5 x^3 - 1 x^2 + 2 x + 1)\n",
              w[0][2].item<double>(), w[0][1].item<double>(), w[0][0].item<double>(),
              model->bias.item<double>());
  if (!(last < first * 0.1)) {
    std::fprintf(stderr, "regression: the loss did not fall (%.4f -> %.4f)\n", first, last);
    return 1;
  }
  return 0;
}
