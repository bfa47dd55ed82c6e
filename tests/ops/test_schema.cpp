// Ops declared by schema rows (Note [Op schemas], nabla/core/op_list/schema_macros.h): the registry
// entry, the public function, the traced call and the graph builder all follow from one
// row, so they must agree on inputs, attributes, defaults and overloads.
#include <gtest/gtest.h>

#include <nabla/graph.h>
#include <nabla/nabla.h>
#include <nabla/ops/registry.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "test_util.h"

namespace {

using nabla::Tensor;
using nabla::testing::expect_error;
using nabla::testing::rnd;
namespace ops = nabla::ops;
namespace graph = nabla::graph;

const nabla::ops::AttrSpec& spec(const ops::OpSchema& s, const std::string& name) {
  auto it = std::find_if(s.attrs.begin(), s.attrs.end(),
                         [&](const ops::AttrSpec& a) { return a.name == name; });
  if (it == s.attrs.end()) throw std::runtime_error(s.name + " has no attribute " + name);
  return *it;
}

TEST(Schema, RowGivesInputsAttributesAndDefaults) {
  const ops::OpSchema& s = ops::schema("conv2d");
  EXPECT_EQ(s.input_names, (std::vector<std::string>{"input", "weight", "bias"}));
  EXPECT_EQ(s.min_inputs, 2);
  EXPECT_EQ(s.max_inputs, 3);
  // Two rows: padding as ints or as a string; the union takes both.
  ASSERT_EQ(s.overloads.size(), 2u);
  EXPECT_EQ(spec(s, "padding").type, ops::AttrType::IntList);
  ASSERT_TRUE(spec(s, "padding").also.has_value());
  EXPECT_EQ(*spec(s, "padding").also, ops::AttrType::String);
  EXPECT_EQ(std::get<std::vector<int64_t>>(*spec(s, "stride").default_value),
            std::vector<int64_t>{1});
  EXPECT_EQ(std::get<int64_t>(*spec(s, "groups").default_value), 1);
  // The string form's stride has no C++ default; it takes the int form's.
  const ops::AttrSpec& stride2 = s.overloads[1].attrs[0];
  EXPECT_EQ(stride2.name, "stride");
  ASSERT_TRUE(stride2.default_value.has_value());
  EXPECT_FALSE(stride2.required);

  const ops::OpSchema& pool = ops::schema("avg_pool2d");
  EXPECT_TRUE(spec(pool, "kernel_size").required);
  EXPECT_FALSE(spec(pool, "divisor_override").required);
  EXPECT_FALSE(spec(pool, "divisor_override").default_value.has_value());
  EXPECT_EQ(ops::schema("binary_cross_entropy_with_logits").max_inputs, 4);
}

TEST(Schema, RegistryCallsTheFormTheAttributesFit) {
  Tensor x = rnd({1, 2, 6, 6}), w = rnd({3, 2, 3, 3}), b = rnd({3});
  Tensor same = ops::call("conv2d", {x, w, b}, {{"padding", std::string("same")}})[0];
  EXPECT_TRUE(same.equal(nabla::conv2d(x, w, b, 1, "same")));
  EXPECT_EQ(same.sizes(), (std::vector<int64_t>{1, 3, 6, 6}));
  Tensor ints = ops::call("conv2d", {x, w}, {{"padding", std::vector<int64_t>{2}}})[0];
  EXPECT_TRUE(ints.equal(nabla::conv2d(x, w, {}, 1, 2)));
  EXPECT_EQ(ints.sizes(), (std::vector<int64_t>{1, 3, 8, 8}));

  const std::string wrong = error_of([&] { ops::call("conv2d", {x, w}, {{"padding", 1.5}}); });
  EXPECT_NE(wrong.find("conv2d: attribute 'padding' must be int list or string"), std::string::npos)
      << wrong;
  const std::string unknown = error_of([&] { ops::call("conv2d", {x, w}, {{"pad", 1}}); });
  EXPECT_NE(unknown.find("conv2d: unknown attribute 'pad'"), std::string::npos) << unknown;
  const std::string missing = error_of([&] { ops::call("max_pool2d", {x}); });
  EXPECT_NE(missing.find("max_pool2d: attribute 'kernel_size' (int list) is required"),
            std::string::npos)
      << missing;
  const std::string count = error_of([&] { ops::call("mse_loss", {x}); });
  EXPECT_NE(count.find("mse_loss: expected 2 input tensors, got 1"), std::string::npos) << count;
}

TEST(Schema, DefaultsAreTheFunctionsDefaults) {
  Tensor x = rnd({2, 3, 8, 8}).abs() + 0.1, y = rnd({2, 3, 8, 8}).abs();
  EXPECT_TRUE(ops::call("max_pool2d", {x}, {{"kernel_size", std::vector<int64_t>{2}}})[0].equal(
      nabla::max_pool2d(x, 2)));
  EXPECT_TRUE(ops::call("avg_pool2d", {x},
                        {{"kernel_size", std::vector<int64_t>{3}}, {"divisor_override", 2}})[0]
                  .equal(nabla::avg_pool2d(x, 3, {}, 0, false, true, 2)));
  EXPECT_TRUE(ops::call("poisson_nll_loss", {x, y})[0].equal(nabla::poisson_nll_loss(x, y)));
  EXPECT_TRUE(ops::call("smooth_l1_loss", {x, y}, {{"beta", 0.5}})[0].equal(
      nabla::smooth_l1_loss(x, y, nabla::Reduction::Mean, 0.5)));
  auto [v, i] = nabla::max_pool2d_with_indices(x, 2);
  std::vector<Tensor> both =
      ops::call("max_pool2d_with_indices", {x}, {{"kernel_size", std::vector<int64_t>{2}}});
  ASSERT_EQ(both.size(), 2u);
  EXPECT_TRUE(both[0].equal(v));
  EXPECT_TRUE(both[1].equal(i));
  // An int where an int list is wanted is an error, not a guess.
  const std::string scalar = error_of([&] {
    ops::call("max_pool2d_with_indices", {x}, {{"kernel_size", 2}});
  });
  EXPECT_NE(scalar.find("attribute 'kernel_size' must be int list, got int"), std::string::npos)
      << scalar;
}

TEST(Schema, TracedCallRecordsTheRowsAttributes) {
  Tensor x = rnd({1, 2, 5, 5}), w = rnd({4, 2, 3, 3});
  graph::Graph g = graph::trace(
      [&](const std::vector<Tensor>& in) {
        return nabla::max_pool2d(nabla::conv2d(in[0], w, {}, 1, "same"), 2, {}, 0, 1, true);
      },
      {x});
  std::vector<std::string> ops_seen;
  graph::Value conv;
  for (graph::Value out = g.outputs().at(0); !out.op().empty(); out = out.inputs().at(0)) {
    ops_seen.push_back(out.op());
    if (out.op() == "conv2d") conv = out;
  }
  EXPECT_EQ(ops_seen, (std::vector<std::string>{"max_pool2d", "conv2d"}));
  ASSERT_TRUE(conv.defined());
  EXPECT_EQ(conv.inputs().size(), 2u);  // no bias given: left out
  g.set_value(g.inputs()[0], x);
  EXPECT_TRUE(g.forward(g.outputs()[0])
                  .equal(nabla::max_pool2d(nabla::conv2d(x, w, {}, 1, "same"), 2, {}, 0, 1, true)));
}

TEST(Schema, GraphBuildersFollowTheRows) {
  graph::Graph g;
  graph::Value x = g.input("x"), t = g.input("t");
  const Tensor pos_weight = rnd({4}).abs().detach();
  graph::Value pw = g.input("pos_weight");
  // An absent weight before a given pos_weight stays, as an input without a value.
  graph::Value loss = graph::binary_cross_entropy_with_logits(x, t, {}, pw, nabla::Reduction::Sum);
  EXPECT_EQ(loss.inputs().size(), 4u);
  graph::Value pooled = graph::adaptive_avg_pool1d(x, {2});
  Tensor xv = rnd({3, 4}), tv = rnd({3, 4}).gt(0).to(nabla::kFloat);
  g.set_value(x, xv);
  g.set_value(t, tv);
  g.set_value(pw, pos_weight);
  EXPECT_TRUE(g.forward(loss).allclose(
      nabla::binary_cross_entropy_with_logits(xv, tv, {}, pos_weight, nabla::Reduction::Sum)));
  EXPECT_TRUE(g.forward(pooled).equal(nabla::adaptive_avg_pool1d(xv, 2)));
}

// A NABLA_METHOD_OP row is also a Tensor method, the function called on *this: the same
// values, the same node, and a traced method call records the op once.
TEST(Schema, MethodRowsAreTheFunctionOnThis) {
  Tensor c = rnd({3, 4}), a = rnd({3, 2}), b = rnd({2, 4});
  Tensor by_method = c.addmm(a, b, 0.5, 2);
  EXPECT_TRUE(by_method.equal(nabla::addmm(c, a, b, 0.5, 2)));
  EXPECT_STREQ(by_method.grad_fn()->name().c_str(), "AddmmBackward0");
  EXPECT_TRUE(a.matmul(b).equal(nabla::matmul(a, b)));
  const ops::OpSchema& s = ops::schema("addmm");
  EXPECT_EQ(s.input_names, (std::vector<std::string>{"self", "mat1", "mat2"}));
  graph::Graph g =
      graph::trace([&](const std::vector<Tensor>& in) { return in[0].mm(b).relu(); }, {a});
  graph::Value mm = g.outputs().at(0).inputs().at(0);
  EXPECT_EQ(mm.op(), "mm");
  EXPECT_EQ(mm.inputs().at(0).op(), "");  // the traced input itself: one mm node
  g.set_value(g.inputs()[0], a);
  EXPECT_TRUE(g.forward(g.outputs()[0]).equal(a.mm(b).relu()));
}

// Reductions are two rows each, without and with `dim` (SumBackward0 / SumBackward1); by
// name, the attributes pick the row, and `keepdim` alone reduces every dim.
TEST(Schema, ReductionRowsPickTheirFormByDim) {
  Tensor x = rnd({3, 4});
  Tensor whole = ops::call("sum", {x})[0];
  EXPECT_TRUE(whole.equal(x.sum()));
  EXPECT_STREQ(whole.grad_fn()->name().c_str(), "SumBackward0");
  Tensor rows = ops::call("sum", {x}, {{"dim", std::vector<int64_t>{1}}})[0];
  EXPECT_TRUE(rows.equal(x.sum({1})));
  EXPECT_STREQ(rows.grad_fn()->name().c_str(), "SumBackward1");
  Tensor kept = ops::call("mean", {x}, {{"keepdim", true}})[0];
  EXPECT_EQ(kept.sizes(), (std::vector<int64_t>{1, 1}));
  EXPECT_TRUE(kept.allclose(x.mean().reshape({1, 1})));
  std::vector<Tensor> max = ops::call("max", {x}, {{"dim", int64_t(0)}});
  ASSERT_EQ(max.size(), 2u);
  EXPECT_TRUE(max[1].equal(std::get<1>(x.max(0))));
  Tensor l1 = ops::call("norm", {x}, {{"p", 1.0}, {"dim", std::vector<int64_t>{0}}})[0];
  EXPECT_TRUE(l1.allclose(x.norm(1, {0})));
  Tensor l2 = ops::call("norm", {x}, {{"dim", std::vector<int64_t>{0}}})[0];  // p absent: 2
  EXPECT_TRUE(l2.allclose(x.norm(nabla::nullopt, {0})));
  const std::string no_dim = error_of([&] { ops::call("max", {x}, {{"keepdim", true}}); });
  EXPECT_NE(no_dim.find("max"), std::string::npos) << no_dim;
  // The generated out form of a reduction's row.
  Tensor out = nabla::empty({0}, nabla::kDouble);
  nabla::sum_out(out, x.detach(), {0}, true);
  EXPECT_TRUE(out.equal(x.detach().sum({0}, true)));
}

// Random float64 values that do not require grad.
Tensor plain(nabla::IntArrayRef shape) { return rnd(shape).detach(); }

// scatter's and masked_fill's source is a tensor (an input) or a number (the attribute
// `value`): two rows each; both forms keep LibTorch's nodes.
TEST(Schema, IndexRowsTakeATensorOrANumber) {
  Tensor x = rnd({3, 4});
  Tensor index = nabla::tensor({0, 2, 1}, nabla::kLong).reshape({3, 1});
  Tensor src = rnd({3, 1});
  Tensor by_src = ops::call("scatter", {x, index, src}, {{"dim", int64_t(1)}})[0];
  EXPECT_TRUE(by_src.equal(x.scatter(1, index, src)));
  EXPECT_STREQ(by_src.grad_fn()->name().c_str(), "ScatterBackward0");
  Tensor by_value = ops::call("scatter", {x, index}, {{"dim", int64_t(1)}, {"value", 2.5}})[0];
  EXPECT_TRUE(by_value.equal(nabla::scatter(x, 1, index, 2.5)));
  EXPECT_STREQ(by_value.grad_fn()->name().c_str(), "ScatterBackward1");
  Tensor mask = x.detach().gt(0);
  Tensor filled = ops::call("masked_fill", {x, mask}, {{"value", -1.0}})[0];
  EXPECT_TRUE(filled.equal(x.masked_fill(mask, -1.0)));
  Tensor by_tensor = ops::call("masked_fill", {x, mask, nabla::scalar_tensor(-1.0)})[0];
  EXPECT_TRUE(by_tensor.equal(filled));
  Tensor out = nabla::empty({0}, nabla::kDouble);
  nabla::gather_out(out, x.detach(), 1, index);
  EXPECT_TRUE(out.equal(x.detach().gather(1, index)));
}

// An op whose other operand is a tensor or a number is two rows: by name, `other` is the
// second input or the attribute. polygamma's row takes n before self, as at::polygamma.
// The fused activations and addcmul/addcdiv/lerp by rows: the registry reads every
// attribute of the row (elu's scale and input_scale too), lerp's weight is a number or an
// input, and the rows' `_out` and in-place forms exist.
TEST(Schema, ActivationAndInterpolationRows) {
  Tensor x = rnd({3, 4});
  Tensor by_call = ops::call("elu", {x}, {{"alpha", 0.5}, {"scale", 2.0}})[0];
  EXPECT_TRUE(by_call.allclose(nabla::elu(x, 0.5, 2.0)));
  EXPECT_TRUE(by_call.allclose(nabla::where(x > 0, 2 * x, (x.exp() - 1))));
  EXPECT_STREQ(
      ops::call("gelu", {x}, {{"approximate", std::string("tanh")}})[0].grad_fn()->name().c_str(),
      "GeluBackward0");
  Tensor y = plain({3, 4});
  Tensor want = nabla::leaky_relu(y, 0.3);
  nabla::leaky_relu_(y, 0.3);
  EXPECT_TRUE(y.equal(want));
  Tensor e = rnd({3, 4}), w = rnd({3, 4});
  Tensor by_number = ops::call("lerp", {x, e}, {{"weight", 0.25}})[0];
  EXPECT_TRUE(by_number.allclose(x + 0.25 * (e - x)));
  EXPECT_STREQ(by_number.grad_fn()->name().c_str(), "LerpBackward0");
  Tensor by_input = ops::call("lerp", {x, e, w})[0];
  EXPECT_TRUE(by_input.allclose(nabla::lerp(x, e, w)));
  EXPECT_STREQ(by_input.grad_fn()->name().c_str(), "LerpBackward1");
  Tensor out = nabla::empty({0}, nabla::kDouble);
  nabla::addcdiv_out(out, x.detach(), e.detach(), w.detach().abs() + 1, 0.5);
  EXPECT_TRUE(out.allclose(x.detach() + 0.5 * e.detach() / (w.detach().abs() + 1)));
  EXPECT_STREQ(x.addcmul(e, w, 2).grad_fn()->name().c_str(), "AddcmulBackward0");
  expect_error([&] { nabla::gelu(x, "fast"); }, {"gelu", "\"none\" or \"tanh\"", "fast"});
}

TEST(Schema, TensorOrNumberRowsAndArgumentOrder) {
  Tensor x = rnd({3, 4}).abs() + 0.5, y = rnd({3, 4}).abs() + 0.5;
  Tensor by_input = ops::call("xlogy", {x, y})[0];
  EXPECT_TRUE(by_input.equal(nabla::xlogy(x, y)));
  EXPECT_STREQ(by_input.grad_fn()->name().c_str(), "XlogyBackward0");
  Tensor by_attr = ops::call("xlogy", {x}, {{"other", 2.5}})[0];
  EXPECT_TRUE(by_attr.equal(x.xlogy(2.5)));
  EXPECT_STREQ(by_attr.grad_fn()->name().c_str(), "XlogyBackward2");
  Tensor pg = ops::call("polygamma", {x}, {{"n", int64_t(1)}})[0];
  EXPECT_TRUE(pg.equal(nabla::polygamma(1, x)));
  EXPECT_TRUE(pg.equal(x.polygamma(1)));
  // In-place forms of method rows, as functions and as methods.
  Tensor a = plain({5}), b = a.clone(), c = a.clone();
  b.asinh_();
  nabla::asinh_(c);
  EXPECT_TRUE(b.equal(a.asinh()));
  EXPECT_TRUE(c.equal(b));
  Tensor n = nabla::tensor({1.0, std::nan(""), 3.0}, nabla::kDouble);
  n.nan_to_num_(-1.0);
  EXPECT_TRUE(n.equal(nabla::tensor({1.0, -1.0, 3.0}, nabla::kDouble)));
}

// The `_out` forms of a row whose result is a Tensor: the function's result written into
// `out` (resized), with LibTorch's checks; a row of another result has none.
// (Unqualified: found by argument-dependent lookup, so a missing form is `false`.)
template <class... A>
concept HasMaxPoolOut = requires(A&&... a) {
  max_pool2d_with_indices_out(a...);
};
template <class... A>
concept HasMaxPoolFunction = requires(A&&... a) {
  max_pool2d_with_indices(a...);
};

TEST(Schema, TensorRowsHaveOutForms) {
  Tensor a = plain({3, 2}), b = plain({2, 4}), x = plain({1, 2, 5, 5}), w = plain({3, 2, 3, 3});
  Tensor out = nabla::empty({1}, nabla::kDouble);
  Tensor& r = nabla::mm_out(out, a, b);
  EXPECT_TRUE(r.is_same(out));
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{3, 4}));
  EXPECT_TRUE(out.equal(nabla::mm(a, b)));
  Tensor conv = nabla::empty({0}, nabla::kDouble);
  nabla::conv2d_outf(x, w, {}, 1, 1, 1, 1, conv);  // out last
  EXPECT_TRUE(conv.equal(nabla::conv2d(x, w, {}, 1, 1)));
  Tensor sm = nabla::empty({0}, nabla::kDouble);
  nabla::softmax_out(sm, a, 1);
  EXPECT_TRUE(sm.equal(nabla::softmax(a, 1)));
  Tensor leaf = plain({3, 2}).requires_grad_();
  expect_error([&] { nabla::mm_out(out, leaf, b); }, {"mm_out", "automatic differentiation"});
  Tensor ints = nabla::zeros({3, 4}, nabla::kLong);
  expect_error([&] { nabla::mm_out(ints, a, b); }, {"mm_out", "Long"});
  static_assert(HasMaxPoolFunction<const Tensor&, std::vector<int64_t>>);
  static_assert(!HasMaxPoolOut<Tensor&, const Tensor&, std::vector<int64_t>>);
}

