// Indexing: TensorIndex lists (views vs copies), index_put_, index_select, gather/scatter,
// masks and nonzero, with every error path.
#include "test_util.h"

using namespace nabla;
using namespace nabla::indexing;
using nabla::testing::expect_error;
using nabla::testing::shape;
using nabla::testing::values;

namespace {
using V = std::vector<double>;
using S = std::vector<int64_t>;

Tensor longs(std::vector<int64_t> v, IntArrayRef sizes) { return tensor(v).view(sizes).clone(); }
bool same_storage(const Tensor& a, const Tensor& b) {
  return a.impl()->storage() == b.impl()->storage();
}
}  // namespace

// ---- basic indexing: views -------------------------------------------------------------

TEST(Indexing, ColumnSelectIsAViewSharingVersion) {
  Tensor x = arange(6, kFloat).view({2, 3});
  Tensor col = x.index({Slice(), 0});
  EXPECT_EQ(shape(col), S{2});
  EXPECT_TRUE(same_storage(col, x));
  EXPECT_EQ(values(col), (V{0, 3}));
  uint32_t before = x._version();
  col.fill_(7);
  EXPECT_EQ(values(x), (V{7, 1, 2, 7, 4, 5}));
  EXPECT_GT(x._version(), before);
  EXPECT_EQ(x._version(), col._version());
  col.mul_(2);  // every in-place write through the view bumps the shared counter
  EXPECT_EQ(x._version(), col._version());
  EXPECT_EQ(values(x.index({Slice(), 0})), (V{14, 14}));
}

TEST(Indexing, SlicesNoneEllipsisIntegers) {
  Tensor x = arange(24).view({2, 3, 4});
  EXPECT_EQ(values(x.index({1, Slice(None, None, 2), -1})), (V{15, 23}));
  EXPECT_EQ(values(x.index({Slice(-1), 2})), (V{20, 21, 22, 23}));
  EXPECT_EQ(shape(x.index({Slice(-1), 2})), (S{1, 4}));
  EXPECT_EQ(shape(x.index({None, Ellipsis, None})), (S{1, 2, 3, 4, 1}));
  EXPECT_EQ(shape(x.index({"...", 1})), (S{2, 3}));
  EXPECT_EQ(values(x.index({"...", 1})), values(x.select(2, 1)));
  EXPECT_EQ(shape(x.index({0, None, Slice(1, 3)})), (S{1, 2, 4}));
  EXPECT_EQ(values(x.index({Ellipsis, Slice(1, None, 2)}).index({1, 2})), (V{21, 23}));
  Tensor v = x.index({Slice(1, 2), Slice(0, 3, 2), Slice(None, 10)});
  EXPECT_TRUE(same_storage(v, x));
  EXPECT_EQ(shape(v), (S{1, 2, 4}));
  EXPECT_EQ(v.strides().vec(), (S{12, 8, 1}));
  // Out-of-range slice bounds clamp, as in Python.
  EXPECT_EQ(shape(x.index({Slice(5, 9)})), (S{0, 3, 4}));
  // No indices at all: a fresh alias.
  Tensor a = x.index(ArrayRef<TensorIndex>{});
  EXPECT_FALSE(a.is_same(x));
  EXPECT_TRUE(same_storage(a, x));
  // 0-d tensors accept None and Ellipsis.
  Tensor s = scalar_tensor(3.5);
  EXPECT_EQ(shape(s.index({None})), S{1});
  EXPECT_EQ(shape(s.index({Ellipsis})), S{});
  EXPECT_EQ(s.index({"..."}).item<double>(), 3.5);
}

TEST(Indexing, ZeroDimIntegerTensorSelectsAView) {
  Tensor x = arange(6, kFloat).view({2, 3});
  Tensor r = x.index({tensor(int64_t(1))});
  EXPECT_EQ(shape(r), S{3});
  EXPECT_TRUE(same_storage(r, x));
  EXPECT_EQ(values(r), (V{3, 4, 5}));
}

