// nn::Module, holders, containers, Linear, init and clipping utilities.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include <nabla/nabla.h>

#include "test_util.h"

namespace nn = nabla::nn;
using nabla::Tensor;
using nabla::testing::expect_error;

namespace {

struct NetImpl : nn::Module {
  NetImpl() {
    fc1 = register_module("fc1", nn::Linear(4, 3));
    seq = register_module("seq", nn::Sequential(nn::Linear(3, 2), nn::Functional(nabla::relu)));
    register_buffer("steps", nabla::zeros({1}));
  }
  Tensor forward(const Tensor& x) { return seq->forward(fc1(x)); }
  nn::Linear fc1 = nullptr;
  nn::Sequential seq = nullptr;
};
NABLA_MODULE(Net);

struct CloneNetImpl : nn::Cloneable<CloneNetImpl> {
  CloneNetImpl() { reset(); }
  void reset() override {
    fc = register_module("fc", nn::Linear(2, 2));
    scale = register_parameter("scale", nabla::ones({2}));
  }
  Tensor forward(const Tensor& x) { return fc(x) * scale; }
  nn::Linear fc = nullptr;
  Tensor scale;
};
NABLA_MODULE(CloneNet);

std::vector<std::string> keys(const nabla::OrderedDict<std::string, Tensor>& d) { return d.keys(); }

}  // namespace

TEST(Module, DottedNamesAsLibTorch) {
  Net net;
  EXPECT_EQ(keys(net->named_parameters()),
            (std::vector<std::string>{"fc1.weight", "fc1.bias", "seq.0.weight", "seq.0.bias"}));
  EXPECT_EQ(keys(net->named_parameters(false)), std::vector<std::string>{});
  EXPECT_EQ(keys(net->named_buffers()), std::vector<std::string>{"steps"});
  EXPECT_EQ(net->parameters().size(), 4u);
  EXPECT_EQ(net->children().size(), 2u);
  auto mods = net->named_modules();
  EXPECT_EQ(mods.keys(), (std::vector<std::string>{"", "fc1", "seq", "seq.0", "seq.1"}));
  EXPECT_EQ(net->modules(false).size(), 4u);
  for (const auto& p : net->parameters()) EXPECT_TRUE(p.requires_grad());
}

TEST(Module, ForwardThroughHolders) {
  nabla::manual_seed(0);
  Net net;
  Tensor x = nabla::randn({5, 4});
  Tensor want = nabla::relu(nabla::linear(nabla::linear(x, net->fc1->weight, net->fc1->bias),
                                          net->seq->ptr<nn::LinearImpl>(0)->weight,
                                          net->seq->ptr<nn::LinearImpl>(0)->bias));
  EXPECT_TRUE(net(x).equal(want));
  EXPECT_EQ(net->seq->size(), 2u);
}

TEST(Module, TrainEvalRecursive) {
  Net net;
  net->eval();
  for (const auto& m : net->modules()) EXPECT_FALSE(m->is_training());
  net->train();
  for (const auto& m : net->modules()) EXPECT_TRUE(m->is_training());
}

TEST(Module, ZeroGradAndTo) {
  Net net;
  net(nabla::randn({2, 4})).sum().backward();
  for (const auto& p : net->parameters()) ASSERT_TRUE(p.grad().defined());
  net->zero_grad();  // LibTorch 1.13: zeroed in place by default
  for (const auto& p : net->parameters()) EXPECT_EQ(p.grad().abs().sum().item<double>(), 0.0);
  net->zero_grad(/*set_to_none=*/true);
  for (const auto& p : net->parameters()) EXPECT_FALSE(p.grad().defined());

  Tensor w = net->fc1->weight;
  net->to(nabla::kDouble);
  EXPECT_EQ(net->fc1->weight.scalar_type(), nabla::kDouble);
  EXPECT_EQ(w.scalar_type(), nabla::kDouble);  // same tensor object, new data
  EXPECT_TRUE(net->fc1->weight.requires_grad());
  EXPECT_EQ(net(nabla::randn({2, 4}, nabla::kDouble)).scalar_type(), nabla::kDouble);
}

TEST(Module, CloneIsDeep) {
  CloneNet a;
  a->fc->weight.data().fill_(0.25);
  auto b = std::dynamic_pointer_cast<CloneNetImpl>(a->clone());
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(b->fc->weight.equal(a->fc->weight));
  // The clone's holder members point at its own submodules and tensors.
  EXPECT_EQ(b->fc.get(), b->named_children()["fc"].get());
  b->fc->weight.data().fill_(1);
  b->scale.data().fill_(3);
  EXPECT_EQ(a->fc->weight.sum().item<double>(), 0.25 * 4);
  EXPECT_EQ(a->scale.sum().item<double>(), 2);
  EXPECT_TRUE(b->fc->weight.requires_grad());
  // Sequential clones too.
  nn::Sequential s(nn::Linear(2, 3), nn::Linear(3, 1));
  auto s2 = std::dynamic_pointer_cast<nn::SequentialImpl>(s->clone());
  Tensor x = nabla::randn({4, 2});
  EXPECT_TRUE(s2->forward(x).equal(s->forward(x)));
  s2->ptr<nn::LinearImpl>(0)->weight.data().fill_(0);
  EXPECT_FALSE(s2->forward(x).equal(s->forward(x)));
  // Plain modules say how to make them cloneable.
  Net net;
  expect_error([&] { net->clone(); }, {"Cloneable"});
}