// INPLACE(self) rows have name_: the function's result written into self, with autograd
// as every in-place op (self's history becomes the result's).
// A view's row (result `(Tensor)`) has no `_out` form, as LibTorch's views have none.
template <class... A>
concept HasTransposeOut = requires(A&&... a) {
  transpose_out(a...);
};

// The views, splits and joins by rows: ops::call picks squeeze's and split's forms by
// their attributes, a split returns every part, and the joins (a list of inputs) have
// `_out` forms where the views have none.
TEST(Schema, ViewSplitAndJoinRows) {
  Tensor x = rnd({3, 1, 4});
  Tensor all = ops::call("squeeze", {x})[0];
  EXPECT_EQ(all.sizes(), (std::vector<int64_t>{3, 4}));
  EXPECT_STREQ(all.grad_fn()->name().c_str(), "SqueezeBackward0");
  Tensor one = ops::call("squeeze", {x}, {{"dim", int64_t(1)}})[0];
  EXPECT_STREQ(one.grad_fn()->name().c_str(), "SqueezeBackward1");
  EXPECT_TRUE(one.is_view() && one._base().is_same(x));
  const auto by_size = ops::call("split", {x}, {{"split_size", int64_t(3)}, {"dim", int64_t(2)}});
  ASSERT_EQ(by_size.size(), 2u);
  EXPECT_EQ(by_size[1].sizes(), (std::vector<int64_t>{3, 1, 1}));
  const auto by_sizes =
      ops::call("split", {x}, {{"split_size", std::vector<int64_t>{1, 3}}, {"dim", int64_t(-1)}});
  ASSERT_EQ(by_sizes.size(), 2u);
  EXPECT_TRUE(by_sizes[1].equal(x.narrow(2, 1, 3)));
  EXPECT_EQ(ops::call("chunk", {x}, {{"chunks", int64_t(2)}})[0].size(0), 2);
  EXPECT_EQ(ops::call("unbind", {x})[0].sizes(), (std::vector<int64_t>{1, 4}));
  Tensor a = plain({2, 3}), b = plain({1, 3});
  Tensor joined = ops::call("cat", {a, b})[0];
  EXPECT_TRUE(joined.equal(nabla::cat({a, b})));
  EXPECT_EQ(ops::call("stack", {a, a}, {{"dim", int64_t(1)}})[0].sizes(),
            (std::vector<int64_t>{2, 2, 3}));
  Tensor out = nabla::empty({0}, nabla::kDouble);
  nabla::cat_out(out, {a, b}, 0);
  EXPECT_TRUE(out.equal(joined));
  nabla::vstack_outf({a, b}, out);
  EXPECT_TRUE(out.equal(joined));
  expect_error([&] { ops::call("cat", {}); }, {"cat", "non-empty"});
  static_assert(!HasTransposeOut<Tensor&, const Tensor&, int64_t, int64_t>);
}