TEST(Indexing, BooleanIndices) {
  Tensor x = arange(6, kFloat).view({2, 3});
  EXPECT_EQ(shape(x.index({true})), (S{1, 2, 3}));
  EXPECT_EQ(shape(x.index({false})), (S{0, 2, 3}));
  EXPECT_EQ(shape(x.index({tensor(true)})), (S{1, 2, 3}));
  EXPECT_EQ(shape(x.index({Slice(), false})), (S{2, 0, 3}));
  EXPECT_EQ(values(x.index({true, 1})), (V{3, 4, 5}));
}

// ---- advanced indexing: copies --------------------------------------------------------------

TEST(Indexing, SingleIndexTensor) {
  Tensor x = arange(12, kFloat).view({3, 4});
  Tensor r = x.index({longs({2, 0, -1}, {3})});
  EXPECT_EQ(shape(r), (S{3, 4}));
  EXPECT_FALSE(same_storage(r, x));
  EXPECT_EQ(values(r), (V{8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11}));
  EXPECT_EQ(values(x.index({Slice(), longs({3, 1}, {2})})), (V{3, 1, 7, 5, 11, 9}));
  EXPECT_EQ(values(x[longs({1}, {1})]), (V{4, 5, 6, 7}));
  // A 2-d index tensor puts its shape where the indexed dim was.
  Tensor r2 = x.index({Slice(), longs({0, 1, 2, 3}, {2, 2})});
  EXPECT_EQ(shape(r2), (S{3, 2, 2}));
  EXPECT_EQ(values(r2.index({2})), (V{8, 9, 10, 11}));
  // Writing the copy leaves x alone.
  r.fill_(-1);
  EXPECT_EQ(x.index({0, 0}).item<float>(), 0);
}

TEST(Indexing, SeveralIndexTensorsBroadcast) {
  Tensor x = arange(24).view({2, 3, 4});
  // Adjacent advanced indices: result dims replace them in place.
  Tensor r = x.index({Slice(), longs({0, 2}, {2}), longs({1, 3}, {2})});
  EXPECT_EQ(shape(r), (S{2, 2}));
  EXPECT_EQ(values(r), (V{1, 11, 13, 23}));
  // Broadcast [2, 1] with [3] to [2, 3].
  Tensor b = x.index({1, longs({0, 2}, {2, 1}), longs({0, 1, 3}, {3})});
  EXPECT_EQ(shape(b), (S{2, 3}));
  EXPECT_EQ(values(b), (V{12, 13, 15, 20, 21, 23}));
  // Separated by a slice: the index dims go first (PyTorch's rule).
  Tensor s = x.index({longs({0, 1}, {2}), Slice(), longs({0, 3}, {2})});
  EXPECT_EQ(shape(s), (S{2, 3}));
  EXPECT_EQ(values(s), (V{0, 4, 8, 15, 19, 23}));
  // Separated by an integer (which selects first): still adjacent in the view.
  Tensor i = x.index({longs({0, 1}, {2}), 0, longs({1, 2}, {2})});
  EXPECT_EQ(shape(i), S{2});
  EXPECT_EQ(values(i), (V{1, 14}));
  // None between index tensors: the new dim stays after the index dims.
  EXPECT_EQ(shape(x.index({longs({0, 1}, {2}), None, longs({0, 1}, {2})})), (S{2, 1, 4}));
  // 0-d index tensors in the list form broadcast to a 0-d result.
  Tensor z = x.index(std::vector<optional<Tensor>>{tensor(int64_t(1)), tensor(int64_t(2))});
  EXPECT_EQ(shape(z), (S{4}));
  EXPECT_EQ(values(z), (V{20, 21, 22, 23}));
}

