#include <cmath>

#include "test_util.h"

using namespace nabla;
using nabla::testing::expect_error;
using nabla::testing::shape;
using nabla::testing::values;

TEST(Views, ViewSharesStorageAndVersion) {
  Tensor x = arange(6, kFloat);
  Tensor v = x.view({2, 3});
  EXPECT_EQ(v.data_ptr(), x.data_ptr());
  uint32_t before = x._version();
  v.select(0, 1).fill_(9);  // write through a view of a view
  EXPECT_EQ(values(x), (std::vector<double>{0, 1, 2, 9, 9, 9}));
  EXPECT_GT(x._version(), before);
  EXPECT_EQ(x._version(), v._version());
  Tensor c = x.clone();
  c.add_(1);
  EXPECT_NE(c._version(), 0u);
  EXPECT_EQ(values(x)[0], 0);  // clones do not alias
  EXPECT_NE(c.data_ptr(), x.data_ptr());
}

TEST(Views, TransposePermuteAreViews) {
  Tensor x = arange(6, kFloat).view({2, 3});
  Tensor t = x.t();
  EXPECT_EQ(shape(t), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(t.strides().vec(), (std::vector<int64_t>{1, 3}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(values(t), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(t.data_ptr(), x.data_ptr());
  Tensor p = arange(24).view({2, 3, 4}).permute({2, 0, 1});
  EXPECT_EQ(shape(p), (std::vector<int64_t>{4, 2, 3}));
  EXPECT_EQ(p.index({1, 1, 2}).item<int64_t>(), 1 * 12 + 2 * 4 + 1);
  EXPECT_EQ(values(x.transpose(-1, 0)), values(t));
  EXPECT_TRUE(t.contiguous().is_contiguous());
  EXPECT_EQ(values(t.contiguous()), values(t));
  expect_error([&] { x.permute({0, 0}); }, {"permute", "repeated"});
  expect_error([&] { x.permute({0}); }, {"permute"});
  expect_error([&] { x.transpose(0, 2); }, {"transpose", "out of range"});
  expect_error([&] { arange(8).view({2, 2, 2}).t(); }, {"t", "<= 2"});
}

TEST(Views, ViewVersusReshape) {
  Tensor x = arange(6, kFloat).view({2, 3});
  Tensor t = x.t();
  expect_error([&] { t.view({6}); }, {"view", "reshape"});
  Tensor r = t.reshape({6});
  EXPECT_NE(r.data_ptr(), x.data_ptr());  // needed a copy
  EXPECT_EQ(values(r), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  Tensor r2 = x.reshape({3, -1});
  EXPECT_EQ(r2.data_ptr(), x.data_ptr());  // a view when possible
  EXPECT_EQ(shape(r2), (std::vector<int64_t>{3, 2}));
  expect_error([&] { x.view({-1, -1}); }, {"view", "one dimension"});
  expect_error([&] { x.view({4, -1}); }, {"invalid for input of size 6"});
  // A sliced tensor whose rows are still contiguous can be viewed.
  Tensor big = arange(24).view({4, 6});
  Tensor rows = big.narrow(0, 1, 2);
  EXPECT_EQ(rows.view({12}).data_ptr(), rows.data_ptr());
  EXPECT_EQ(zeros({0, 3}).view({3, 0, 5}).numel(), 0);
  expect_error([] { zeros({0, 3}).view({3, 0, -1}); }, {"view", "invalid for input of size 0"});
  Tensor s = tensor(5.0);  // a 0-d tensor views as any all-ones shape
  EXPECT_EQ(shape(s.view({1, 1})), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(s.view({1, 1}).data_ptr(), s.data_ptr());
  EXPECT_EQ(s.view({}).dim(), 0);
}

TEST(Views, NarrowSelectSlice) {
  Tensor x = arange(12).view({3, 4});
  EXPECT_EQ(values(x.narrow(1, 1, 2)), (std::vector<double>{1, 2, 5, 6, 9, 10}));
  EXPECT_EQ(values(x.select(0, -1)), (std::vector<double>{8, 9, 10, 11}));
  EXPECT_EQ(values(x.slice(1, 0, nullopt, 2)), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(values(x.slice(0, -2)), (std::vector<double>{4, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(x.slice(0, 5, 10).numel(), 0);  // clamps like Python slicing
  EXPECT_EQ(values(x[1]), (std::vector<double>{4, 5, 6, 7}));
  EXPECT_EQ(x[1][2].item<int64_t>(), 6);
  expect_error([&] { x.select(0, 3); }, {"select", "index 3", "out of range"});
  expect_error([&] { x.narrow(1, 3, 2); }, {"narrow", "exceeds"});
  expect_error([&] { x.slice(0, 0, 2, 0); }, {"slice", "step"});
  expect_error([&] { tensor(1.0).select(0, 0); }, {"select", "0-dim"});
}

TEST(Views, ExpandSqueezeUnsqueeze) {
  Tensor x = tensor({1.0, 2.0, 3.0});
  Tensor e = x.expand({2, 3});
  EXPECT_EQ(e.strides().vec(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(values(e), (std::vector<double>{1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(shape(x.unsqueeze(1).expand({3, 4})), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(shape(x.unsqueeze(1).expand({-1, 2})), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(shape(x.expand_as(zeros({5, 3}))), (std::vector<int64_t>{5, 3}));
  EXPECT_EQ(shape(x.broadcast_to({1, 3})), (std::vector<int64_t>{1, 3}));
  expect_error([&] { x.expand({2, 4}); }, {"expand", "must match the existing size (3)"});
  expect_error([&] { x.expand({}); }, {"expand"});
  Tensor y = zeros({1, 3, 1, 2});
  EXPECT_EQ(shape(y.squeeze()), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(shape(y.squeeze(2)), (std::vector<int64_t>{1, 3, 2}));
  EXPECT_EQ(shape(y.squeeze(1)), (std::vector<int64_t>{1, 3, 1, 2}));
  EXPECT_EQ(shape(y.unsqueeze(-1)), (std::vector<int64_t>{1, 3, 1, 2, 1}));
  EXPECT_EQ(shape(tensor(1.0).unsqueeze(0)), (std::vector<int64_t>{1}));
  Tensor z = zeros({2, 1});
  z.squeeze_();
  EXPECT_EQ(shape(z), (std::vector<int64_t>{2}));
  z.unsqueeze_(0);
  EXPECT_EQ(shape(z), (std::vector<int64_t>{1, 2}));
  expect_error([&] { y.unsqueeze(6); }, {"unsqueeze", "out of range"});
}

TEST(Views, FlattenUnflattenAsStridedDiagonal) {
  Tensor x = arange(24).view({2, 3, 4});
  EXPECT_EQ(shape(x.flatten()), (std::vector<int64_t>{24}));
  EXPECT_EQ(shape(x.flatten(1)), (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(shape(x.flatten(0, 1)), (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(shape(tensor(3.0).flatten()), (std::vector<int64_t>{1}));
  EXPECT_EQ(shape(x.unflatten(2, {2, 2})), (std::vector<int64_t>{2, 3, 2, 2}));
  EXPECT_EQ(shape(x.unflatten(-1, {-1, 2})), (std::vector<int64_t>{2, 3, 2, 2}));
  expect_error([&] { x.flatten(2, 1); }, {"flatten"});
  Tensor a = arange(9, kFloat);
  Tensor s = a.as_strided({2, 2}, {3, 1}, 1);
  EXPECT_EQ(values(s), (std::vector<double>{1, 2, 4, 5}));
  EXPECT_EQ(s.data_ptr(), static_cast<float*>(a.data_ptr()) + 1);
  expect_error([&] { a.as_strided({3, 3}, {3, 1}, 1); }, {"as_strided", "storage"});
  EXPECT_EQ(values(a.view({3, 3}).diagonal()), (std::vector<double>{0, 4, 8}));
  EXPECT_EQ(values(a.view({3, 3}).diagonal(1)), (std::vector<double>{1, 5}));
  EXPECT_EQ(values(a.view({3, 3}).diagonal(-1)), (std::vector<double>{3, 7}));
}

TEST(Views, SplitChunkUnbind) {
  Tensor x = arange(10);
  auto parts = x.split(4);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(values(parts[2]), (std::vector<double>{8, 9}));
  EXPECT_EQ(parts[1].data_ptr(), static_cast<int64_t*>(x.data_ptr()) + 4);
  auto sized = x.split_with_sizes({3, 7});
  EXPECT_EQ(sized[1].numel(), 7);
  auto chunks = x.chunk(3);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].numel(), 4);
  EXPECT_EQ(chunks[2].numel(), 2);
  auto rows = arange(6).view({2, 3}).unbind(1);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(values(rows[2]), (std::vector<double>{2, 5}));
  expect_error([&] { x.split_with_sizes({3, 3}); }, {"split_with_sizes", "sum exactly to 10"});
  expect_error([&] { x.chunk(0); }, {"chunk"});
}

TEST(Copies, CopyBroadcastsAndConverts) {
  Tensor dst = zeros({2, 3}, kDouble);
  dst.copy_(tensor({1, 2, 3}));  // int64 row broadcast into float64
  EXPECT_EQ(values(dst), (std::vector<double>{1, 2, 3, 1, 2, 3}));
  Tensor col = zeros({3, 2}, kInt).t();  // a non-contiguous destination
  col.copy_(tensor({{1.7, -2.2, 3.9}, {4.0, 5.5, 6.1}}));
  EXPECT_EQ(values(col), (std::vector<double>{1, -2, 3, 4, 5, 6}));  // truncation toward 0
  expect_error([&] { dst.copy_(ones({4})); }, {"expand"});
  Tensor b = tensor({0.0, 0.5, -1.0}).to(kBool);
  EXPECT_EQ(values(b), (std::vector<double>{0, 1, 1}));
  Tensor self = arange(4, kFloat);
  self.copy_(self.flip({0}));
  EXPECT_EQ(values(self), (std::vector<double>{3, 2, 1, 0}));  // overlapping source is safe
}

TEST(Copies, ToItemDataPtrAccessor) {
  Tensor x = tensor({{1.5, 2.5}, {3.5, 4.5}});
  Tensor d = x.to(kDouble);
  EXPECT_EQ(d.scalar_type(), kDouble);
  EXPECT_TRUE(x.to(kFloat).is_same(x));  // no copy when nothing changes
  EXPECT_FALSE(x.to(kFloat, false, true).is_same(x));
  EXPECT_EQ(x.to(kLong).scalar_type(), kLong);
  EXPECT_EQ(values(x.to(kLong)), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(x[1][0].item<float>(), 3.5f);
  EXPECT_EQ(x[1][0].item().toDouble(), 3.5);
  expect_error([&] { x.item<float>(); }, {"item", "4 elements"});
  expect_error([&] { x.data_ptr<double>(); }, {"data_ptr", "Double", "Float"});
  auto acc = x.accessor<float, 2>();
  EXPECT_EQ(acc[1][1], 4.5f);
  acc[0][1] = 7;
  EXPECT_EQ(x[0][1].item<float>(), 7.0f);
  Tensor xt = x.t();
  auto tacc = xt.accessor<float, 2>();
  EXPECT_EQ(tacc[1][0], 7.0f);
  expect_error([&] { x.accessor<float, 3>(); }, {"accessor", "3-dimensional"});
  EXPECT_EQ(x.size(-1), 2);
  EXPECT_EQ(x.stride(0), 2);
  expect_error([&] { x.size(2); }, {"size", "out of range"});
  EXPECT_EQ(x.numel(), 4);
  EXPECT_EQ(x.dim(), 2);
  EXPECT_EQ(x.element_size(), 4u);
  EXPECT_EQ(x.nbytes(), 16u);
  EXPECT_EQ(x.options().dtype(), kFloat);
}

TEST(Copies, EqualAllclose) {
  Tensor a = tensor({1.0, 2.0, 3.0});
  EXPECT_TRUE(a.equal(a.clone()));
  EXPECT_FALSE(a.equal(tensor({1.0, 2.0})));
  EXPECT_FALSE(a.equal(tensor({1.0, 2.0, 3.5})));
  EXPECT_TRUE(a.allclose(a + 1e-7));
  EXPECT_FALSE(a.allclose(a + 1e-3));
  EXPECT_TRUE(a.allclose(a + 1e-3, 0, 1e-2));
  Tensor n = tensor({std::nan(""), 1.0});
  EXPECT_FALSE(n.allclose(n));
  EXPECT_TRUE(n.allclose(n, 1e-5, 1e-8, true));
}

TEST(Copies, DetachSharesStorage) {
  Tensor x = ones({3}, requires_grad());
  EXPECT_TRUE(x.requires_grad());
  Tensor d = x.detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_EQ(d.data_ptr(), x.data_ptr());
  EXPECT_EQ(d._version(), x._version());
  expect_error([] { ones({2}, kLong).requires_grad_(); }, {"floating point"});
}

// is_view/_base report the views autograd tracks; alias() is a view of the whole tensor.
TEST(Views, IsViewBaseAndAlias) {
  Tensor x = arange(6, kFloat);
  EXPECT_FALSE(x.is_view());
  expect_error([&] { (void)x._base(); }, {"_base", "not a view"});
  Tensor v = x.view({2, 3});
  Tensor s = v.select(0, 1);
  EXPECT_TRUE(v.is_view());
  EXPECT_TRUE(s.is_view());
  EXPECT_TRUE(s._base().is_same(x));  // the root base, as LibTorch's
  Tensor a = x.alias();
  EXPECT_TRUE(a.is_view());
  EXPECT_TRUE(alias(x)._base().is_same(x));
  EXPECT_EQ(a.data_ptr(), x.data_ptr());
  EXPECT_FALSE(x.clone().is_view());
  Tensor g = ones({3}, requires_grad());
  EXPECT_EQ(g.alias().grad_fn()->name(), "AliasBackward0");
  Tensor inference;
  {
    InferenceMode guard;
    inference = ones({2, 2});
    EXPECT_FALSE(inference.view({4}).is_view());
  }
  EXPECT_FALSE(inference.view({4}).is_view());  // inference tensors never are views
  Tensor r = x.clone();
  r.reset();
  EXPECT_FALSE(r.defined());
}

TEST(Views, AsStridedAndReshapeAliasFunctions) {
  Tensor x = arange(9, kFloat).view({3, 3});
  EXPECT_EQ(values(as_strided(x, {2, 2}, {1, 2})), (std::vector<double>{0, 2, 1, 3}));
  EXPECT_TRUE(_reshape_alias(x, {2, 2}, {1, 2}).equal(x.as_strided({2, 2}, {1, 2})));
  EXPECT_TRUE(_reshape_alias(x, {9}, {1}).equal(x.view({-1})));
  Tensor y = arange(9, kDouble).view({3, 3}).requires_grad_();
  _reshape_alias(y * y, {9}, {1}).sum().backward();
  EXPECT_TRUE(y.grad().equal(2 * y.detach()));
}