// A default with a comma is parenthesized in its row (rot90's dims); movedim's int and
// list forms and index_fill's number and tensor forms are overloads ops::call tells apart;
// the add-products' in-place forms follow from INPLACE(self).
TEST(Schema, CompositeShapeRows) {
  Tensor x = rnd({2, 3, 4});
  EXPECT_TRUE(ops::call("rot90", {x})[0].equal(x.rot90(1, {0, 1})));
  Tensor by_ints =
      ops::call("movedim", {x}, {{"source", int64_t(0)}, {"destination", int64_t(2)}})[0];
  Tensor by_lists =
      ops::call("movedim", {x},
                {{"source", std::vector<int64_t>{0}}, {"destination", std::vector<int64_t>{2}}})[0];
  EXPECT_EQ(by_ints.sizes(), (std::vector<int64_t>{3, 4, 2}));
  EXPECT_TRUE(by_ints.equal(by_lists));
  Tensor index = nabla::tensor({0, 2}, nabla::kLong);
  Tensor by_number = ops::call("index_fill", {x, index}, {{"dim", int64_t(1)}, {"value", -1.0}})[0];
  EXPECT_STREQ(by_number.grad_fn()->name().c_str(), "IndexFillBackward0");
  Tensor by_tensor = ops::call("index_fill", {x, index, nabla::scalar_tensor(-1.0, nabla::kDouble)},
                               {{"dim", int64_t(1)}})[0];
  EXPECT_TRUE(by_tensor.equal(by_number));
  const auto grids =
      ops::call("meshgrid", {plain({2}), plain({3})}, {{"indexing", std::string("xy")}});
  ASSERT_EQ(grids.size(), 2u);
  EXPECT_EQ(grids[0].sizes(), (std::vector<int64_t>{3, 2}));
  Tensor self = plain({3}), mat = plain({3, 2}), vec = plain({2});
  Tensor want = nabla::addmv(self, mat, vec, 0.5, 2);
  self.addmv_(mat, vec, 0.5, 2);
  EXPECT_TRUE(self.allclose(want));
}