TEST(Indexing, MasksAndNonContiguousInput) {
  Tensor x = arange(6, kFloat).view({2, 3});
  Tensor m = tensor({true, false, true});
  EXPECT_EQ(values(x.index({Slice(), m})), (V{0, 2, 3, 5}));
  Tensor m2 = x.gt(2);
  EXPECT_EQ(values(x.index({m2})), (V{3, 4, 5}));
  EXPECT_EQ(values(x[m2]), (V{3, 4, 5}));
  EXPECT_EQ(values(x.index({m2.to(kByte)})), (V{3, 4, 5}));
  // A mask covering the first two dims of a 3-d tensor, followed by an integer.
  Tensor y = arange(24).view({2, 3, 4});
  Tensor r = y.index({y.index({Slice(), Slice(), 0}).lt(9), 1});
  EXPECT_EQ(values(r), (V{1, 5, 9}));
  // Transposed input.
  Tensor t = x.t();  // [[0, 3], [1, 4], [2, 5]]
  EXPECT_EQ(values(t.index({longs({2, 0}, {2})})), (V{2, 5, 0, 3}));
  EXPECT_EQ(values(t.index({longs({2, 0}, {2}), longs({1, 0}, {2})})), (V{5, 0}));
  EXPECT_EQ(values(t.index({t.ge(3)})), (V{3, 4, 5}));
  // Empty index tensors and zero-size dims.
  Tensor e = x.index({Slice(), empty({0}, kLong)});
  EXPECT_EQ(shape(e), (S{2, 0}));
  EXPECT_EQ(shape(empty({0, 3}).index({Slice(), longs({1}, {1})})), (S{0, 1}));
  EXPECT_EQ(shape(x.index({zeros({2, 3}, kBool)})), S{0});
}

TEST(Indexing, IndexTensorListForm) {
  Tensor x = arange(6, kFloat).view({2, 3});
  Tensor r = x.index(std::vector<optional<Tensor>>{nullopt, longs({2, 2}, {2})});
  EXPECT_EQ(values(r), (V{2, 2, 5, 5}));
  Tensor all = x.index(std::vector<optional<Tensor>>{nullopt});
  EXPECT_FALSE(same_storage(all, x));
  EXPECT_EQ(values(all), values(x));
}

// ---- index_put_ ----------------------------------------------------------------------------

TEST(IndexPut, BasicIndicesWriteThroughTheView) {
  Tensor x = zeros({2, 3});
  uint32_t v0 = x._version();
  x.index_put_({Slice(), 1}, 5);
  EXPECT_EQ(values(x), (V{0, 5, 0, 0, 5, 0}));
  EXPECT_GT(x._version(), v0);
  x.index_put_({0}, tensor({1, 2, 3}));  // int64 value converted, like copy_
  EXPECT_EQ(values(x), (V{1, 2, 3, 0, 5, 0}));
  x.index_put_({1}, ones({1, 1, 3}).mul(4));  // leading 1s dropped
  EXPECT_EQ(values(x.index({1})), (V{4, 4, 4}));
  x.index_put_({Ellipsis, Slice(None, None, 2)}, tensor(9.0));  // 0-d value fills
  EXPECT_EQ(values(x), (V{9, 2, 9, 9, 4, 9}));
  x.index_put_({Slice(), 1}, tensor({7.0, 8.0}));
  EXPECT_EQ(values(x), (V{9, 7, 9, 9, 8, 9}));
  // A value overlapping the destination reads the old data.
  Tensor y = arange(4, kFloat);
  y.index_put_({Slice(1, None)}, y.index({Slice(None, 3)}));
  EXPECT_EQ(values(y), (V{0, 0, 1, 2}));
}

