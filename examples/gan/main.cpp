// A DCGAN-style GAN on Fashion-MNIST: a transposed-convolution generator
// and a convolutional discriminator, two Adam optimizers, and detach() so the
// discriminator's step does not reach into the generator. Writes a PNG grid of samples
// per epoch (OUT/samples-epochN.png) and checks the losses stay finite.
//   gan [--epochs N] [--steps N] [--out DIR] [--data DIR]
#include <nabla/nabla.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "png_grid.h"

namespace data = nabla::data;
namespace nn = nabla::nn;
namespace F = nabla::nn::functional;
using nabla::Tensor;

constexpr int64_t kLatent = 64;

struct GeneratorImpl : nn::Module {
  GeneratorImpl()
      : fc(register_module("fc", nn::Linear(kLatent, 128 * 7 * 7))),
        up1(register_module(
            "up1",
            nn::ConvTranspose2d(nn::ConvTranspose2dOptions(128, 64, 4).stride(2).padding(1)))),
        up2(register_module(
            "up2",
            nn::ConvTranspose2d(nn::ConvTranspose2dOptions(64, 1, 4).stride(2).padding(1)))) {}
  Tensor forward(const Tensor& z) {
    auto h = nabla::relu(fc(z)).view({-1, 128, 7, 7});
    h = nabla::relu(up1(h));  // [N, 64, 14, 14]
    return up2(h).tanh();     // [N, 1, 28, 28] in [-1, 1]
  }
  nn::Linear fc;
  nn::ConvTranspose2d up1, up2;
};
NABLA_MODULE(Generator);

struct DiscriminatorImpl : nn::Module {
  DiscriminatorImpl()
      : c1(register_module("c1", nn::Conv2d(nn::Conv2dOptions(1, 64, 4).stride(2).padding(1)))),
        c2(register_module("c2", nn::Conv2d(nn::Conv2dOptions(64, 128, 4).stride(2).padding(1)))),
        fc(register_module("fc", nn::Linear(128 * 7 * 7, 1))) {}
  Tensor forward(const Tensor& x) {
    auto h = nabla::leaky_relu(c1(x), 0.2);
    h = nabla::leaky_relu(c2(h), 0.2);
    return fc(h.flatten(1)).squeeze(1);  // logits
  }
  nn::Conv2d c1, c2;
  nn::Linear fc;
};
NABLA_MODULE(Discriminator);

int main(int argc, char** argv) {
  int epochs = 1;
  int64_t steps_per_epoch = 0;  // 0: the whole training set
  std::string out = "runs/gan", root = data::fashion_mnist_root();
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--epochs")) epochs = std::stoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--steps")) steps_per_epoch = std::stoll(argv[i + 1]);
    if (!std::strcmp(argv[i], "--out")) out = argv[i + 1];
    if (!std::strcmp(argv[i], "--data")) root = argv[i + 1];
  }
  try {
    nabla::manual_seed(0);
    std::filesystem::create_directories(out);
    auto dataset = data::datasets::MNIST(root)
                       .map(data::transforms::Normalize<>(0.5, 0.5))  // [0, 1] -> [-1, 1]
                       .map(data::transforms::Stack<>());
    auto loader = data::make_data_loader(std::move(dataset),
                                         data::DataLoaderOptions(64).workers(2).drop_last(true));
    Generator gen;
    Discriminator disc;
    nabla::optim::Adam opt_g(gen->parameters(),
                             nabla::optim::AdamOptions(2e-4).betas({0.5, 0.999}));
    nabla::optim::Adam opt_d(disc->parameters(),
                             nabla::optim::AdamOptions(2e-4).betas({0.5, 0.999}));
    const Tensor fixed_noise = nabla::randn({64, kLatent});
    bool finite = true;
    for (int epoch = 1; epoch <= epochs; ++epoch) {
      const int64_t total = steps_per_epoch > 0 ? steps_per_epoch : 60000 / 64;
      nabla::utils::ProgressBar bar(total, "epoch " + std::to_string(epoch));
      int64_t step = 0;
      double d_sum = 0, g_sum = 0;
      for (auto& batch : *loader) {
        if (step == total) break;
        const int64_t n = batch.data.size(0);
        // Discriminator: real images toward 1, generated ones toward 0. detach() keeps
        // this step's gradients out of the generator.
        Tensor fake = gen(nabla::randn({n, kLatent}));
        opt_d.zero_grad();
        Tensor d_loss = F::binary_cross_entropy_with_logits(disc(batch.data), nabla::ones({n})) +
                        F::binary_cross_entropy_with_logits(disc(fake.detach()), nabla::zeros({n}));
        d_loss.backward();
        opt_d.step();
        // Generator: make the discriminator call its images real.
        opt_g.zero_grad();
        Tensor g_loss = F::binary_cross_entropy_with_logits(disc(fake), nabla::ones({n}));
        g_loss.backward();
        opt_g.step();
        const double d = d_loss.item<double>(), g = g_loss.item<double>();
        finite = finite && std::isfinite(d) && std::isfinite(g);
        d_sum += d;
        g_sum += g;
        ++step;
        char post[64];
        std::snprintf(post, sizeof post, "D=%.3f G=%.3f", d_sum / step, g_sum / step);
        bar.set_postfix(post);
        bar.update();
      }
      bar.close();
      nabla::NoGradGuard no_grad;
      const std::string png = out + "/samples-epoch" + std::to_string(epoch) + ".png";
      write_png_grid(png, gen(fixed_noise), 8);
      std::printf("epoch %d: D loss %.4f, G loss %.4f, samples in %s\n", epoch,
                  d_sum / std::max<int64_t>(step, 1), g_sum / std::max<int64_t>(step, 1),
                  png.c_str());
    }
    if (!finite) {
      std::fprintf(stderr, "gan: a loss became non-finite\n");
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gan: %s\n", e.what());
    return 1;
  }
}