// where's three forms by name (a number as the attribute `other` or `self`), a registry-only
// default (im2col's dilation, padding and stride), and repeat_interleave's count as a
// number or a tensor.
TEST(Schema, SelectionAndWindowRows) {
  Tensor x = rnd({2, 3}), cond = plain({2, 3}).gt(0);
  Tensor by_other = ops::call("where", {cond, x}, {{"other", 2.0}})[0];
  EXPECT_TRUE(by_other.equal(nabla::where(cond, x, 2.0)));
  EXPECT_STREQ(by_other.grad_fn()->name().c_str(), "WhereBackward0");
  Tensor by_self = ops::call("where", {cond, x}, {{"self", -1.0}})[0];
  EXPECT_TRUE(by_self.equal(nabla::where(cond, -1.0, x)));
  Tensor image = rnd({1, 2, 4, 4});
  Tensor cols = ops::call("im2col", {image}, {{"kernel_size", std::vector<int64_t>{2, 2}}})[0];
  EXPECT_TRUE(cols.equal(nabla::im2col(image, {2, 2}, {1, 1}, {0, 0}, {1, 1})));
  EXPECT_EQ(cols.sizes(), (std::vector<int64_t>{1, 8, 9}));
  Tensor counts = nabla::tensor({1, 0, 2}, nabla::kLong);
  Tensor by_tensor = ops::call("repeat_interleave", {x, counts}, {{"dim", int64_t(1)}})[0];
  EXPECT_TRUE(by_tensor.equal(x.index_select(1, nabla::tensor({0, 2, 2}, nabla::kLong))));
  EXPECT_TRUE(ops::call("isclose", {x, x + 1e-9}, {{"atol", 1e-8}})[0].all().item<bool>());
}