TEST(IndexPut, AdvancedIndices) {
  Tensor x = zeros({3, 4});
  x.index_put_({longs({0, 2}, {2}), longs({1, 3}, {2})}, tensor({1.0f, 2.0f}));
  EXPECT_EQ(values(x), (V{0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}));
  x.index_put_({x.gt(0)}, -1);
  EXPECT_EQ(values(x), (V{0, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1}));
  x.index_put_({Slice(), longs({-1}, {1})}, 3);  // negative indices wrap
  EXPECT_EQ(values(x.index({Slice(), 3})), (V{3, 3, 3}));
  x.index_put_({longs({1}, {1})}, tensor(6.0f));  // 0-d value broadcasts
  EXPECT_EQ(values(x.index({1})), (V{6, 6, 6, 6}));
  // Non-adjacent indices with a slice between them: value laid out as the result is.
  Tensor y = zeros({2, 2, 2});
  y.index_put_({longs({0, 1}, {2}), Slice(), longs({1, 0}, {2})},
               tensor({1.0f, 2.0f, 3.0f, 4.0f}).view({2, 2}));
  EXPECT_EQ(values(y), (V{0, 1, 0, 2, 3, 0, 4, 0}));
}

TEST(IndexPut, AccumulateAndOutOfPlace) {
  Tensor x = zeros({3});
  Tensor idx = longs({0, 0, 2, 0}, {4});
  Tensor r = x.index_put({idx}, ones({4}), /*accumulate=*/true);
  EXPECT_EQ(values(r), (V{3, 0, 1}));
  EXPECT_EQ(values(x), (V{0, 0, 0}));  // out-of-place form leaves x alone
  uint32_t v0 = x._version();
  x.index_put_({idx}, tensor({1.0f, 2.0f, 3.0f, 4.0f}), true);
  EXPECT_EQ(values(x), (V{7, 0, 3}));
  EXPECT_GT(x._version(), v0);
  x.index_put_({idx}, tensor({1.0f, 2.0f, 3.0f, 4.0f}));  // without accumulate, last write wins
  EXPECT_EQ(values(x), (V{4, 0, 3}));
  EXPECT_EQ(values(index_put(x, {longs({1}, {1})}, tensor({5.0f}))), (V{4, 5, 3}));
  // Non-contiguous destination whose indexed dims cannot be flattened in place.
  Tensor base = zeros({3, 2});
  Tensor t = base.t();  // [2, 3], strides [1, 2]
  t.index_put_({longs({1, 0}, {2}), longs({2, 0}, {2})}, tensor({5.0f, 6.0f}), true);
  EXPECT_EQ(values(base), (V{6, 0, 0, 0, 0, 5}));
  // Empty index writes nothing.
  x.index_put_({empty({0}, kLong)}, tensor(1.0f));
  EXPECT_EQ(values(x), (V{4, 0, 3}));
}

// ---- index_select / gather / scatter ------------------------------------------------------

TEST(IndexSelect, Values) {
  Tensor x = arange(12, kFloat).view({3, 4});
  EXPECT_EQ(values(x.index_select(0, longs({2, 0}, {2}))), (V{8, 9, 10, 11, 0, 1, 2, 3}));
  EXPECT_EQ(values(index_select(x, -1, longs({3, 3, 0}, {3}))), (V{3, 3, 0, 7, 7, 4, 11, 11, 8}));
  EXPECT_EQ(values(x.index_select(1, tensor({1}).to(kInt))), (V{1, 5, 9}));
  EXPECT_EQ(shape(x.index_select(0, tensor(int64_t(1)))), (S{1, 4}));
  EXPECT_EQ(shape(x.index_select(1, empty({0}, kLong))), (S{3, 0}));
  Tensor t = x.t();  // non-contiguous input
  EXPECT_EQ(values(t.index_select(1, longs({2}, {1}))), (V{8, 9, 10, 11}));
  EXPECT_EQ(values(t.index_select(0, longs({1}, {1}))), (V{1, 5, 9}));
  Tensor s = scalar_tensor(2.5);
  EXPECT_EQ(shape(s.index_select(0, longs({0}, {1}))), S{});
  EXPECT_EQ(s.index_select(0, longs({0}, {1})).item<double>(), 2.5);
  EXPECT_EQ(values(ones({2, 3}, kBool).index_select(1, longs({0}, {1}))), (V{1, 1}));
}