TEST(Module, PrettyPrint) {
  nn::Sequential s(nn::Linear(2, 3), nn::Flatten());
  std::ostringstream os;
  os << *s;
  EXPECT_EQ(os.str(),
            "nabla::nn::Sequential(\n"
            "  (0): nabla::nn::Linear(in_features=2, out_features=3, bias=true)\n"
            "  (1): nabla::nn::Flatten(start_dim=1, end_dim=-1)\n"
            ")");
  Net net;
  std::ostringstream os2;
  os2 << net;
  EXPECT_NE(os2.str().find("NetImpl(\n  (fc1): nabla::nn::Linear(in_features=4"), std::string::npos)
      << os2.str();
}

TEST(Module, RegistrationErrors) {
  nn::Module m;
  m.register_parameter("w", nabla::ones({2}));
  expect_error([&] { m.register_parameter("w", nabla::ones({2})); },
               {"Parameter 'w' already defined"});
  expect_error([&] { m.register_parameter("a.b", nabla::ones({2})); }, {"must not contain a dot"});
  expect_error([&] { m.register_parameter("", nabla::ones({2})); }, {"empty"});
  expect_error([&] { m.register_parameter("i", nabla::ones({2}, nabla::kLong)); }, {"floating"});
  m.register_module("sub", nn::Linear(1, 1));
  expect_error([&] { m.register_module("sub", nn::Linear(1, 1)); },
               {"Submodule 'sub' already defined"});
  expect_error([&] { m.modules(); }, {"shared_ptr"});
  EXPECT_EQ(m.modules(false).size(), 1u);
  nn::Linear empty = nullptr;
  expect_error([&] { empty->forward(nabla::ones({1, 1})); }, {"empty ModuleHolder"});
  // A bias-less Linear has no bias parameter in the listing.
  nn::Linear nb(nn::LinearOptions(3, 2).bias(false));
  EXPECT_EQ(keys(nb->named_parameters()), std::vector<std::string>{"weight"});
}

TEST(Module, Containers) {
  nn::ModuleList list(nn::Linear(1, 2), nn::Linear(2, 3));
  list->push_back(nn::Linear(3, 4));
  list->insert(0, nn::Identity());
  EXPECT_EQ(list->size(), 4u);
  EXPECT_EQ(keys(list->named_parameters()).front(), "1.weight");
  EXPECT_NE(list->ptr<nn::LinearImpl>(3), nullptr);
  EXPECT_EQ(list->at<nn::LinearImpl>(3).options.out_features(), 4);
  expect_error([&] { list->ptr(9); }, {"out of range"});

  nn::ModuleDict dict(std::vector<std::pair<std::string, std::shared_ptr<nn::Module>>>{
      {"a", nn::Linear(1, 1).ptr()}, {"b", nn::Linear(1, 2).ptr()}});
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(keys(dict->named_parameters()).size(), 4u);
  dict->pop("a");
  EXPECT_FALSE(dict->contains("a"));
  expect_error([&] { (*dict)["zz"]; }, {"Module 'zz' is not defined"});

  nn::Sequential named({{"first", nn::Linear(2, 2)}, {"act", nn::Functional(nabla::tanh)}});
  EXPECT_EQ(keys(named->named_parameters()),
            (std::vector<std::string>{"first.weight", "first.bias"}));
  nn::Sequential bound(nn::Functional(nabla::leaky_relu, 0.5));
  EXPECT_TRUE(bound->forward(nabla::full({2}, -2.0)).equal(nabla::full({2}, -1.0)));
  nn::Sequential empty_seq;
  expect_error([&] { empty_seq->forward(nabla::ones({1})); }, {"empty"});
}

