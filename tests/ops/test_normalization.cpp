// Normalization, what the op table (tests/conformance/table_nn_norm.cpp) cannot say: the
// fused backward kernels against the differentiable formulas, sizes that take the parallel
// paths, running statistics updated in place, F:: spellings, error messages.
#include <cmath>
#include <functional>

#include "test_util.h"

using namespace nabla;
namespace F = nabla::nn::functional;
using nabla::testing::expect_error;
using nabla::testing::expect_values;
using nabla::testing::name_of;
using nabla::testing::rnd;
using nabla::testing::values;
using V = std::vector<double>;
using autograd::variable_list;

namespace {

void expect_close(const Tensor& a, const Tensor& b, double tol = 1e-5) {
  ASSERT_EQ(a.sizes(), b.sizes());
  expect_values(a, values(b), tol);
}

// Reference: normalize x over `dims` (biased variance), in double.
Tensor ref_norm(const Tensor& x, IntArrayRef dims, double eps) {
  Tensor xd = x.to(kDouble);
  Tensor m = xd.mean(dims, true);
  return (xd - m) / ((xd - m).square().mean(dims, true) + eps).sqrt();
}

void check_derivatives(const autograd::TensorFn& f, const variable_list& in) {
  EXPECT_TRUE(autograd::gradcheck(f, in));
  EXPECT_TRUE(autograd::gradgradcheck(f, in));
}

}  // namespace

// Running statistics are updated in place (their version moves); a batch large enough for
// the parallel paths.
TEST(BatchNorm, RunningStatsInPlaceAndLargeBatch) {
  Tensor x = tensor({{1.0, 2.0}, {3.0, 2.0}, {5.0, 2.0}, {7.0, 2.0}});
  Tensor rm = zeros({2}), rv = ones({2});
  const uint32_t v0 = rm._version();
  batch_norm(x, tensor({2.0, 1.0}), tensor({0.5, -1.0}), rm, rv, true, 0.1, 1e-5);
  EXPECT_GT(rm._version(), v0);
  Tensor large = randn({64, 16, 32, 32});
  expect_close(batch_norm(large, {}, {}, {}, {}, true, 0.1, 1e-5).slice(1, 0, 2),
               ref_norm(large, {0, 2, 3}, 1e-5).slice(1, 0, 2), 1e-4);
}

// Messages beyond the op's name (the table's error entries check the name).
TEST(BatchNorm, Errors) {
  expect_error([] { batch_norm(randn({3}), {}, {}, {}, {}, true, 0.1, 1e-5); },
               {"batch_norm", "2 dims", "[3]"});
  expect_error(
      [] {
        batch_norm(randn({4, 3}), ones({2}), {}, {}, {}, true, 0.1, 1e-5);
      },
      {"batch_norm", "weight", "3"});
  expect_error(
      [] {
        batch_norm(randn({4, 3}), {}, {}, zeros({4}), ones({3}), true, 0.1, 1e-5);
      },
      {"batch_norm", "running_mean", "3"});
  expect_error(
      [] {
        batch_norm(randn({4, 3}), {}, {}, {}, {}, false, 0.1, 1e-5);
      },
      {"batch_norm", "evaluation"});
  expect_error(
      [] {
        batch_norm(tensor({{1, 2}}), {}, {}, {}, {}, true, 0.1, 1e-5);
      },
      {"batch_norm", "floating"});
  expect_error(
      [] {
        F::batch_norm(randn({1, 3}), {}, {}, F::BatchNormFuncOptions().training(true));
      },
      {"batch_norm", "more than 1 value per channel"});
}

TEST(BatchNorm, Functional) {
  Tensor x = randn({6, 2, 3});
  Tensor rm = zeros({2}), rv = ones({2});
  Tensor w = rand({2}), b = rand({2});
  Tensor y = F::batch_norm(
      x, rm, rv,
      F::BatchNormFuncOptions().weight(w).bias(b).training(true).momentum(0.5).eps(1e-3));
  Tensor rm2 = zeros({2}), rv2 = ones({2});
  expect_close(y, batch_norm(x, w, b, rm2, rv2, true, 0.5, 1e-3));
  expect_close(rm, rm2);
  expect_close(rv, rv2);
  expect_close(F::batch_norm(x, rm, rv), batch_norm(x, {}, {}, rm, rv, false, 0.1, 1e-5));
}

TEST(InstanceNorm, FunctionalAndErrors) {
  Tensor x = randn({3, 2, 5}) * 2 + 1;
  Tensor w = rand({2}), b = rand({2});
  expect_close(F::instance_norm(x, F::InstanceNormFuncOptions().weight(w).bias(b)),
               ref_norm(x, {2}, 1e-5) * w.view({1, 2, 1}) + b.view({1, 2, 1}), 1e-4);
  expect_error(
      [] {
        instance_norm(randn({2, 3, 4}), {}, {}, {}, {}, false, 0.1, 1e-5);
      },
      {"instance_norm", "running_mean"});
  expect_error(
      [] {
        instance_norm(randn({2, 3, 4}), ones({2}), {}, {}, {}, true, 0.1, 1e-5);
      },
      {"instance_norm", "weight"});
}

