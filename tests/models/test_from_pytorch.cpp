// Models trained in Python load into nabla and back: state_dicts of torchvision's
// resnet18 and mobilenet_v2 and of the W2/W3 models, saved by Debian's python3-torch
// (tests/models/torch_models.py), load into nabla's module trees and give PyTorch's outputs
// on the same input (1e-5); nabla's changed weights, saved as .pt, load into the PyTorch
// models (strict) and give nabla's outputs there.
#include <nabla/models.h>

#include <cstdlib>

#include "test_util.h"

namespace nabla::testing {
namespace {

// Runs torch_models.py `mode` for model `name` in this process's scratch directory.
std::string run_python(const std::string& mode, const std::string& name) {
  const std::string dir = temp_path("torch_models");
  std::filesystem::create_directories(dir);
  const std::string cmd = torch_python() + " " + NABLA_TEST_SOURCE_DIR +
                          "/models/torch_models.py " + mode + " " + dir + " " + name;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return dir;
}

IValue load_value(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return pickle_load({std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()});
}

// max |a - b| relative to b's scale (at least 1).
double relative_difference(const Tensor& a, const Tensor& b) {
  return (a - b).abs().max().item<double>() / std::max(1.0, b.abs().max().item<double>());
}

template <class Model>
void round_trip(Model model, const std::string& name) {
  NABLA_REQUIRE_TORCH_PYTHON();
  const std::string dir = run_python("make", name);
  nabla::load(model, dir + "/" + name + ".pt");  // strict: every key, shape and dtype
  model->eval();
  const IValue io = load_value(dir + "/" + name + "_io.pt");
  const Tensor x = io.toGenericDict().at("input").toTensor();
  const Tensor want = io.toGenericDict().at("output").toTensor();
  NoGradGuard no_grad;
  const double err = relative_difference(model->forward(x), want);
  EXPECT_LT(err, 1e-5) << name << ": nabla's output on PyTorch's weights";
  std::cout << name << ": nabla on PyTorch's weights vs PyTorch: max relative difference " << err
            << "\n";
  // The other way: changed weights and statistics, saved by nabla, checked by PyTorch.
  for (auto& p : model->parameters()) p.mul_(0.9);
  for (auto& b : model->buffers())
    if (b.is_floating_point()) b.add_(0.01);
  nabla::save(model, dir + "/nabla_" + name + ".pt");
  nabla::save(model->forward(x), dir + "/nabla_" + name + "_out.pt");
  run_python("check", name);
}

TEST(FromPyTorch, ResNet18) { round_trip(models::ResNet18(), "resnet18"); }

TEST(FromPyTorch, MobileNetV2) { round_trip(models::MobileNetV2(), "mobilenet_v2"); }

TEST(FromPyTorch, W2) {
  round_trip(nn::Sequential(nn::Linear(784, 256), nn::ReLU(), nn::Linear(256, 128), nn::ReLU(),
                            nn::Linear(128, 10)),
             "w2");
}

TEST(FromPyTorch, W3) {
  round_trip(nn::Sequential(nn::Conv2d(nn::Conv2dOptions(1, 32, 3).padding(1)), nn::ReLU(),
                            nn::MaxPool2d(2), nn::Conv2d(nn::Conv2dOptions(32, 64, 3).padding(1)),
                            nn::ReLU(), nn::MaxPool2d(2), nn::Flatten(), nn::Linear(3136, 128),
                            nn::ReLU(), nn::Linear(128, 10)),
             "w3");
}

}  // namespace
}  // namespace nabla::testing
