// graph::save_onnx (Note [ONNX export], src/graph/onnx/exporter.h): modules traced with
// graph::trace and written as ONNX models that ONNX's own checker (python3-onnx, full shape
// inference) accepts and load_onnx reads back to the same outputs; what cannot be written
// is a nabla::Error naming the node. (ONNX's node tests written back: tests/onnx.)
#include <nabla/graph.h>
#include <nabla/graph/import.h>

#include <cstdlib>
#include <fstream>

#include "test_util.h"

namespace nabla::testing {
namespace {

namespace g = nabla::graph;

#define NABLA_REQUIRE_ONNX_WRITER()                                                \
  do {                                                                             \
    if (g::onnx_available()) break;                                                \
    if (std::getenv("NABLA_REQUIRE_TORCH_PYTHON")) FAIL() << "built without ONNX"; \
    GTEST_SKIP() << "nabla was built without libonnx-dev";                         \
  } while (0)

// The files written so far, for ONNX's checker.
std::vector<std::string>& written() {
  static std::vector<std::string> files;
  return files;
}

// `module` traced on `inputs`, written, read back: the same outputs within 1e-6, and the
// same number of parameters (they stay trainable).
void expect_round_trip(const std::string& name,
                       const std::function<Tensor(const std::vector<Tensor>&)>& module,
                       const std::vector<Tensor>& inputs) {
  g::Graph traced = g::trace(module, inputs);
  const std::string path = temp_path(name + ".onnx");
  g::save_onnx(traced, path);
  written().push_back(path);
  g::Graph back = g::load_onnx(path);
  ASSERT_EQ(back.inputs().size(), inputs.size()) << name;
  for (size_t i = 0; i < inputs.size(); ++i) back.set_value(back.inputs()[i], inputs[i]);
  NoGradGuard no_grad;
  const Tensor want = module(inputs), got = back.forward(back.outputs()[0]);
  ASSERT_EQ(shape(got), shape(want)) << name;
  const double err = (got - want).abs().max().item<double>();
  EXPECT_LT(err, 1e-6) << name;
  EXPECT_EQ(back.parameters().size(), traced.parameters().size()) << name;
  std::cout << name << ": " << traced.size() << " nodes written, read back within " << err << "\n";
}

struct Block : nn::Module {  // a pre-norm transformer block, written with the op table
  Block() {
    norm = register_module("norm", nn::LayerNorm(nn::LayerNormOptions({16})));
    qkv = register_module("qkv", nn::Linear(16, 48));
    proj = register_module("proj", nn::Linear(16, 16));
    ff = register_module("ff", nn::Sequential(nn::Linear(16, 32), nn::GELU(), nn::Linear(32, 16)));
  }
  Tensor forward(const Tensor& x) {
    const auto parts = qkv(norm(x)).chunk(3, -1);
    const Tensor att = (parts[0].matmul(parts[1].transpose(-2, -1)) / 4.0).softmax(-1);
    const Tensor h = x + proj(att.matmul(parts[2]));
    return h + ff->forward(norm(h));
  }
  nn::LayerNorm norm{nullptr};
  nn::Linear qkv{nullptr}, proj{nullptr};
  nn::Sequential ff{nullptr};
};

TEST(ExportOnnx, TracedModulesReadBackAndPassOnnxsChecker) {
  NABLA_REQUIRE_ONNX_WRITER();
  manual_seed(0);
  nn::Sequential w2(nn::Linear(784, 64), nn::Functional(relu), nn::Linear(64, 10));
  expect_round_trip("w2", [&](const std::vector<Tensor>& x) { return w2->forward(x[0]); },
                    {rand({4, 784})});
  nn::Sequential w3(nn::Conv2d(nn::Conv2dOptions(1, 8, 3).padding(1)), nn::Functional(relu),
                    nn::MaxPool2d(nn::MaxPool2dOptions(2)),
                    nn::Conv2d(nn::Conv2dOptions(8, 8, 3).stride(2)), nn::BatchNorm2d(8),
                    nn::Functional(relu), nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions(1)),
                    nn::Flatten(), nn::Linear(8, 10), nn::LogSoftmax(1));
  w3->eval();
  expect_round_trip("w3", [&](const std::vector<Tensor>& x) { return w3->forward(x[0]); },
                    {rand({2, 1, 28, 28})});
  auto block = std::make_shared<Block>();
  expect_round_trip("block", [&](const std::vector<Tensor>& x) { return block->forward(x[0]); },
                    {randn({2, 5, 16})});
  nn::Embedding emb(20, 6);
  expect_round_trip("embedding",  // integer inputs, a reduction, mixed dtypes cast as ONNX wants
                    [&](const std::vector<Tensor>& x) {
                      return emb(x[0]).mean(1) * x[1].to(kFloat).unsqueeze(1) + x[0].sum(1, true);
                    },
                    {randint(0, 20, {3, 7}, kLong), randint(0, 3, {3}, kLong)});
  nn::LSTM lstm(nn::LSTMOptions(6, 8).num_layers(2).bidirectional(true).batch_first(true));
  expect_round_trip("lstm",
                    [&](const std::vector<Tensor>& x) { return std::get<0>(lstm->forward(x[0])); },
                    {randn({3, 5, 6})});
  nn::GRU gru(nn::GRUOptions(6, 8));
  expect_round_trip("gru",
                    [&](const std::vector<Tensor>& x) { return std::get<1>(gru->forward(x[0])); },
                    {randn({5, 3, 6})});
  // The activations with attributes: elu's general form (scale, input_scale) and softplus's
  // threshold (ONNX's Softplus has none) are composed.
  const std::vector<std::pair<std::string, std::function<Tensor(const Tensor&)>>> activations = {
      {"elu_scaled", [](const Tensor& x) { return elu(x, 0.5, 1.0507, 0.75); }},
      {"elu", [](const Tensor& x) { return elu(x, 2.0); }},
      {"leaky_relu", [](const Tensor& x) { return leaky_relu(x, 0.2); }},
      {"softplus", [](const Tensor& x) { return softplus(x, 2, 5); }},
      {"softplus_beta", [](const Tensor& x) { return softplus(x, 0.5); }},
      {"silu", [](const Tensor& x) { return silu(x); }},
      {"gelu_tanh", [](const Tensor& x) { return gelu(x, "tanh"); }},
      // where's number operands are attributes of its node: written as constants.
      {"where_numbers",
       [](const Tensor& x) { return where(x > 0, x, 0.5) + where(x > 1, -2.0, x); }},
      // so is pow's number base (pow(2, x): the attribute `self`)
      {"pow_number_base", [](const Tensor& x) { return pow(2, x) - pow(x, 2) * 0.5; }}};
  for (const auto& entry : activations) {
    const auto& f = entry.second;  // a structured binding cannot be captured before clang 16
    expect_round_trip(entry.first, [&f](const std::vector<Tensor>& x) { return f(x[0]); },
                      {randn({4, 9}) * 3});
  }
  // ONNX's checker on every file written above.
  const std::string list = temp_path("written.txt");
  {
    std::ofstream out(list);
    for (const auto& f : written()) out << f << "\n";
  }
  if (std::system("/usr/bin/python3 -c 'import onnx' 2>/dev/null") != 0) {
    if (std::getenv("NABLA_REQUIRE_TORCH_PYTHON")) FAIL() << "no python3-onnx";
    GTEST_SKIP() << "no python3-onnx (apt-get install python3-onnx)";
  }
  const std::string cmd =
      std::string("/usr/bin/python3 ") + NABLA_TEST_SOURCE_DIR + "/onnx/check_models.py " + list;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

TEST(ExportOnnx, WhatCannotBeWrittenIsNamed) {
  NABLA_REQUIRE_ONNX_WRITER();
  const std::string path = temp_path("refused.onnx");
  {
    g::Graph graph;
    g::Value x = graph.input("x");
    graph.set_outputs({g::relu(x)});
    expect_error([&] { g::save_onnx(graph, path); },
                 {"save_onnx", "refused.onnx", "node 'x'", "no value"});
    graph.set_value(x, rand({2, 3}));
    expect_error([&] { g::save_onnx(graph, path, 12); }, {"opset 12", "13-17"});
  }
  {
    g::Graph graph;
    g::Value x = graph.input("x");
    g::Value twice = graph.custom(
        "Twice", [](const std::vector<Tensor>& in) { return std::vector<Tensor>{in[0] * 2}; }, {x},
        "twice");
    graph.set_outputs({twice});
    graph.set_value(x, rand({2}));
    expect_error([&] { g::save_onnx(graph, path); },
                 {"node 'twice'", "(Twice)", "C++ function", "no ONNX operator recorded"});
  }
  {
    g::Graph graph;
    g::Value x = graph.input("x");
    graph.set_outputs({graph.call("erfinv", {x})});
    graph.set_value(x, rand({3}));
    expect_error([&] { g::save_onnx(graph, path); }, {"(erfinv)", "does not write this op"});
  }
  EXPECT_FALSE(std::filesystem::exists(path));  // nothing half-written
}

}  // namespace
}  // namespace nabla::testing