TEST(LayerNorm, Functional) {
  Tensor x3 = randn({2, 3, 4}) + 5;
  Tensor w = rand({3, 4}), b = rand({3, 4});
  expect_close(F::layer_norm(x3, F::LayerNormFuncOptions({4}).eps(1e-3)), ref_norm(x3, {2}, 1e-3),
               1e-4);
  expect_close(F::layer_norm(x3, F::LayerNormFuncOptions({3, 4}).weight(w).bias(b)),
               layer_norm(x3, {3, 4}, w, b));
}

TEST(LayerNorm, Errors) {
  expect_error(
      [] {
        layer_norm(randn({2, 3}), {4});
      },
      {"layer_norm", "normalized_shape", "[2, 3]"});
  expect_error([] { layer_norm(randn({2, 3}), {}); }, {"layer_norm", "normalized_shape"});
  expect_error([] { layer_norm(randn({2, 3}), {3}, ones({2})); }, {"layer_norm", "weight"});
  expect_error([] { layer_norm(randn({3}), {2, 3}); }, {"layer_norm"});
}

TEST(GroupNorm, FunctionalAndErrors) {
  Tensor x = randn({2, 6, 5}) * 2 - 1;
  Tensor ref = ref_norm(x.view({2, 3, 10}), {2}, 1e-5).view({2, 6, 5});
  Tensor w = rand({6}), b = rand({6});
  expect_close(F::group_norm(x, F::GroupNormFuncOptions(3).weight(w).bias(b)),
               ref * w.view({1, 6, 1}) + b.view({1, 6, 1}), 1e-4);
  expect_error(
      [] {
        group_norm(randn({2, 6, 3}), 4);
      },
      {"group_norm", "divisible", "num_groups=4"});
  expect_error([] { group_norm(randn({6}), 3); }, {"group_norm", "2 dims"});
  expect_error([] { group_norm(randn({2, 6}), 3, ones({3})); }, {"group_norm", "weight", "6"});
}

// batch_norm with running statistics of x's dtype (offset and scaled: eval must use them).
Tensor bn(const Tensor& x, const Tensor& w, const Tensor& b, bool training) {
  const int64_t C = x.size(1);
  Tensor rm = randn({C}, x.options().requires_grad(false)) + 5;
  Tensor rv = rand({C}, x.options().requires_grad(false)) * 9 + 1;
  return batch_norm(x, w, b, rm, rv, training, 0.1, 1e-5, false);
}