TEST(GatherScatter, GatherValues) {
  Tensor x = arange(6, kFloat).view({2, 3});
  Tensor g = x.gather(1, longs({2, 0, 1, 1}, {2, 2}));
  EXPECT_EQ(values(g), (V{2, 0, 4, 4}));
  EXPECT_EQ(values(gather(x, 0, longs({1, 0, 1}, {1, 3}))), (V{3, 1, 5}));
  EXPECT_EQ(values(x.t().gather(0, longs({2, 0}, {1, 2}))), (V{2, 3}));  // non-contiguous self
  // The index may be smaller than self in every dim.
  EXPECT_EQ(values(x.gather(-1, longs({1}, {1, 1}))), V{1});
  Tensor s = scalar_tensor(4.0);
  EXPECT_EQ(s.gather(0, tensor(int64_t(0))).item<double>(), 4.0);
  EXPECT_EQ(shape(x.gather(0, empty({0, 3}, kLong))), (S{0, 3}));
}

TEST(GatherScatter, RoundTrip) {
  // A permutation along dim 1: scatter(gather(x)) with the same index rebuilds x.
  Tensor x = arange(12, kDouble).view({3, 4}).mul(1.5);
  Tensor idx = longs({3, 1, 0, 2, 0, 1, 2, 3, 2, 3, 1, 0}, {3, 4});
  Tensor g = x.gather(1, idx);
  Tensor back = zeros({3, 4}, kDouble).scatter(1, idx, g);
  EXPECT_TRUE(back.equal(x));
  // The same through the transposed (non-contiguous) views along dim 0.
  Tensor gt = x.t().gather(0, idx.t());
  EXPECT_TRUE(zeros({4, 3}, kDouble).scatter(0, idx.t(), gt).equal(x.t()));
}