// OPT_TENSOR rows take `const optional<Tensor>&` as LibTorch does (nullopt spells an
// absent one); by name and in a traced graph, an absent input before a present one is an
// undefined input.
TEST(Schema, OptionalTensorRows) {
  Tensor x = rnd({2, 4}), tail = rnd({2, 1});
  Tensor direct = x.diff(1, -1, nabla::nullopt, tail);
  EXPECT_TRUE(direct.equal(nabla::diff(nabla::cat({x, tail}, 1))));
  EXPECT_TRUE(ops::call("diff", {x, Tensor(), tail})[0].equal(direct));
  graph::Graph g = graph::trace(
      [](const std::vector<Tensor>& in) {
        return in[0].diff(1, -1, nabla::nullopt, in[1]) + in[0].clamp(nabla::nullopt, in[1]).sum();
      },
      {x, tail});
  Tensor want = direct + x.clamp(nabla::nullopt, tail).sum();
  EXPECT_TRUE(g.forward(g.outputs()[0]).allclose(want));
  Tensor lo = rnd({2, 1});
  EXPECT_STREQ(ops::call("clamp", {x, lo})[0].grad_fn()->name().c_str(), "ClampBackward0");
  EXPECT_STREQ(ops::call("clamp", {x}, {{"min", -0.5}})[0].grad_fn()->name().c_str(),
               "ClampBackward1");
  Tensor values = nabla::tensor({0, 2, 2}, nabla::kLong);
  Tensor weights = nabla::tensor({0.5, 1.0, 2.0}, nabla::kDouble);
  Tensor counts = ops::call("bincount", {values, weights}, {{"minlength", int64_t(4)}})[0];
  EXPECT_TRUE(counts.equal(nabla::tensor({0.5, 0.0, 3.0, 0.0}, nabla::kDouble)));
}

