// Gradients of the indexing ops, what the op table (table_shape_index.cpp: values, first
// and second derivatives in float64 against LibTorch and finite differences, node names of
// ops called by name) cannot say: the nodes of TensorIndex forms and in-place writes,
// nothing recorded without grad, gradients where LibTorch 1.13 fails (src larger than the
// index), only one input requiring grad, and the refused writes.
#include <nabla/autograd/autograd.h>
#include <nabla/autograd/gradcheck.h>

#include "test_util.h"

using namespace nabla;
using namespace nabla::indexing;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::variable_list;
using nabla::testing::expect_error;
using nabla::testing::name_of;
using nabla::testing::rnd;
using nabla::testing::values;

namespace {

Tensor longs(std::initializer_list<int64_t> v) { return tensor(std::vector<int64_t>(v), kLong); }
Tensor mask_of(std::initializer_list<int64_t> v, IntArrayRef shape) {
  return longs(v).to(kBool).reshape(shape);
}

// gradcheck and gradgradcheck of a function of one or two inputs.
template <class F>
void check_grads(F f, const variable_list& inputs, const char* what) {
  auto fn = [&](const variable_list& in) { return variable_list{f(in)}; };
  EXPECT_NO_THROW(gradcheck(fn, inputs)) << what;
  EXPECT_NO_THROW(gradgradcheck(fn, inputs)) << what;
}

}  // namespace

// Node names the table does not compare: TensorIndex forms and in-place writes (not called
// by name there), and an input other than self requiring grad.
TEST(IndexingGrad, NodeNamesAsLibTorch) {
  Tensor x = rnd({3, 4}), v = rnd({3, 4});
  Tensor idx = longs({0, 2, 2});
  Tensor mask = x.detach() > 0;
  Tensor gi = longs({0, 1, 2, 0}).reshape({2, 2});
  EXPECT_EQ(name_of(x.index({Slice(), idx})), "IndexBackward0");
  EXPECT_EQ(name_of(x.index({mask})), "IndexBackward0");
  EXPECT_EQ(name_of(x.index({"..."})), "AliasBackward0");
  // Basic indices are view ops (views.cpp); a boolean scalar adds an index tensor.
  EXPECT_EQ(name_of(x.index({0})), "SelectBackward0");
  EXPECT_EQ(name_of(x.index({Slice()})), "SliceBackward0");
  EXPECT_EQ(name_of(x.index({Slice(1)})), "SliceBackward0");
  EXPECT_EQ(name_of(x.index({None})), "UnsqueezeBackward0");
  EXPECT_EQ(name_of(x.index({true})), "IndexBackward0");
  EXPECT_EQ(name_of(x.index({false})), "IndexBackward0");
  EXPECT_EQ(name_of(x.index({Slice(1), longs({0})})), "IndexBackward0");
  EXPECT_EQ(name_of(x.index(std::vector<optional<Tensor>>{nullopt, idx})), "IndexBackward0");
  EXPECT_EQ(name_of(x[idx]), "IndexBackward0");
  {
    Tensor y = x * 1;
    y.index_put_(std::vector<optional<Tensor>>{idx}, v.index({Slice(0, 1)}));
    EXPECT_EQ(name_of(y), "IndexPutBackward0");
  }
  {
    // Index tensors only: self is written directly. With basic indices the write goes
    // through a view of self, whose history becomes CopySlices (as in LibTorch).
    Tensor a = x * 1, b = x * 1, c = x * 1, d = x * 1;
    a.index_put_({idx}, v.index({0, 0}));
    b.index_put_({Slice(), 1}, 5.0);
    c.index_put_({Slice(), 1}, v.index({0, Slice(0, 3)}));
    d.index_put_({Slice(), idx.clamp_max(3)}, 2.0);
    EXPECT_EQ(name_of(a), "IndexPutBackward0");
    EXPECT_EQ(name_of(b), "torch::autograd::CopySlices");
    EXPECT_EQ(name_of(c), "torch::autograd::CopySlices");
    EXPECT_EQ(name_of(d), "torch::autograd::CopySlices");
  }
  EXPECT_EQ(name_of(index_select(x, -1, idx.to(kInt))), "IndexSelectBackward0");
  {
    Tensor a = x * 1, b = x * 1, c = x * 1;
    a.scatter_(0, gi, v);
    b.scatter_(0, gi, 1.0);
    c.scatter_add_(0, gi, v);
    EXPECT_EQ(name_of(a), "ScatterBackward0");
    EXPECT_EQ(name_of(b), "ScatterBackward1");
    EXPECT_EQ(name_of(c), "ScatterAddBackward0");
  }
  Tensor val = scalar_tensor(3.0, kDouble).requires_grad_();
  EXPECT_EQ(name_of(x.detach().masked_fill(mask, val)), "MaskedFillBackward1");
  EXPECT_EQ(name_of(rnd({4}).masked_fill(mask, 1.0)), "MaskedFillBackward0");
  {
    Tensor a = x * 1, b = x * 1;
    a.masked_fill_(mask, 1.0);
    b.masked_fill_(mask, val);
    EXPECT_EQ(name_of(a), "MaskedFillBackward0");
    EXPECT_EQ(name_of(b), "MaskedFillBackward1");
  }
  EXPECT_EQ(name_of(x.nonzero()), "none");
  EXPECT_FALSE(x.nonzero().requires_grad());
}