// Without create_graph, batch/layer/group norm's backward is one fused kernel
// (KernelBackend::batch_norm_backward, group_norm_backward); with it, differentiable
// formulas. Both must give the same gradients, in float and double, with and without
// affine parameters, for the S = 1 and S > 1 shapes, in training and evaluation mode, and
// for non-contiguous incoming gradients.
TEST(NormBackward, FusedKernelMatchesFormulas) {
  struct Case {
    const char* what;
    std::vector<int64_t> shape;
    std::function<Tensor(const Tensor&, const Tensor&, const Tensor&)> f;
    std::vector<int64_t> params;  // shape of weight and bias (empty: no affine)
  };
  const std::vector<Case> cases = {
      {"layer_norm [128, 768]",
       {128, 768},
       [](auto& x, auto& w, auto& b) { return layer_norm(x, {768}, w, b); },
       {768}},
      {"layer_norm 2-d shape",
       {5, 3, 4},
       [](auto& x, auto& w, auto& b) {
         return layer_norm(x, {3, 4}, w, b);
       },
       {3, 4}},
      {"layer_norm no affine",
       {7, 33},
       [](auto& x, auto&, auto&) { return layer_norm(x, {33}); },
       {}},
      {"group_norm [8, 12, 5, 7]",
       {8, 12, 5, 7},
       [](auto& x, auto& w, auto& b) { return group_norm(x, 3, w, b); },
       {12}},
      {"group_norm [N, C]",
       {6, 8},
       [](auto& x, auto& w, auto& b) { return group_norm(x, 4, w, b); },
       {8}},
      {"group_norm one group",
       {3, 4, 9},
       [](auto& x, auto& w, auto& b) { return group_norm(x, 1, w, b); },
       {4}},
      {"group_norm no affine",
       {3, 6, 10},
       [](auto& x, auto&, auto&) { return group_norm(x, 6); },
       {}},
      {"batch_norm train [8, 12, 5, 7]",
       {8, 12, 5, 7},
       [](auto& x, auto& w, auto& b) { return bn(x, w, b, true); },
       {12}},
      {"batch_norm train [N, C] over a channel block",
       {33, 70},
       [](auto& x, auto& w, auto& b) { return bn(x, w, b, true); },
       {70}},
      {"batch_norm train no affine",
       {4, 3, 11},
       [](auto& x, auto&, auto&) { return bn(x, Tensor(), Tensor(), true); },
       {}},
      {"batch_norm eval",
       {6, 5, 4},
       [](auto& x, auto& w, auto& b) { return bn(x, w, b, false); },
       {5}},
      {"batch_norm eval [N, C]",
       {9, 7},
       [](auto& x, auto& w, auto& b) { return bn(x, w, b, false); },
       {7}},
  };
  for (ScalarType dt : {kFloat, kDouble}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(c.what) + (dt == kFloat ? " float" : " double"));
      // An offset mean tests the centring; a transposed gradient tests the layout.
      Tensor x = (randn(c.shape, TensorOptions().dtype(dt)) * 3 + 5).requires_grad_();
      const bool affine = !c.params.empty();
      Tensor w =
          affine ? (rand(c.params, TensorOptions().dtype(dt)) + 0.5).requires_grad_() : Tensor();
      Tensor b = affine ? randn(c.params, TensorOptions().dtype(dt)).requires_grad_() : Tensor();
      std::vector<int64_t> rev(c.shape.rbegin(), c.shape.rend());
      Tensor go = randn(rev, TensorOptions().dtype(dt)).permute([&] {
        std::vector<int64_t> p;
        for (int64_t i = static_cast<int64_t>(c.shape.size()) - 1; i >= 0; --i) p.push_back(i);
        return p;
      }());
      variable_list in = {x};
      if (affine) in = {x, w, b};
      Tensor y = c.f(x, w, b);
      variable_list fused = autograd::grad({y}, in, {go}, /*retain_graph=*/true);
      variable_list formula = autograd::grad({y}, in, {go}, true, /*create_graph=*/true);
      const double tol = dt == kFloat ? 2e-4 : 1e-10;
      for (size_t i = 0; i < in.size(); ++i) {
        Tensor d = (fused[i].to(kDouble) - formula[i].to(kDouble)).abs().max();
        Tensor scale = formula[i].to(kDouble).abs().max() + 1;
        EXPECT_LE(d.item<double>(), tol * scale.item<double>()) << "input " << i;
      }
    }
  }
}

// normalize and local_response_norm exist only as nn::functional spellings.
TEST(Normalize, Functional) {
  Tensor x = tensor({{3.0, 4.0}, {0.0, 0.0}});
  expect_values(F::normalize(x), {0.6, 0.8, 0, 0});
  Tensor l1 = F::normalize(x, F::NormalizeFuncOptions().p(1).dim(0));
  // (Compared with a tensor: GCC 12 -march=native on this machine miscompiled the braced
  // list {1, 1, 0, 0} right here into {1, 1, 1, 1}.)
  expect_close(l1, tensor({{1.0, 1.0}, {0.0, 0.0}}));
  Tensor out = empty({2, 2}, kDouble);
  F::normalize(x, F::NormalizeFuncOptions().out(out));
  expect_values(out, {0.6, 0.8, 0, 0});
  auto f = [](const variable_list& in) -> variable_list { return {F::normalize(in[0])}; };
  check_derivatives(f, {rnd({3, 4})});
}

TEST(LocalResponseNorm, Functional) {
  Tensor x = randn({2, 5, 3});
  const int64_t size = 3;
  const double alpha = 0.5, beta = 0.75, k = 2;
  Tensor y =
      F::local_response_norm(x, F::LocalResponseNormFuncOptions(size).alpha(alpha).beta(beta).k(k));
  // By hand: channel c sees channels c - 1 .. c + 1 (zero outside), divided by size.
  auto xa = x.accessor<float, 3>();
  auto ya = y.accessor<float, 3>();
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 5; ++c)
      for (int64_t l = 0; l < 3; ++l) {
        double s = 0;
        for (int64_t j = c - 1; j <= c + 1; ++j)
          if (j >= 0 && j < 5) s += xa[n][j][l] * xa[n][j][l];
        EXPECT_NEAR(ya[n][c][l], xa[n][c][l] / std::pow(k + alpha * s / size, beta), 1e-5);
      }
  EXPECT_EQ(F::local_response_norm(randn({2, 4, 2, 2}), F::LocalResponseNormFuncOptions(2)).sizes(),
            IntArrayRef({2, 4, 2, 2}));
  expect_error(
      [] {
        F::local_response_norm(randn({2, 3}), F::LocalResponseNormFuncOptions(2));
      },
      {"local_response_norm", "3D"});
}