TEST(Schema, InplaceRowsHaveInplaceForms) {
  Tensor x = plain({4, 3});
  Tensor y = x.clone();
  const Tensor& r = nabla::hardtanh_(y, -0.2, 0.3);
  EXPECT_TRUE(r.is_same(y));
  EXPECT_TRUE(y.equal(nabla::hardtanh(x, -0.2, 0.3)));
  Tensor leaf = x.clone().requires_grad_();
  expect_error([&] { nabla::celu_(leaf); }, {"celu_", "leaf"});
  Tensor z = leaf * 1;
  nabla::celu_(z, 2.0);
  z.sum().backward();
  Tensor ref = x.clone().requires_grad_();
  nabla::celu(ref, 2.0).sum().backward();
  EXPECT_TRUE(leaf.grad().allclose(ref.grad()));
  // A method row's in-place form is a method too.
  Tensor dst = nabla::zeros({4, 3}, nabla::kDouble), src = plain({2, 3});
  Tensor index = nabla::tensor({3, 0}, nabla::kLong);
  dst.index_copy_(0, index, src);
  EXPECT_TRUE(dst.equal(nabla::zeros({4, 3}, nabla::kDouble).index_copy(0, index, src)));
  Tensor m = plain({3, 3}), upper = m.clone();
  upper.triu_(1);
  EXPECT_TRUE(upper.equal(m.triu(1)));
  EXPECT_TRUE(upper.equal(nabla::triu(m, 1)));
}