TEST(IndexingGrad, NothingRecordedWithoutGrad) {
  Tensor x = rand({3, 4}, kDouble), idx = longs({0, 2});
  EXPECT_EQ(name_of(x.index({idx})), "none");
  EXPECT_EQ(name_of(x.gather(0, longs({0, 1}).reshape({1, 2}))), "none");
  EXPECT_EQ(name_of(x.masked_fill(x > 0.5, 1.0)), "none");
  Tensor w = rnd({3, 4});
  NoGradGuard guard;
  EXPECT_EQ(name_of(w.index({idx})), "none");
  EXPECT_EQ(name_of(w.index_put({idx}, zeros({4}, kDouble))), "none");
  EXPECT_EQ(name_of(w.masked_select(w > 0)), "none");
  EXPECT_FALSE(w.index_select(0, idx).requires_grad());
}

// Only the values or only self requiring grad (the table differentiates every floating
// input at once); a constant self takes the values' history in place.
TEST(IndexingGrad, IndexPutOneInputRequiringGrad) {
  Tensor x = rnd({4, 3});
  Tensor uniq = longs({2, 0});
  Tensor c = rand({4, 3}, kDouble);
  check_grads([&](const variable_list& in) { return c.index_put({uniq}, in[0]); }, {rnd({3})},
              "values only");
  check_grads(
      [&](const variable_list& in) { return in[0].index_put({uniq}, c.index({Slice(0, 2)})); }, {x},
      "self only");
  auto fconst = [&](const variable_list& in) {
    Tensor y = zeros({4, 3}, kDouble);
    y.index_put_(std::vector<optional<Tensor>>{uniq}, in[0]);
    return y;
  };
  check_grads(fconst, {rnd({2, 3})}, "index_put_ into constant");
}

TEST(IndexingGrad, IndexPutRefusedOnALeaf) {
  Tensor x = rnd({4, 3}), v = rnd({2, 3});
  Tensor uniq = longs({2, 0});
  expect_error([&] { x.index_put_(std::vector<optional<Tensor>>{uniq}, v); },
               {"index_put_", "leaf"});
  // Through a view of the leaf, the write (copy_ / fill_) is refused the same way.
  expect_error([&] { x.index_put_({Slice(0, 2)}, v); }, {"leaf"});
  expect_error([&] { x.index_put_({0}, 1.0); }, {"leaf"});
  expect_error([&] { x.index_put_({Slice(), longs({0})}, 1.0); }, {"index_put_", "leaf"});
  // Under no_grad the leaf may be written.
  {
    NoGradGuard guard;
    x.index_put_({0}, 5.0);
  }
  EXPECT_EQ(x.detach().index({0, 1}).item<double>(), 5.0);
}