TEST(Init, DistributionsAndGains) {
  nabla::manual_seed(1);
  Tensor w = nabla::empty({256, 512});
  nn::init::kaiming_uniform_(w, 0, nabla::kFanIn, nabla::kReLU);
  const double bound = std::sqrt(2.0) * std::sqrt(3.0 / 512);
  EXPECT_LE(w.abs().max().item<double>(), bound);
  EXPECT_NEAR(w.std().item<double>(), bound / std::sqrt(3.0), 0.01 * bound);
  nn::init::xavier_normal_(w);
  EXPECT_NEAR(w.std().item<double>(), std::sqrt(2.0 / (256 + 512)), 2e-3);
  EXPECT_NEAR(nn::init::calculate_gain(nabla::kTanh), 5.0 / 3.0, 1e-12);
  EXPECT_NEAR(nn::init::calculate_gain(nabla::kLeakyReLU, 0.2), std::sqrt(2.0 / 1.04), 1e-12);
  auto [fi, fo] = nn::init::_calculate_fan_in_and_fan_out(nabla::empty({8, 4, 3, 3}));
  EXPECT_EQ(fi, 36);
  EXPECT_EQ(fo, 72);
  Tensor q = nabla::empty({3, 5});
  nn::init::orthogonal_(q);
  EXPECT_TRUE(q.matmul(q.t()).allclose(nabla::eye(3), 1e-5, 1e-5));
  Tensor tall = nabla::empty({6, 2, 2});
  nn::init::orthogonal_(tall, 2.0);
  Tensor flat = tall.view({6, 4});
  EXPECT_TRUE(flat.t().matmul(flat).allclose(nabla::eye(4) * 4, 1e-4, 1e-4));
  Tensor d = nabla::empty({2, 2, 3, 3});
  nn::init::dirac_(d);
  EXPECT_EQ(d.sum().item<double>(), 2);
  EXPECT_EQ(d[1][1][1][1].item<double>(), 1);
  // Initialising a parameter keeps it a leaf.
  nn::Linear l(3, 3);
  nn::init::constant_(l->weight, 0.5);
  EXPECT_TRUE(l->weight.is_leaf());
  EXPECT_EQ(l->weight.sum().item<double>(), 4.5);
  expect_error([] { nn::init::xavier_uniform_(nabla::empty({3})); }, {"at least 2 dims"});
}

TEST(Init, LinearDefaultBounds) {
  nabla::manual_seed(2);
  nn::Linear l(100, 300);
  const double bound = 0.1;
  EXPECT_LE(l->weight.abs().max().item<double>(), bound);
  EXPECT_GT(l->weight.abs().max().item<double>(), 0.99 * bound);
  EXPECT_LE(l->bias.abs().max().item<double>(), bound);
}

TEST(Utils, ClipGradNormAndValue) {
  Tensor a = nabla::zeros({2}).requires_grad_();
  Tensor b = nabla::zeros({1}).requires_grad_();
  (a * nabla::tensor({3.0f, 0.0f})).sum().add((b * 4).sum()).backward();
  double total = nn::utils::clip_grad_norm_({a, b}, 1.0);
  EXPECT_NEAR(total, 5.0, 1e-6);
  EXPECT_NEAR(a.grad()[0].item<double>(), 3.0 / (5 + 1e-6), 1e-6);
  EXPECT_NEAR(b.grad()[0].item<double>(), 4.0 / (5 + 1e-6), 1e-6);
  double inf = nn::utils::clip_grad_norm_({a, b}, 10.0, INFINITY);
  EXPECT_NEAR(inf, 0.8, 1e-5);
  nn::utils::clip_grad_value_({a, b}, 0.5);
  EXPECT_NEAR(b.grad()[0].item<double>(), 0.5, 1e-7);
  b.grad().fill_(NAN);
  expect_error([&] { nn::utils::clip_grad_norm_({a, b}, 1.0, 2.0, true); }, {"non-finite"});
  // The infinity norm sees the NaN too, whichever gradient holds it.
  expect_error([&] { nn::utils::clip_grad_norm_({b, a}, 1.0, INFINITY, true); }, {"non-finite"});
  EXPECT_TRUE(std::isnan(nn::utils::clip_grad_norm_({a, b}, 1.0, INFINITY)));

  Tensor v = nn::utils::parameters_to_vector({nabla::ones({2, 2}), nabla::zeros({3})});
  EXPECT_EQ(v.sizes().vec(), std::vector<int64_t>{7});
  Tensor p1 = nabla::zeros({2, 2}), p2 = nabla::zeros({3});
  nn::utils::vector_to_parameters(nabla::arange(7, nabla::kFloat), {p1, p2});
  EXPECT_EQ(p2[2].item<double>(), 6);
  expect_error(
      [&] {
        nn::utils::vector_to_parameters(nabla::arange(6, nabla::kFloat), {p1, p2});
      },
      {"7"});
}

TEST(Module, RecurrentModulesClone) {
  nn::LSTM lstm(nn::LSTMOptions(3, 4).num_layers(2));
  auto copy = std::dynamic_pointer_cast<nn::LSTMImpl>(lstm->clone());
  ASSERT_NE(copy, nullptr);
  Tensor x = nabla::randn({5, 2, 3});
  EXPECT_TRUE(std::get<0>(copy->forward(x)).equal(std::get<0>(lstm->forward(x))));
  copy->named_parameters()["weight_hh_l1"].data().fill_(0);
  EXPECT_FALSE(std::get<0>(copy->forward(x)).equal(std::get<0>(lstm->forward(x))));
  nn::GRUCell cell(3, 4);
  auto cell_copy = std::dynamic_pointer_cast<nn::GRUCellImpl>(cell->clone());
  ASSERT_NE(cell_copy, nullptr);
  EXPECT_TRUE(cell_copy->forward(x[0]).equal(cell->forward(x[0])));
  EXPECT_NE(cell_copy->weight_ih.data_ptr(), cell->weight_ih.data_ptr());
}