// The binary ops by rows (core/op_list/binary.def): a tensor or a Scalar `other`, alpha,
// `_out` forms for every overload, in-place forms writing into self's own storage
// (INPLACE_IMPL: add_, mul_) or through the function (INPLACE: eq_, bitwise_and_), and
// the number base of pow(2, x) as the attribute `self`.
template <class... A>
concept HasLogicalXorOut = requires(A&&... a) {
  logical_xor_out(a...);
};

TEST(Schema, BinaryRows) {
  Tensor a = plain({2, 3}), b = plain({2, 3}).flip({1});
  EXPECT_TRUE(nabla::add(a, b, 2).equal(a + 2 * b));
  EXPECT_TRUE(a.sub(1.5, 2).equal(a - 3));
  EXPECT_TRUE(ops::call("add", {a}, {{"other", 1.0}, {"alpha", 3.0}})[0].equal(a + 3));
  EXPECT_STREQ(nabla::mul(a.requires_grad_(), 2).grad_fn()->name().c_str(), "MulBackward1");
  a.requires_grad_(false);
  Tensor out = nabla::empty({0}, nabla::kDouble);
  nabla::sub_outf(a, 1.0, 2, out);  // the Scalar overload's `_outf`, out last
  EXPECT_TRUE(out.equal(a - 2));
  Tensor bools = nabla::empty({0}, nabla::kBool);
  static_assert(HasLogicalXorOut<Tensor&, const Tensor&, const Tensor&>);
  nabla::logical_xor_out(bools, a.gt(0), b.gt(0));
  EXPECT_TRUE(bools.equal(a.gt(0).logical_xor(b.gt(0))));
  // In place with a kernel of its own: the same storage, one version bump.
  Tensor y = a.clone();
  const void* data = y.data_ptr();
  const auto version = y._version();
  y.add_(b, -1).mul_(2);
  EXPECT_EQ(y.data_ptr(), data);
  EXPECT_EQ(y._version(), version + 2);
  EXPECT_TRUE(y.equal((a - b) * 2));
  // Through the function: a comparison's 0/1 in self's dtype; bitwise with a number.
  Tensor c = a.clone();
  c.ge_(b);
  EXPECT_TRUE(c.equal(a.ge(b).to(nabla::kDouble)));
  Tensor bits = nabla::tensor({5, 6, 7}, nabla::kLong);
  bits.bitwise_and_(3);
  EXPECT_TRUE(bits.equal(nabla::tensor({1, 2, 3}, nabla::kLong)));
  EXPECT_TRUE((nabla::tensor({1, 2}, nabla::kLong) ^ 3).equal(nabla::tensor({2, 1}, nabla::kLong)));
  // pow(2, x): recorded with the base as an attribute, and called so by name.
  graph::Graph g = graph::trace(
      [](const std::vector<Tensor>& in) { return nabla::pow(2, in[0]) + in[0].abs().pow(in[0]); },
      {a});
  g.set_value(g.inputs()[0], a);
  EXPECT_TRUE(g.forward(g.outputs()[0]).allclose(nabla::pow(2, a) + a.abs().pow(a)));
  EXPECT_TRUE(ops::call("pow", {a}, {{"self", 2.0}})[0].allclose(nabla::exp2(a)));
  graph::Graph h;
  graph::Value x = h.input("x");
  graph::Value z = graph::add(x, graph::mul(x, 3.0), 0.5);
  h.set_value(x, a);
  EXPECT_TRUE(h.forward(z).allclose(a + 1.5 * a));
}

