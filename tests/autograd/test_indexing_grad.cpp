// Gradients of the indexing ops: gradcheck / gradgradcheck in float64, node names as in
// LibTorch 1.13, accumulation over repeated indices, in-place variants.
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

TEST(IndexingGrad, NodeNamesAsLibTorch) {
  Tensor x = rnd({3, 4}), v = rnd({3, 4});
  Tensor idx = longs({0, 2, 2});
  Tensor mask = x.detach() > 0;
  Tensor gi = longs({0, 1, 2, 0}).reshape({2, 2});
  EXPECT_EQ(name_of(x.index({idx})), "IndexBackward0");
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
  EXPECT_EQ(name_of(x.index(std::vector<optional<Tensor>>{nullopt, idx})), "IndexBackward0");
  EXPECT_EQ(name_of(x[idx]), "IndexBackward0");
  EXPECT_EQ(name_of(x.index_put({idx}, v.index({Slice(0, 1)}))), "IndexPutBackward0");
  EXPECT_EQ(name_of(x.index_put({idx}, v.index({Slice(0, 1)}), true)), "IndexPutBackward0");
  EXPECT_EQ(name_of(index_put(x, {idx}, v.index({Slice(0, 1)}))), "IndexPutBackward0");
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
  EXPECT_EQ(name_of(x.index_select(1, idx)), "IndexSelectBackward0");
  EXPECT_EQ(name_of(index_select(x, -1, idx.to(kInt))), "IndexSelectBackward0");
  EXPECT_EQ(name_of(x.gather(0, gi)), "GatherBackward0");
  EXPECT_EQ(name_of(gather(x, 0, gi)), "GatherBackward0");
  EXPECT_EQ(name_of(x.scatter(0, gi, v)), "ScatterBackward0");
  EXPECT_EQ(name_of(x.scatter(0, gi, 2.0)), "ScatterBackward1");
  EXPECT_EQ(name_of(x.scatter_add(0, gi, v)), "ScatterAddBackward0");
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
  EXPECT_EQ(name_of(x.masked_fill(mask, 1.0)), "MaskedFillBackward0");
  EXPECT_EQ(name_of(x.masked_fill(mask, val)), "MaskedFillBackward1");
  EXPECT_EQ(name_of(x.masked_fill(mask, scalar_tensor(3.0, kDouble))), "MaskedFillBackward1");
  EXPECT_EQ(name_of(x.detach().masked_fill(mask, val)), "MaskedFillBackward1");
  EXPECT_EQ(name_of(rnd({4}).masked_fill(mask, 1.0)), "MaskedFillBackward0");
  {
    Tensor a = x * 1, b = x * 1;
    a.masked_fill_(mask, 1.0);
    b.masked_fill_(mask, val);
    EXPECT_EQ(name_of(a), "MaskedFillBackward0");
    EXPECT_EQ(name_of(b), "MaskedFillBackward1");
  }
  EXPECT_EQ(name_of(x.masked_select(mask)), "MaskedSelectBackward0");
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

// Note [Gradients of repeated indices]: every read of a position adds to its gradient.
TEST(IndexingGrad, RepeatedIndicesAccumulate) {
  Tensor x = tensor(std::vector<double>{1, 2, 3, 4}, kDouble).requires_grad_();
  Tensor idx = longs({0, 0, 3, 0});
  Tensor w = tensor(std::vector<double>{1, 10, 100, 1000}, kDouble);
  x.index({idx}).backward(w);
  EXPECT_EQ(values(x.grad()), (std::vector<double>{1011, 0, 0, 100}));

  Tensor y = x.detach().clone().requires_grad_();
  y.index_select(0, idx).backward(w);
  EXPECT_EQ(values(y.grad()), (std::vector<double>{1011, 0, 0, 100}));

  Tensor z = x.detach().clone().requires_grad_();
  z.gather(0, idx).backward(w);
  EXPECT_EQ(values(z.grad()), (std::vector<double>{1011, 0, 0, 100}));

  // scatter_add: src positions writing the same target each get that target's gradient.
  Tensor src = tensor(std::vector<double>{1, 2, 3, 4}, kDouble).requires_grad_();
  Tensor base = zeros({4}, kDouble).requires_grad_();
  base.scatter_add(0, idx, src).backward(w);
  EXPECT_EQ(values(src.grad()), (std::vector<double>{1, 1, 1000, 1}));
  EXPECT_EQ(values(base.grad()), values(w));

  // index_put with accumulate: same for values; self keeps its whole gradient.
  Tensor vals = tensor(std::vector<double>{1, 2, 3, 4}, kDouble).requires_grad_();
  Tensor s = zeros({4}, kDouble).requires_grad_();
  s.index_put({idx}, vals, /*accumulate=*/true).backward(w);
  EXPECT_EQ(values(vals.grad()), (std::vector<double>{1, 1, 1000, 1}));
  EXPECT_EQ(values(s.grad()), values(w));

  // Without accumulation, self loses the gradient of every written position.
  Tensor s2 = zeros({4}, kDouble).requires_grad_();
  s2.index_put({longs({1, 3})}, zeros({2}, kDouble)).backward(w);
  EXPECT_EQ(values(s2.grad()), (std::vector<double>{1, 0, 100, 0}));

  auto gi = [&](const variable_list& in) { return in[0].index({idx}); };
  check_grads(gi, {rnd({4})}, "index with duplicates");
  auto gg = [&](const variable_list& in) {
    return in[0].gather(1, longs({2, 2, 0, 1, 1, 1}).reshape({2, 3}));
  };
  check_grads(gg, {rnd({2, 3})}, "gather with duplicates");
}

TEST(IndexingGrad, AdvancedIndexGradcheck) {
  manual_seed(3);
  Tensor x = rnd({3, 4, 5});
  Tensor i0 = longs({2, 0, -1, 2}), i1 = longs({1, 3, 3, 0}).reshape({4, 1});
  check_grads([&](const variable_list& in) { return in[0].index({i0}); }, {x}, "one index");
  check_grads([&](const variable_list& in) { return in[0].index({i0, i1}); }, {x}, "broadcast");
  check_grads(
      [&](const variable_list& in) {
        return in[0].index({Slice(), longs({3, 1, 3})});
      },
      {x}, "slice then tensor");
  check_grads(
      [&](const variable_list& in) {
        return in[0].index({i0.reshape({2, 2}), Slice(), longs({4, 0})});
      },
      {x}, "non-adjacent");
  check_grads(
      [&](const variable_list& in) {
        return in[0].index(std::vector<optional<Tensor>>{nullopt, longs({0, 0}), longs({1, 1})});
      },
      {x}, "index list with a whole dim");
  Tensor mask = mask_of({1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1}, {3, 4});
  check_grads([&](const variable_list& in) { return in[0].index({mask}); }, {x}, "mask");
  check_grads(
      [&](const variable_list& in) {
        return in[0].index({"...", longs({4, 4, 1})});
      },
      {x}, "ellipsis then tensor");
  check_grads([&](const variable_list& in) { return in[0].index({"..."}); }, {x}, "alias");
  // Non-contiguous input.
  Tensor xt = rnd({5, 3});
  check_grads(
      [&](const variable_list& in) {
        return in[0].t().index({longs({1, 1, 2}), longs({0, 4, 0})});
      },
      {xt}, "transposed");
  // An empty index gives an empty result and a zero gradient.
  check_grads([&](const variable_list& in) { return in[0].index({longs({})}); }, {x},
              "empty index");
  Tensor g = autograd::grad({x.index({longs({})}).sum()}, {x})[0];
  EXPECT_EQ(g.sizes(), x.sizes());
  EXPECT_EQ(g.abs().sum().item<double>(), 0.0);
}

TEST(IndexingGrad, BasicIndexGradsThroughViews) {
  // Ints, slices and None are views (their nodes come from views.cpp); combined with an
  // index tensor the last step is IndexBackward0.
  Tensor x = rnd({3, 4, 5});
  check_grads(
      [&](const variable_list& in) {
        return in[0].index({1, Slice(0, 4, 2), longs({0, 4})});
      },
      {x}, "int slice tensor");
  check_grads(
      [&](const variable_list& in) {
        return in[0].index({None, Slice(1), -1});
      },
      {x}, "None slice int");
  check_grads(
      [&](const variable_list& in) {
        return in[0].index({true, longs({2, 0})});
      },
      {x}, "bool then tensor");
  Tensor y = x.index({Slice(1), longs({0})});
  EXPECT_EQ(name_of(y), "IndexBackward0");
}

TEST(IndexingGrad, IndexPutGradcheck) {
  manual_seed(4);
  Tensor x = rnd({4, 3});
  Tensor idx = longs({3, 0, 3, 1});
  // Accumulating writes: duplicates fine. Values broadcast along rows.
  check_grads([&](const variable_list& in) { return in[0].index_put({idx}, in[1], true); },
              {x, rnd({4, 3})}, "accumulate");
  check_grads([&](const variable_list& in) { return in[0].index_put({idx}, in[1], true); },
              {x, rnd({3})}, "accumulate broadcast row");
  check_grads([&](const variable_list& in) { return in[0].index_put({idx}, in[1], true); },
              {x, rnd({4, 1})}, "accumulate broadcast column");
  // Overwriting writes need unique indices (Note [Gradients of repeated indices]).
  Tensor uniq = longs({2, 0});
  check_grads([&](const variable_list& in) { return in[0].index_put({uniq}, in[1]); },
              {x, rnd({2, 3})}, "overwrite");
  check_grads(
      [&](const variable_list& in) {
        return in[0].index_put({uniq, longs({1, 1})}, in[1]);
      },
      {x, rnd({})}, "overwrite 0-d value");
  Tensor mask = mask_of({1, 0, 0, 1}, {4});
  check_grads([&](const variable_list& in) { return in[0].index_put({mask}, in[1]); },
              {x, rnd({2, 3})}, "mask");
  // Only values (self a constant), only self.
  Tensor c = rand({4, 3}, kDouble);
  check_grads([&](const variable_list& in) { return c.index_put({uniq}, in[0]); }, {rnd({3})},
              "values only");
  check_grads(
      [&](const variable_list& in) { return in[0].index_put({uniq}, c.index({Slice(0, 2)})); }, {x},
      "self only");
  // Transposed self.
  check_grads(
      [&](const variable_list& in) {
        return in[0].t().index_put({longs({2, 1})}, in[1]);
      },
      {x, rnd({2, 4})}, "transposed self");
}

TEST(IndexingGrad, IndexPutInPlace) {
  Tensor x = rnd({4, 3}), v = rnd({2, 3});
  Tensor uniq = longs({2, 0});
  auto f = [&](const variable_list& in) {
    Tensor y = in[0] * 1;
    y.index_put_(std::vector<optional<Tensor>>{uniq}, in[1]);
    return y;
  };
  check_grads(f, {x, v}, "index_put_ vector");
  auto facc = [&](const variable_list& in) {
    Tensor y = in[0] * 1;
    y.index_put_(std::vector<optional<Tensor>>{longs({1, 1, 3})}, in[1], true);
    return y;
  };
  check_grads(facc, {x, rnd({3, 3})}, "index_put_ accumulate");
  // A constant self takes the values' history.
  auto fconst = [&](const variable_list& in) {
    Tensor y = zeros({4, 3}, kDouble);
    y.index_put_(std::vector<optional<Tensor>>{uniq}, in[0]);
    return y;
  };
  check_grads(fconst, {v}, "index_put_ into constant");
  // A leaf that requires grad is refused.
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

TEST(IndexingGrad, IndexPutTensorIndexList) {
  manual_seed(5);
  Tensor x = rnd({3, 4}), v = rnd({3, 2}), v0 = rnd({});
  auto mixed = [&](const variable_list& in) {
    Tensor y = in[0] * 1;
    y.index_put_({Slice(), longs({3, 0})}, in[1]);
    return y;
  };
  check_grads(mixed, {x, v}, "slice + tensor");
  auto basic = [&](const variable_list& in) {
    Tensor y = in[0] * 1;
    y.index_put_({Slice(1, 3), Slice(0, 4, 2)}, in[1]);
    return y;
  };
  check_grads(basic, {x, rnd({2, 2})}, "slices");
  auto row = [&](const variable_list& in) {
    Tensor y = in[0] * 1;
    y.index_put_({-1}, in[1]);  // [1, 1] broadcast over the row
    return y;
  };
  check_grads(row, {x, rnd({1, 1})}, "int index, broadcast value");
  auto scalar = [&](const variable_list& in) {
    Tensor y = in[0] * 1;
    y.index_put_({"...", 2}, 7.5);
    return y;
  };
  check_grads(scalar, {x}, "scalar value");
  auto zero_d = [&](const variable_list& in) {
    Tensor y = in[0] * 1;
    y.index_put_({Slice(0, 2), longs({1, 3})}, in[1]);
    return y;
  };
  check_grads(zero_d, {x, v0}, "0-d value");
  auto masked = [&](const variable_list& in) {
    Tensor y = in[0] * 1;
    y.index_put_({in[0].detach() > 0}, in[1]);
    return y;
  };
  check_grads(masked, {x, v0}, "mask");
  // Values written and gradients, by hand.
  Tensor a = zeros({2, 3}, kDouble).requires_grad_(),
         b = tensor(std::vector<double>{5, 6}, kDouble).requires_grad_();
  Tensor y = a * 1;
  y.index_put_({Slice(), 1}, b);
  EXPECT_EQ(values(y), (std::vector<double>{0, 5, 0, 0, 6, 0}));
  EXPECT_EQ(name_of(y),
            "torch::autograd::CopySlices");  // written through the view y.index({Slice(), 1})
  y.backward(arange(6, kDouble).reshape({2, 3}));
  EXPECT_EQ(values(a.grad()), (std::vector<double>{0, 0, 2, 3, 0, 5}));
  EXPECT_EQ(values(b.grad()), (std::vector<double>{1, 4}));
  // Errors keep naming the op.
  Tensor z = x * 1;
  expect_error(
      [&] {
        z.index_put_({Slice(), longs({0, 1})}, rnd({4}));
      },
      {"index_put_", "shape mismatch"});
  expect_error([&] { z.index_put_({7}, 1.0); }, {"index", "out of bounds"});
}

TEST(IndexingGrad, IndexSelectGradcheck) {
  manual_seed(6);
  Tensor x = rnd({3, 4});
  Tensor idx = longs({3, 0, 3});
  check_grads([&](const variable_list& in) { return in[0].index_select(1, idx); }, {x}, "dim 1");
  check_grads(
      [&](const variable_list& in) {
        return in[0].index_select(-2, longs({2, 2}));
      },
      {x}, "dim -2");
  check_grads(
      [&](const variable_list& in) {
        return in[0].index_select(0, idx.to(kInt).index({Slice(1, 2)}));
      },
      {x}, "int32 index");
  check_grads([&](const variable_list& in) { return in[0].t().index_select(0, idx); }, {x},
              "transposed");
  check_grads([&](const variable_list& in) { return in[0].index_select(0, longs({})); }, {x},
              "empty index");
  check_grads([&](const variable_list& in) { return in[0].index_select(0, longs({0})); }, {rnd({})},
              "0-d");
  check_grads(
      [&](const variable_list& in) { return in[0].index_select(0, scalar_tensor(1, kLong)); }, {x},
      "0-d index");
}

TEST(IndexingGrad, GatherGradcheck) {
  manual_seed(7);
  Tensor x = rnd({3, 4});
  Tensor i0 = longs({2, 0, 1, 1, 0, 2}).reshape({2, 3});  // smaller than x outside dim 0
  check_grads([&](const variable_list& in) { return in[0].gather(0, i0); }, {x}, "dim 0");
  check_grads(
      [&](const variable_list& in) {
        return in[0].gather(-1, longs({3, 3, 0, 1, 2, 3, 0, 0}).reshape({2, 4}));
      },
      {x}, "dim -1");
  check_grads([&](const variable_list& in) { return in[0].t().gather(1, i0.t()); }, {x},
              "transposed");
  check_grads([&](const variable_list& in) { return in[0].gather(0, scalar_tensor(0, kLong)); },
              {rnd({})}, "0-d");
  check_grads(
      [&](const variable_list& in) {
        return in[0].gather(1, zeros({3, 0}, kLong));
      },
      {x}, "empty");
}

TEST(IndexingGrad, ScatterGradcheck) {
  manual_seed(8);
  Tensor x = rnd({3, 4});
  // Unique targets per column (a partial permutation), so overwrites are well defined.
  Tensor perm = longs({2, 0, 1, 1, 0, 2, 0, 2}).reshape({2, 4});
  check_grads([&](const variable_list& in) { return in[0].scatter(0, perm, in[1]); },
              {x, rnd({2, 4})}, "scatter");
  check_grads([&](const variable_list& in) { return in[0].scatter(0, perm, in[1]); },
              {x, rnd({3, 5})}, "scatter, src larger than index");
  check_grads([&](const variable_list& in) { return in[0].scatter(-2, perm, 1.5); }, {x},
              "scatter value");
  check_grads([&](const variable_list& in) { return in[0].t().scatter(1, perm.t(), in[1]); },
              {x, rnd({4, 2})}, "transposed");
  Tensor dup = longs({2, 2, 1, 1, 2, 2, 0, 2}).reshape({2, 4});
  check_grads([&](const variable_list& in) { return in[0].scatter_add(0, dup, in[1]); },
              {x, rnd({2, 4})}, "scatter_add duplicates");
  check_grads(
      [&](const variable_list& in) {
        return in[0].scatter_add(1, dup.index({Slice(), Slice(0, 3)}), in[1]);
      },
      {x, rnd({3, 4})}, "scatter_add src larger");
  // In place on a non-leaf.
  auto fs = [&](const variable_list& in) {
    Tensor y = in[0] * 1;
    y.scatter_(0, perm, in[1]);
    return y;
  };
  check_grads(fs, {x, rnd({2, 4})}, "scatter_");
  auto fv = [&](const variable_list& in) {
    Tensor y = in[0] * 1;
    y.scatter_(1, perm.index({Slice(), Slice(0, 2)}), -2.0);
    return y;
  };
  check_grads(fv, {x}, "scatter_ value");
  auto fa = [&](const variable_list& in) {
    Tensor y = in[0] * 1;
    y.scatter_add_(0, dup, in[1]);
    return y;
  };
  check_grads(fa, {x, rnd({2, 4})}, "scatter_add_");
  // Gradient of src where index is smaller: zero outside the index's extent.
  Tensor src = rnd({3, 5});
  x.detach().scatter(0, perm, src).backward(full({3, 4}, 2.0, kDouble));
  Tensor expected = zeros({3, 5}, kDouble);
  expected.index_put_({Slice(0, 2), Slice(0, 4)}, 2.0);
  EXPECT_EQ(values(src.grad()), values(expected));
  expect_error([&] { x.scatter_(0, perm, rnd({2, 4})); }, {"scatter_", "leaf"});
  expect_error([&] { x.scatter_add_(0, perm, rnd({2, 4})); }, {"scatter_add_", "leaf"});
  expect_error([&] { x.scatter_(0, perm, 1.0); }, {"scatter_", "leaf"});
}

TEST(IndexingGrad, MaskedFillGradcheck) {
  manual_seed(9);
  Tensor x = rnd({3, 4});
  Tensor mask = mask_of({1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1}, {3, 4});
  check_grads([&](const variable_list& in) { return in[0].masked_fill(mask, 2.0); }, {x}, "scalar");
  check_grads([&](const variable_list& in) { return in[0].masked_fill(mask, in[1]); }, {x, rnd({})},
              "tensor value");
  check_grads([&](const variable_list& in) { return in[0].masked_fill(mask.index({0}), in[1]); },
              {x, rnd({})}, "broadcast mask");
  check_grads([&](const variable_list& in) { return in[0].masked_fill(mask, 0.5); }, {rnd({4})},
              "broadcast self");
  check_grads([&](const variable_list& in) { return in[0].t().masked_fill(mask.t(), in[1]); },
              {x, rnd({})}, "transposed");
  check_grads([&](const variable_list& in) { return in[0].masked_fill(mask.to(kByte), 1.0); }, {x},
              "uint8 mask");
  // The value's gradient is the sum of g over the masked positions.
  Tensor val = scalar_tensor(3.0, kDouble).requires_grad_();
  Tensor w = arange(12, kDouble).reshape({3, 4});
  x.detach().masked_fill(mask, val).backward(w);
  EXPECT_EQ(val.grad().item<double>(), 0 + 2 + 3 + 6 + 8 + 9 + 11);
  // In place.
  auto fi = [&](const variable_list& in) {
    Tensor y = in[0] * 1;
    y.masked_fill_(mask, in[1]);
    return y;
  };
  check_grads(fi, {x, rnd({})}, "masked_fill_ tensor");
  auto fs = [&](const variable_list& in) {
    Tensor y = in[0] * 1;
    y.masked_fill_(mask.index({Slice(0, 1)}), 1.0);
    return y;
  };
  check_grads(fs, {x}, "masked_fill_ scalar broadcast mask");
  expect_error([&] { x.masked_fill_(mask, 1.0); }, {"masked_fill_", "leaf"});
  expect_error([&] { (x * 1).masked_fill_(mask, rnd({2})); }, {"masked_fill_", "0-dimensional"});
}

TEST(IndexingGrad, MaskedSelectGradcheck) {
  manual_seed(10);
  Tensor x = rnd({3, 4});
  Tensor mask = mask_of({1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1}, {3, 4});
  check_grads([&](const variable_list& in) { return in[0].masked_select(mask); }, {x},
              "same shape");
  check_grads([&](const variable_list& in) { return in[0].masked_select(mask); }, {rnd({4})},
              "broadcast self");
  check_grads([&](const variable_list& in) { return in[0].masked_select(mask.index({1})); }, {x},
              "broadcast mask");
  check_grads([&](const variable_list& in) { return in[0].t().masked_select(mask.t()); }, {x},
              "transposed");
  check_grads(
      [&](const variable_list& in) {
        return in[0].masked_select(zeros({3, 4}, kBool));
      },
      {x}, "empty");
  check_grads(
      [&](const variable_list& in) { return in[0].masked_select(scalar_tensor(true, kBool)); },
      {rnd({})}, "0-d");
  // Broadcast self: each element collects the gradient of every selected copy.
  Tensor r = rnd({4});
  r.masked_select(mask).backward(ones({7}, kDouble));
  EXPECT_EQ(values(r.grad()), (std::vector<double>{2, 1, 2, 2}));
}

// In-place indexing ops on a view reach the base's history (Note [Views and in-place]).
TEST(IndexingGrad, InPlaceThroughViews) {
  manual_seed(11);
  Tensor x = rnd({3, 4});
  Tensor mask = mask_of({1, 0, 0, 1}, {4});
  auto row = [&](const variable_list& in) {
    Tensor y = in[0] * 1;
    y.select(0, 1).masked_fill_(mask, in[1]);
    return y;
  };
  check_grads(row, {x, rnd({})}, "masked_fill_ on a row");
  auto alias = [&](const variable_list& in) {
    Tensor y = in[0] * 1;
    y.index({"..."}).scatter_(1, longs({3, 0, 2, 1, 1, 0}).reshape({3, 2}), in[1]);
    return y;
  };
  check_grads(alias, {x, rnd({3, 2})}, "scatter_ on an alias");
  auto col = [&](const variable_list& in) {
    Tensor y = in[0] * 1;
    y.index({Slice(), 2}).index_put_(std::vector<optional<Tensor>>{longs({0, 0, 2})}, in[1], true);
    return y;
  };
  check_grads(col, {x, rnd({3})}, "index_put_ on a column");
  Tensor y = x * 1;
  y.index({"..."}).masked_fill_(x.detach() > 0, 0.0);
  EXPECT_EQ(name_of(y), "torch::autograd::CopySlices");
  // A view of a leaf that requires grad is refused, and so is a view made under no_grad
  // of a tensor that requires grad, written with grad on (even without recording).
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