TEST(GatherScatter, ScatterFormsAndVersions) {
  Tensor x = zeros({2, 3});
  Tensor idx = longs({1, 0, 1}, {1, 3});
  Tensor r = x.scatter(0, idx, tensor({1.0f, 2.0f, 3.0f}).view({1, 3}));
  EXPECT_EQ(values(r), (V{0, 2, 0, 1, 0, 3}));
  EXPECT_EQ(values(x), (V{0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(values(scatter(x, 0, idx, 7)), (V{0, 7, 0, 7, 0, 7}));
  uint32_t v0 = x._version();
  x.scatter_(1, longs({2, 2}, {2, 1}), -1.5);
  EXPECT_EQ(values(x), (V{0, 0, -1.5, 0, 0, -1.5}));
  EXPECT_GT(x._version(), v0);
  uint32_t v1 = x._version();
  x.scatter_(1, longs({0}, {1, 1}), ones({1, 1}));
  EXPECT_EQ(values(x), (V{1, 0, -1.5, 0, 0, -1.5}));
  EXPECT_GT(x._version(), v1);
  // scatter_add sums duplicates; src may be larger than the index.
  Tensor acc = zeros({3}, kLong);
  acc.scatter_add_(0, longs({0, 2, 0, 0}, {4}), tensor({1, 2, 3, 4, 100}));
  EXPECT_EQ(values(acc), (V{8, 0, 2}));
  EXPECT_EQ(values(scatter_add(zeros({2, 2}), 1, longs({1, 1, 0, 0}, {2, 2}), ones({2, 2}))),
            (V{0, 2, 2, 0}));
  EXPECT_EQ(values(ones({2}, kBool).scatter_add(0, longs({0}, {1}), zeros({1}, kBool))), (V{1, 1}));
  // src aliasing self reads the old values.
  Tensor y = arange(3, kFloat);
  y.scatter_(0, longs({1, 2, 0}, {3}), y);
  EXPECT_EQ(values(y), (V{2, 0, 1}));
  Tensor s = scalar_tensor(1.0);
  s.scatter_(0, tensor(int64_t(0)), scalar_tensor(5.0));
  EXPECT_EQ(s.item<double>(), 5.0);
}

// ---- masks and nonzero ---------------------------------------------------------------------

TEST(Masks, MaskedSelect) {
  Tensor x = arange(6, kFloat).view({2, 3});
  EXPECT_EQ(values(x.masked_select(x.remainder(2).eq(0))), (V{0, 2, 4}));
  EXPECT_EQ(values(masked_select(x, tensor({false, true, true}))),
            (V{1, 2, 4, 5}));  // mask broadcast
  EXPECT_EQ(values(tensor({1.0f, 2.0f, 3.0f}).masked_select(tensor({true, false}).view({2, 1}))),
            (V{1, 2, 3}));  // self broadcast
  EXPECT_EQ(values(x.t().masked_select(x.t().gt(2))), (V{3, 4, 5}));
  EXPECT_EQ(shape(scalar_tensor(1.0).masked_select(tensor(true))), S{1});
  EXPECT_EQ(shape(x.masked_select(zeros({2, 3}, kBool))), S{0});
}

TEST(Masks, MaskedFill) {
  Tensor x = arange(6, kFloat).view({2, 3});
  Tensor m = tensor({true, false, true});
  EXPECT_EQ(values(x.masked_fill(m, -1)), (V{-1, 1, -1, -1, 4, -1}));
  EXPECT_EQ(values(masked_fill(x, m, 2.5)), (V{2.5, 1, 2.5, 2.5, 4, 2.5}));
  EXPECT_EQ(values(x.masked_fill(m, tensor(9.0))), (V{9, 1, 9, 9, 4, 9}));
  EXPECT_EQ(values(x), (V{0, 1, 2, 3, 4, 5}));
  // Out of place, self broadcasts against the mask.
  Tensor b = tensor({1.0f, 2.0f, 3.0f}).masked_fill(tensor({true, false}).view({2, 1}), 0);
  EXPECT_EQ(shape(b), (S{2, 3}));
  EXPECT_EQ(values(b), (V{0, 0, 0, 1, 2, 3}));
  // Integer self: the value is converted to its dtype.
  Tensor i = ones({3}, kLong).masked_fill(m, 2.7);
  EXPECT_EQ(i.scalar_type(), kLong);
  EXPECT_EQ(values(i), (V{2, 1, 2}));
  // In place, through a non-contiguous view, bumping the version.
  uint32_t v0 = x._version();
  x.t().masked_fill_(x.t().gt(3), 0);
  EXPECT_EQ(values(x), (V{0, 1, 2, 3, 0, 0}));
  EXPECT_GT(x._version(), v0);
  uint32_t v1 = x._version();
  x.masked_fill_(m.to(kByte), tensor(5));
  EXPECT_EQ(values(x), (V{5, 1, 5, 5, 0, 5}));
  EXPECT_GT(x._version(), v1);
  Tensor s = scalar_tensor(1.0);
  s.masked_fill_(tensor(true), 3);
  EXPECT_EQ(s.item<double>(), 3.0);
}

TEST(Masks, Nonzero) {
  Tensor x = tensor({0.0f, 1.5f, 0.0f, -2.0f, 0.0f, 3.0f}).view({2, 3});
  Tensor nz = x.nonzero();
  EXPECT_EQ(nz.scalar_type(), kLong);
  EXPECT_EQ(shape(nz), (S{3, 2}));
  EXPECT_EQ(values(nz), (V{0, 1, 1, 0, 1, 2}));
  EXPECT_EQ(values(nonzero(x.t())), (V{0, 1, 1, 0, 2, 1}));
  EXPECT_EQ(shape(nonzero(scalar_tensor(2.0))), (S{1, 0}));
  EXPECT_EQ(shape(nonzero(scalar_tensor(0.0))), (S{0, 0}));
  EXPECT_EQ(shape(nonzero(empty({0, 4}))), (S{0, 2}));
  EXPECT_EQ(values(nonzero(tensor({true, false, true}))), (V{0, 2}));
}

// ---- errors ------------------------------------------------------------------------------------

TEST(IndexingErrors, TensorIndexLists) {
  Tensor x = arange(6, kFloat).view({2, 3});
  expect_error([&] { x.index({5}); },
               {"index", "index 5 is out of bounds for dimension 0 with size 2"});
  expect_error(
      [&] {
        x.index({0, -4});
      },
      {"index -4 is out of bounds for dimension 0 with size 3"});
  expect_error(
      [&] {
        x.index({0, 0, 0});
      },
      {"index", "too many indices for tensor of dimension 2"});
  expect_error([&] { x.index({Slice(), Slice(), None, Slice()}); }, {"too many indices"});
  expect_error([&] { x.index({Ellipsis, "..."}); }, {"index", "single ellipsis"});
  expect_error([&] { x.index({Slice(None, None, 0)}); }, {"index", "slice step cannot be zero"});
  expect_error([&] { x.index({Slice(None, None, -1)}); },
               {"index", "step must be greater than zero"});
  expect_error([&] { TensorIndex bad("..x"); }, {"index", "\"...\"", "..x"});
  expect_error([&] { scalar_tensor(1.0).index({Slice()}); }, {"index", "too many indices"});
  expect_error([&] { scalar_tensor(1.0).index({0}); },
               {"too many indices for tensor of dimension 0"});
  expect_error([&] { x.index({Tensor()}); }, {"index", "undefined"});
}

TEST(IndexingErrors, AdvancedIndices) {
  Tensor x = arange(6, kFloat).view({2, 3});
  expect_error([&] { x.index({longs({5}, {1})}); },
               {"index", "index 5 is out of bounds for dimension 0 with size 2"});
  expect_error(
      [&] {
        x.index({Slice(), longs({-4}, {1})});
      },
      {"index -4 is out of bounds for dimension 1 with size 3"});
  expect_error([&] { x.index({tensor({0.0f})}); }, {"index", "must be long, byte or bool"});
  expect_error([&] { x.index({tensor({0}).to(kInt)}); }, {"must be long, byte or bool", "Int"});
  expect_error(
      [&] {
        x.index({longs({0, 1}, {2}), longs({0, 1, 2}, {3})});
      },
      {"index", "shape mismatch", "[2], [3]"});
  expect_error(
      [&] {
        x.index({tensor({true, false, true})});
      },
      {"index", "shape of the mask [3] at index 0 does not match", "[2, 3]"});
  expect_error([&] { x.index({ones({2, 2}, kBool)}); }, {"mask [2, 2] at index 1"});
  expect_error(
      [&] {
        empty({2, 0}).index({Slice(), longs({0}, {1})});
      },
      {"index 0 is out of bounds for dimension 1 with size 0"});
  expect_error(
      [&] {
        x.index(std::vector<optional<Tensor>>{nullopt, nullopt, longs({0}, {1})});
      },
      {"index", "too many indices for tensor of dimension 2 (got 3)"});
  expect_error([&] { x.index(std::vector<optional<Tensor>>{tensor(true)}); }, {"index", "0-dim"});
}

TEST(IndexingErrors, IndexPut) {
  Tensor x = zeros({2, 3});
  expect_error([&] { x.index_put_({longs({0}, {1})}, ones({3}, kDouble)); },
               {"index_put_", "dtypes match", "Float", "Double"});
  expect_error([&] { x.index_put_({longs({0}, {1})}, ones({2})); },
               {"index_put_", "shape mismatch", "[2]", "[1, 3]"});
  expect_error([&] { x.index_put_({0}, ones({2, 3})); }, {"index_put_", "[2, 3]", "[3]"});
  expect_error([&] { x.index_put_({longs({3}, {1})}, 1); },
               {"index 3 is out of bounds for dimension 0 with size 2"});
  expect_error([&] { x.index_put_({longs({0}, {1})}, Tensor()); }, {"index_put_", "undefined"});
  expect_error([&] { x.index_put_(std::vector<optional<Tensor>>{}, ones({4})); },
               {"index_put_", "shape mismatch"});
  EXPECT_EQ(values(x), (V{0, 0, 0, 0, 0, 0}));  // failed writes leave x untouched
}

TEST(IndexingErrors, IndexSelectGatherScatter) {
  Tensor x = arange(6, kFloat).view({2, 3});
  expect_error([&] { x.index_select(0, longs({5}, {1})); },
               {"index_select", "index 5 is out of bounds for dimension 0 with size 2"});
  expect_error([&] { x.index_select(0, longs({-1}, {1})); },
               {"index_select", "index -1 is out of bounds"});
  expect_error([&] { x.index_select(0, tensor({0.5})); }, {"index_select", "int32 or int64"});
  expect_error([&] { x.index_select(0, longs({0}, {1, 1})); }, {"index_select", "vector"});
  expect_error([&] { x.index_select(2, longs({0}, {1})); },
               {"index_select", "dimension out of range"});
  expect_error(
      [&] {
        scalar_tensor(1.0).index_select(0, longs({0, 0}, {2}));
      },
      {"index_select", "only 1 value"});
  expect_error(
      [&] {
        x.gather(0, longs({5}, {1, 1}));
      },
      {"gather", "index 5 is out of bounds for dimension 0 with size 2"});
  expect_error([&] { x.gather(0, longs({-1}, {1, 1})); }, {"gather", "index -1 is out of bounds"});
  expect_error([&] { x.gather(0, tensor({0}).to(kInt).view({1, 1})); }, {"gather", "int64"});
  expect_error([&] { x.gather(0, longs({0}, {1})); }, {"gather", "same number of dimensions"});
  expect_error(
      [&] {
        x.gather(1, zeros({3, 1}, kLong));
      },
      {"gather", "[3, 1]", "smaller than self [2, 3]", "dimension 1"});
  expect_error([&] { x.gather(3, zeros({1, 1}, kLong)); }, {"gather", "dimension out of range"});
  expect_error(
      [&] {
        x.scatter(0, longs({5}, {1, 1}), ones({1, 1}));
      },
      {"scatter", "index 5 is out of bounds for dimension 0 with size 2"});
  expect_error(
      [&] {
        x.scatter(0, longs({0}, {1, 1}), ones({1, 1}, kDouble));
      },
      {"scatter", "self.dtype to be equal to src.dtype"});
  expect_error(
      [&] {
        x.scatter(0, longs({0, 1}, {1, 2}), ones({1, 1}));
      },
      {"scatter", "smaller size than src [1, 1]"});
  expect_error(
      [&] {
        x.scatter(0, zeros({1, 4}, kLong), 2.5);
      },
      {"scatter", "[1, 4]", "smaller than self"});
  expect_error(
      [&] {
        x.scatter_add_(0, zeros({1, 1}, kLong), ones({1}));
      },
      {"scatter_add_", "src tensor"});
  expect_error(
      [&] {
        x.scatter_add(0, zeros({1, 1}, kInt), ones({1, 1}));
      },
      {"scatter_add", "int64"});
  EXPECT_EQ(values(x), (V{0, 1, 2, 3, 4, 5}));
}

TEST(IndexingErrors, Masks) {
  Tensor x = ones({3});
  expect_error([&] { x.masked_select(ones({3}, kLong)); }, {"masked_select", "mask", "Long"});
  expect_error([&] { x.masked_select(ones({2}, kBool)); }, {"masked_select", "[3]", "[2]"});
  expect_error([&] { x.masked_fill(ones({3}, kFloat), 1); }, {"masked_fill", "mask", "Float"});
  expect_error([&] { x.masked_fill(ones({3}, kBool), ones({1})); },
               {"masked_fill", "0-dimensional value tensor", "1 dimension(s)"});
  expect_error(
      [&] {
        x.masked_fill_(ones({2, 3}, kBool), 1);
      },
      {"masked_fill_", "output with shape [3] doesn't match the broadcast shape [2, 3]"});
  expect_error([&] { x.masked_fill_(ones({3}, kBool), Tensor()); }, {"masked_fill_", "undefined"});
  expect_error([&] { Tensor().nonzero(); }, {"nonzero"});
}