// src larger than the index: LibTorch 1.13's ScatterBackward0 and ScatterAddBackward0 return
// src's gradient in the index's shape and fail; nabla's is zero outside the index's extent.
TEST(IndexingGrad, ScatterSrcLargerThanIndex) {
  manual_seed(8);
  Tensor x = rnd({3, 4});
  Tensor perm = longs({2, 0, 1, 1, 0, 2, 0, 2}).reshape({2, 4});
  check_grads([&](const variable_list& in) { return in[0].scatter(0, perm, in[1]); },
              {x, rnd({3, 5})}, "scatter, src larger than index");
  Tensor dup = longs({2, 2, 1, 1, 2, 2, 0, 2}).reshape({2, 4});
  check_grads(
      [&](const variable_list& in) {
        return in[0].scatter_add(1, dup.index({Slice(), Slice(0, 3)}), in[1]);
      },
      {x, rnd({3, 4})}, "scatter_add src larger");
  Tensor src = rnd({3, 5});
  x.detach().scatter(0, perm, src).backward(full({3, 4}, 2.0, kDouble));
  Tensor expected = zeros({3, 5}, kDouble);
  expected.index_put_({Slice(0, 2), Slice(0, 4)}, 2.0);
  EXPECT_EQ(values(src.grad()), values(expected));
  expect_error([&] { x.scatter_(0, perm, rnd({2, 4})); }, {"scatter_", "leaf"});
  expect_error([&] { x.scatter_add_(0, perm, rnd({2, 4})); }, {"scatter_add_", "leaf"});
  expect_error([&] { x.scatter_(0, perm, 1.0); }, {"scatter_", "leaf"});
}

// uint8 masks (LibTorch warns on every call, too noisy for the table); masked_fill_ refused
// on a leaf.
TEST(IndexingGrad, MaskedFillUint8MaskAndLeaf) {
  Tensor x = rnd({3, 4});
  Tensor mask = mask_of({1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1}, {3, 4});
  check_grads([&](const variable_list& in) { return in[0].masked_fill(mask.to(kByte), 1.0); }, {x},
              "uint8 mask");
  expect_error([&] { x.masked_fill_(mask, 1.0); }, {"masked_fill_", "leaf"});
}

// In-place indexing ops on a view reach the base's history (Note [Views and in-place]); a
// view of a leaf that requires grad is refused, and so is a view made under no_grad of a
// tensor that requires grad, written with grad on (even without recording).
TEST(IndexingGrad, InPlaceThroughViews) {
  Tensor x = rnd({3, 4});
  Tensor mask = mask_of({1, 0, 0, 1}, {4});
  Tensor y = x * 1;
  y.index({"..."}).masked_fill_(x.detach() > 0, 0.0);
  EXPECT_EQ(name_of(y), "torch::autograd::CopySlices");
  expect_error([&] { x.index({"..."}).masked_fill_(mask, 1.0); }, {"masked_fill_", "leaf"});
  Tensor nv;
  {
    NoGradGuard guard;
    nv = y.index({"..."});
  }
  expect_error([&] { nv.masked_fill_(x.detach() > 0, 1.0); }, {"masked_fill_", "no_grad"});
  expect_error([&] { nv.scatter_(0, longs({0}).reshape({1, 1}), 1.0); }, {"scatter_", "no_grad"});
  expect_error(
      [&] { nv.index_put_(std::vector<optional<Tensor>>{longs({0})}, zeros({4}, kDouble)); },
      {"index_put_", "no_grad"});
}

// An in-place composite on a tensor without grad whose operand requires grad (LibTorch's
// `out.index_add_(0, i, w)`): self takes the op's history, and w gets its gradient.
TEST(IndexingGrad, InPlaceIntoTensorWithoutGrad) {
  Tensor w = rnd({2, 3});
  Tensor out = zeros({4, 3}, kDouble);
  out.index_add_(0, longs({3, 1}), w, 2.0);
  EXPECT_EQ(name_of(out), "IndexAddBackward0");
  out.sum().backward();
  EXPECT_TRUE(w.grad().equal(full({2, 3}, 2.0, kDouble)));
  Tensor a = rnd({3}), b = rnd({3}).detach();
  Tensor acc = zeros({3}, kDouble);
  acc.addcmul_(a, b, 0.5);
  EXPECT_EQ(name_of(acc), "AddcmulBackward0");
  acc.sum().backward();
  EXPECT_TRUE(a.grad().allclose(b * 0.5));
}