// The factories by rows (nabla/ops/schema/factories.def): TensorOptions last in C++, the
// attribute `dtype` by name; arange's start and step default by name; a factory called
// while tracing is a constant of the graph.
TEST(Schema, FactoryRows) {
  using nabla::kDouble;
  using nabla::kLong;
  auto by_name = [](const char* op, const ops::Attributes& attrs) {
    return ops::call(op, {}, attrs).at(0);
  };
  EXPECT_TRUE(by_name("arange", {{"end", int64_t(5)}, {"step", int64_t(2)}})
                  .equal(nabla::tensor({0, 2, 4}, kLong)));
  Tensor halves = by_name("arange", {{"start", 1.0}, {"end", 2.0}, {"step", 0.5}});
  EXPECT_EQ(halves.scalar_type(), nabla::get_default_dtype());
  EXPECT_TRUE(halves.equal(nabla::arange(1.0, 2.0, 0.5)));
  EXPECT_TRUE(by_name("full", {{"size", std::vector<int64_t>{2}}, {"fill_value", int64_t(3)}})
                  .equal(nabla::full({2}, 3)));
  EXPECT_EQ(nabla::full({2}, 3).scalar_type(), kLong);
  Tensor eye = by_name("eye", {{"n", int64_t(2)}, {"m", int64_t(3)}, {"dtype", kDouble}});
  EXPECT_TRUE(eye.equal(nabla::eye(2, 3, kDouble)));
  EXPECT_TRUE(by_name("logspace", {{"start", 0.0}, {"end", 2.0}, {"steps", int64_t(3)}})
                  .allclose(nabla::tensor({1.0f, 10.0f, 100.0f})));
  EXPECT_TRUE(nabla::zeros({2}, nabla::TensorOptions(kDouble).requires_grad(true)).requires_grad());
  // Traced: ones(...) is a constant, the add its only node.
  graph::Graph g =
      graph::trace([](const std::vector<Tensor>& in) { return in[0] + nabla::ones({3}, kDouble); },
                   {plain({3})});
  EXPECT_EQ(g.outputs().at(0).op(), "add");
  Tensor x = plain({3});
  g.set_value(g.inputs()[0], x);
  EXPECT_TRUE(g.forward(g.outputs()[0]).equal(x + 1));
  // The *_like rows are traced (the input's layout only) and have graph builders.
  graph::Graph h = graph::trace(
      [](const std::vector<Tensor>& in) { return nabla::full_like(in[0], 2, nabla::kLong); },
      {plain({2, 2})});
  EXPECT_EQ(h.outputs().at(0).op(), "full_like");
  h.set_value(h.inputs()[0], plain({3}));
  EXPECT_TRUE(h.forward(h.outputs()[0]).equal(nabla::full({3}, 2)));
  expect_error(
      [] {
        graph::trace(
            [](const std::vector<Tensor>& in) {
              return nabla::zeros_like(in[0], {}, nabla::MemoryFormat::ChannelsLast);
            },
            {plain({1, 2, 3, 3})});
      },
      {"zeros_like", "memory_format other than Preserve"});
  graph::Graph k;
  graph::Value v = k.input("v");
  graph::Value ones = graph::ones_like(v, kDouble);
  k.set_value(v, nabla::zeros({2}, nabla::kFloat));
  EXPECT_TRUE(k.forward(ones).equal(nabla::ones({2}, kDouble)));
  expect_error([&] { graph::ones_like(v, {}, nabla::MemoryFormat::ChannelsLast); },
               {"graph::ones_like", "memory_format"});
}

}  // namespace
