// Shape ops: cat/stack family, repeat, flip, roll, tril/triu, constant_pad_nd,
// broadcast_tensors, meshgrid, repeat_interleave and the view free functions.
#include <nabla/ops/registry.h>

#include "test_util.h"

using namespace nabla;
using namespace nabla::indexing;
using nabla::testing::expect_error;
using nabla::testing::shape;
using nabla::testing::values;

namespace {
using V = std::vector<double>;
using S = std::vector<int64_t>;
bool same_storage(const Tensor& a, const Tensor& b) {
  return a.impl()->storage() == b.impl()->storage();
}
}  // namespace

TEST(Cat, ValuesDimsAndNonContiguousInputs) {
  Tensor a = arange(6, kFloat).view({2, 3});
  Tensor b = arange(6, 10, kFloat).view({2, 2});
  Tensor c = cat({a, b}, 1);
  EXPECT_EQ(shape(c), (S{2, 5}));
  EXPECT_EQ(values(c), (V{0, 1, 2, 6, 7, 3, 4, 5, 8, 9}));
  EXPECT_EQ(values(cat({a, b}, -1)), values(c));
  EXPECT_EQ(values(concat({a, a.index({Slice(None, 1)})})), (V{0, 1, 2, 3, 4, 5, 0, 1, 2}));
  // Transposed input: cat copies by value, not by memory order.
  Tensor t = cat({a.t(), a.t()}, 1);
  EXPECT_EQ(shape(t), (S{3, 4}));
  EXPECT_EQ(values(t), (V{0, 3, 0, 3, 1, 4, 1, 4, 2, 5, 2, 5}));
  // Zero-size pieces along the cat dim.
  EXPECT_EQ(values(cat({empty({2, 0}), a, empty({2, 0})}, 1)), values(a));
  EXPECT_EQ(shape(cat({empty({0, 3}), empty({0, 3})})), (S{0, 3}));
  // The result never aliases an input, even for a single tensor.
  Tensor one = cat({a});
  EXPECT_FALSE(same_storage(one, a));
  EXPECT_EQ(values(one), values(a));
}

TEST(Cat, DtypePromotionAndLegacyEmpty) {
  Tensor i = tensor({1, 2});          // int64
  Tensor f = tensor({0.5f});          // float32
  Tensor bl = tensor({true, false});  // bool
  Tensor c = cat({i, f});
  EXPECT_EQ(c.scalar_type(), kFloat);
  EXPECT_EQ(values(c), (V{1, 2, 0.5}));
  EXPECT_EQ(cat({bl, i}).scalar_type(), kLong);
  EXPECT_EQ(values(cat({bl, i})), (V{1, 0, 1, 2}));
  EXPECT_EQ(cat({bl, bl}).scalar_type(), kBool);
  EXPECT_EQ(cat({i.to(kInt), tensor({3}).to(kByte)}).scalar_type(), kInt);
  // 1-d empty tensors are skipped whatever their dtype and the dim, but still promote.
  Tensor x = arange(6, kFloat).view({2, 3});
  Tensor e = empty({0}, kLong);
  Tensor r = cat({e, x, e}, 1);
  EXPECT_EQ(shape(r), (S{2, 3}));
  EXPECT_EQ(r.scalar_type(), kFloat);
  EXPECT_EQ(cat({e, x.to(kInt)}, -1).scalar_type(), kLong);
  EXPECT_EQ(shape(cat({e, empty({0})})), S{0});
  EXPECT_EQ(cat({e, empty({0})}).scalar_type(), kFloat);
  EXPECT_EQ(shape(cat({e, e}, 5)), S{0});  // dim is not checked when all inputs are skipped
  EXPECT_EQ(shape(cat({empty({2, 0}), empty({0})}, 0)), (S{2, 0}));
}

TEST(Stack, StackHstackVstack) {
  Tensor a = tensor({1.0f, 2.0f}), b = tensor({3.0f, 4.0f});
  EXPECT_EQ(shape(stack({a, b})), (S{2, 2}));
  EXPECT_EQ(values(stack({a, b}, 1)), (V{1, 3, 2, 4}));
  EXPECT_EQ(values(stack({a, b}, -1)), (V{1, 3, 2, 4}));
  EXPECT_EQ(shape(stack({scalar_tensor(1.0), scalar_tensor(2.0)})), S{2});
  EXPECT_EQ(shape(stack({empty({0, 2}), empty({0, 2})}, 1)), (S{0, 2, 2}));
  EXPECT_EQ(values(hstack({a, b})), (V{1, 2, 3, 4}));
  EXPECT_EQ(shape(hstack({a.view({2, 1}), b.view({2, 1})})), (S{2, 2}));
  EXPECT_EQ(shape(hstack({scalar_tensor(1.0), a})), S{3});
  EXPECT_EQ(values(vstack({a, b})), (V{1, 2, 3, 4}));
  EXPECT_EQ(shape(vstack({a, b})), (S{2, 2}));
  Tensor v = vstack({tensor(int64_t(1)), scalar_tensor(2.0)});
  EXPECT_EQ(shape(v), (S{2, 1}));
  EXPECT_EQ(v.scalar_type(), kFloat);
}

TEST(Repeat, Values) {
  Tensor x = tensor({1, 2, 3});
  EXPECT_EQ(values(x.repeat({2})), (V{1, 2, 3, 1, 2, 3}));
  Tensor r = x.repeat({2, 2});
  EXPECT_EQ(shape(r), (S{2, 6}));
  EXPECT_EQ(values(r), (V{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3}));
  Tensor m = arange(4, kFloat).view({2, 2}).t();  // [[0, 2], [1, 3]]
  EXPECT_EQ(values(m.repeat({1, 2})), (V{0, 2, 0, 2, 1, 3, 1, 3}));
  EXPECT_EQ(values(m.repeat({2, 1})), (V{0, 2, 1, 3, 0, 2, 1, 3}));
  EXPECT_EQ(shape(x.repeat({0, 2})), (S{0, 6}));
  EXPECT_EQ(shape(scalar_tensor(1.0).repeat({})), S{});
  EXPECT_EQ(values(scalar_tensor(5.0).repeat({3})), (V{5, 5, 5}));
  EXPECT_FALSE(same_storage(x.repeat({1}), x));
}

TEST(Flip, Values) {
  Tensor x = arange(6, kFloat).view({2, 3});
  EXPECT_EQ(values(x.flip({0})), (V{3, 4, 5, 0, 1, 2}));
  EXPECT_EQ(values(flip(x, {-1})), (V{2, 1, 0, 5, 4, 3}));
  EXPECT_EQ(values(x.flip({0, 1})), (V{5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(values(x.t().flip({0})), (V{2, 5, 1, 4, 0, 3}));
  EXPECT_EQ(values(x.flip({})), values(x));
  Tensor f = x.flip({1});
  EXPECT_FALSE(same_storage(f, x));
  EXPECT_TRUE(f.is_contiguous());
  EXPECT_EQ(f.strides().vec(), (S{3, 1}));
  EXPECT_EQ(scalar_tensor(2.0).flip({0}).item<double>(), 2.0);
  EXPECT_EQ(shape(empty({0, 3}).flip({0, 1})), (S{0, 3}));
  // Large enough to take the threaded copy path.
  Tensor big = arange(100000, kLong);
  Tensor fb = big.flip({0});
  EXPECT_EQ(fb.index({0}).item<int64_t>(), 99999);
  EXPECT_EQ(fb.index({99999}).item<int64_t>(), 0);
  EXPECT_EQ(fb.index({12345}).item<int64_t>(), 99999 - 12345);
}

TEST(Roll, WithAndWithoutDims) {
  Tensor x = arange(6, kFloat).view({2, 3});
  EXPECT_EQ(values(x.roll({1})), (V{5, 0, 1, 2, 3, 4}));  // flattened
  EXPECT_EQ(shape(x.roll({1})), (S{2, 3}));
  EXPECT_EQ(values(x.roll({-1})), (V{1, 2, 3, 4, 5, 0}));
  EXPECT_EQ(values(roll(x, {1}, {1})), (V{2, 0, 1, 5, 3, 4}));
  EXPECT_EQ(values(x.roll({4}, {-1})), (V{2, 0, 1, 5, 3, 4}));  // shift wraps modulo size
  EXPECT_EQ(values(x.roll({1, -1}, {0, 1})), (V{4, 5, 3, 1, 2, 0}));
  EXPECT_EQ(values(x.t().roll({1}, {0})), (V{2, 5, 0, 3, 1, 4}));
  EXPECT_EQ(values(x.roll({0}, {0})), values(x));
  EXPECT_FALSE(same_storage(x.roll({0}, {0}), x));
  EXPECT_EQ(scalar_tensor(3.0).roll({1}).item<double>(), 3.0);
  EXPECT_EQ(shape(empty({0, 2}).roll({1}, {0})), (S{0, 2}));
  EXPECT_EQ(shape(empty({0, 2}).roll({1})), (S{0, 2}));
}

TEST(TrilTriu, Values) {
  Tensor x = ones({3, 3});
  EXPECT_EQ(values(tril(x)), (V{1, 0, 0, 1, 1, 0, 1, 1, 1}));
  EXPECT_EQ(values(triu(x)), (V{1, 1, 1, 0, 1, 1, 0, 0, 1}));
  EXPECT_EQ(values(tril(x, -1)), (V{0, 0, 0, 1, 0, 0, 1, 1, 0}));
  EXPECT_EQ(values(triu(x, 1)), (V{0, 1, 1, 0, 0, 1, 0, 0, 0}));
  Tensor r = arange(6, kLong).view({2, 3});
  EXPECT_EQ(values(tril(r, 1)), (V{0, 1, 0, 3, 4, 5}));
  EXPECT_EQ(tril(r).scalar_type(), kLong);
  Tensor b = arange(8, kFloat).view({2, 2, 2});  // batched over the leading dim
  EXPECT_EQ(values(triu(b)), (V{0, 1, 0, 3, 4, 5, 0, 7}));
  EXPECT_EQ(values(tril(arange(6, kFloat).view({2, 3}).t())), (V{0, 0, 1, 4, 2, 5}));
  EXPECT_EQ(shape(tril(empty({0, 3}))), (S{0, 3}));
  EXPECT_EQ(values(tril(ones({2, 2}, kBool))), (V{1, 0, 1, 1}));
}

TEST(ConstantPad, PadAndCrop) {
  Tensor x = arange(6, kFloat).view({2, 3});
  Tensor p = constant_pad_nd(x, {1, 0});
  EXPECT_EQ(shape(p), (S{2, 4}));
  EXPECT_EQ(values(p), (V{0, 0, 1, 2, 0, 3, 4, 5}));
  Tensor q = constant_pad_nd(x, {0, 1, 1, 0}, -1);
  EXPECT_EQ(shape(q), (S{3, 4}));
  EXPECT_EQ(values(q), (V{-1, -1, -1, -1, 0, 1, 2, -1, 3, 4, 5, -1}));
  EXPECT_EQ(values(constant_pad_nd(x, {-1, 1})), (V{1, 2, 0, 4, 5, 0}));  // crop left, pad right
  EXPECT_EQ(values(constant_pad_nd(x, {0, 0, -1, 0})), (V{3, 4, 5}));
  EXPECT_EQ(values(constant_pad_nd(x, {-3, 1}, 7)), (V{7, 7}));  // all input cropped
  EXPECT_EQ(values(constant_pad_nd(x.t(), {1, 0})), (V{0, 0, 3, 0, 1, 4, 0, 2, 5}));
  EXPECT_EQ(values(constant_pad_nd(tensor({1, 2}), {1, 1}, 2.7)), (V{2, 1, 2, 2}));  // value cast
  EXPECT_EQ(shape(constant_pad_nd(scalar_tensor(1.0), {})), S{});
  EXPECT_EQ(values(constant_pad_nd(empty({0}), {1, 1})), (V{0, 0}));
}

TEST(BroadcastAndMeshgrid, Views) {
  Tensor a = arange(3, kFloat).view({3, 1});
  Tensor b = arange(2, kFloat);
  auto r = broadcast_tensors({a, b, scalar_tensor(1.0)});
  ASSERT_EQ(r.size(), 3u);
  for (const Tensor& t : r) EXPECT_EQ(shape(t), (S{3, 2}));
  EXPECT_TRUE(same_storage(r[0], a));
  EXPECT_EQ(values(r[0]), (V{0, 0, 1, 1, 2, 2}));
  EXPECT_EQ(values(r[1]), (V{0, 1, 0, 1, 0, 1}));
  EXPECT_TRUE(broadcast_tensors({}).empty());

  Tensor x = tensor({1, 2, 3}), y = tensor({4, 5});
  auto ij = meshgrid({x, y});
  EXPECT_EQ(shape(ij[0]), (S{3, 2}));
  EXPECT_EQ(values(ij[0]), (V{1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(values(ij[1]), (V{4, 5, 4, 5, 4, 5}));
  EXPECT_TRUE(same_storage(ij[0], x));
  auto xy = meshgrid({x, y}, "xy");
  EXPECT_EQ(shape(xy[0]), (S{2, 3}));
  EXPECT_EQ(values(xy[0]), (V{1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(values(xy[1]), (V{4, 4, 4, 5, 5, 5}));
  auto three = meshgrid({x, y, tensor(int64_t(7))}, "xy");
  EXPECT_EQ(shape(three[2]), (S{2, 3, 1}));
  auto one = meshgrid({x}, "xy");
  EXPECT_EQ(values(one[0]), (V{1, 2, 3}));
}

TEST(RepeatInterleave, Values) {
  Tensor x = tensor({1, 2, 3, 4}).view({2, 2});
  EXPECT_EQ(values(repeat_interleave(x, 2)), (V{1, 1, 2, 2, 3, 3, 4, 4}));
  EXPECT_EQ(values(repeat_interleave(x, 2, 0)), (V{1, 2, 1, 2, 3, 4, 3, 4}));
  EXPECT_EQ(values(repeat_interleave(x, 2, -1)), (V{1, 1, 2, 2, 3, 3, 4, 4}));
  EXPECT_EQ(shape(repeat_interleave(x, 2, -1)), (S{2, 4}));
  EXPECT_EQ(shape(repeat_interleave(x, 0, 1)), (S{2, 0}));
  EXPECT_EQ(values(repeat_interleave(x.t(), 2, 1)), (V{1, 1, 3, 3, 2, 2, 4, 4}));
  EXPECT_EQ(values(repeat_interleave(scalar_tensor(3.0), 2)), (V{3, 3}));
}

TEST(ViewFreeFunctions, AreThinWrappers) {
  Tensor x = arange(24, kFloat).view({2, 3, 4});
  auto sp = split(x, 2, 2);
  ASSERT_EQ(sp.size(), 2u);
  EXPECT_EQ(shape(sp[1]), (S{2, 3, 2}));
  EXPECT_TRUE(same_storage(sp[1], x));
  EXPECT_EQ(chunk(x, 3, 1).size(), 3u);
  EXPECT_EQ(unbind(x, 1).size(), 3u);
  EXPECT_EQ(shape(reshape(x, {4, -1})), (S{4, 6}));
  EXPECT_EQ(shape(flatten(x, 1)), (S{2, 12}));
  EXPECT_EQ(shape(squeeze(x.unsqueeze(0))), (S{2, 3, 4}));
  EXPECT_EQ(shape(squeeze(x.unsqueeze(1), 1)), (S{2, 3, 4}));
  EXPECT_EQ(shape(unsqueeze(x, -1)), (S{2, 3, 4, 1}));
  EXPECT_EQ(shape(transpose(x, 0, 2)), (S{4, 3, 2}));
  EXPECT_EQ(shape(t(x.select(0, 0))), (S{4, 3}));
  EXPECT_EQ(shape(permute(x, {1, 2, 0})), (S{3, 4, 2}));
  EXPECT_EQ(values(narrow(x, 2, 1, 2).select(0, 0).select(0, 0)), (V{1, 2}));
  Tensor s = select(x, 1, -1);
  EXPECT_EQ(values(s.select(0, 1)), (V{20, 21, 22, 23}));
  EXPECT_TRUE(same_storage(s, x));
}

TEST(ShapeOpsErrors, EveryPath) {
  Tensor x = arange(6, kFloat).view({2, 3});
  expect_error([&] { cat({}); }, {"cat", "non-empty list"});
  expect_error(
      [&] {
        cat({x, ones({3, 2})}, 1);
      },
      {"cat", "Sizes of tensors must match except in dimension 1", "Expected size 2 but got size 3",
       "tensor number 1"});
  expect_error([&] { cat({x, ones({3})}, 1); }, {"cat", "same number of dimensions: got 2 and 1"});
  expect_error(
      [&] {
        cat({x, scalar_tensor(1.0)});
      },
      {"cat", "zero-dimensional tensor (at position 1)"});
  expect_error([&] { cat({scalar_tensor(1.0)}); },
               {"cat", "zero-dimensional tensor (at position 0)"});
  expect_error([&] { cat({x, x}, 2); }, {"cat", "dimension out of range"});
  expect_error([&] { cat({x, Tensor()}); }, {"cat", "defined"});
  expect_error([&] { stack({}); }, {"stack", "non-empty"});
  expect_error(
      [&] {
        stack({x, ones({3, 2})});
      },
      {"stack", "equal size", "[2, 3] at entry 0", "[3, 2] at entry 1"});
  expect_error([&] { stack({x, x}, 3); }, {"stack", "dimension out of range"});
  expect_error([&] { hstack({}); }, {"hstack", "non-empty"});
  expect_error([&] { vstack({}); }, {"vstack", "non-empty"});
  expect_error([&] { x.repeat({2}); }, {"repeat", "can not be smaller"});
  expect_error([&] { x.repeat({-1, 2}); }, {"repeat", "negative dimension"});
  expect_error([&] { x.flip({0, 0}); }, {"flip", "dim 0 appears multiple times"});
  expect_error([&] { x.flip({2}); }, {"flip", "dimension out of range"});
  expect_error([&] { x.roll({}); }, {"roll", "`shifts` required"});
  expect_error(
      [&] {
        x.roll({1, 2});
      },
      {"roll", "shifts and dimensions must align", "shifts: 2, dims:0"});
  expect_error([&] { x.roll({1}, {2}); }, {"roll", "dimension out of range"});
  expect_error([&] { tril(ones({3})); }, {"tril", "at least 2 dimensions"});
  expect_error([&] { triu(scalar_tensor(1.0)); }, {"triu", "at least 2 dimensions"});
  expect_error([&] { constant_pad_nd(x, {1, 2, 3}); }, {"constant_pad_nd", "must be even", "3"});
  expect_error(
      [&] {
        constant_pad_nd(x, {1, 1, 1, 1, 1, 1});
      },
      {"constant_pad_nd", "Pad length is 6", "2 dimensions"});
  expect_error(
      [&] {
        constant_pad_nd(x, {-2, -2});
      },
      {"constant_pad_nd", "negative output size", "dimension 1"});
  expect_error(
      [&] {
        broadcast_tensors({x, ones({3, 1})});
      },
      {"broadcast_tensors", "[2, 3]", "[3, 1]"});
  expect_error([&] { meshgrid({}); }, {"meshgrid", "non-empty"});
  expect_error([&] { meshgrid({x}); }, {"meshgrid", "0D or 1D", "[2, 3]"});
  expect_error([&] { meshgrid({ones({2}), ones({2}, kInt)}); }, {"meshgrid", "same dtype"});
  expect_error([&] { meshgrid({ones({2})}, "ab"); }, {"meshgrid", "\"xy\" or \"ij\"", "ab"});
  expect_error([&] { repeat_interleave(x, -1, 1); }, {"repeat_interleave", "can not be negative"});
  expect_error([&] { repeat_interleave(scalar_tensor(1.0), 2, 0); },
               {"repeat_interleave", "no dimensions"});
  expect_error([&] { repeat_interleave(x, 2, 2); },
               {"repeat_interleave", "dimension out of range"});
}

// The by-name forms whose arguments have alternatives (values are checked by the op table).
TEST(ShapeOpsByName, AlternativeArguments) {
  Tensor x = arange(6, kFloat).view({2, 3});
  expect_error(
      [&] {
        ops::call("tensor_split", {x}, {{"sections", 2}, {"indices", S{1}}});
      },
      {"tensor_split", "exactly one of the attributes 'sections' and 'indices'"});
  expect_error([&] { ops::call("hsplit", {x}); }, {"hsplit", "exactly one"});
  EXPECT_EQ(ops::call("vsplit", {x}, {{"sections", 2}}).size(), 2u);
  expect_error([&] { ops::call("repeat_interleave", {x}); },
               {"repeat_interleave", "exactly one of them"});
  Tensor reps = tensor({1, 2});
  expect_error(
      [&] {
        ops::call("repeat_interleave", {x, reps}, {{"repeats", 2}});
      },
      {"repeat_interleave", "exactly one of them"});
  EXPECT_EQ(shape(ops::call("repeat_interleave", {x, reps}, {{"dim", 0}})[0]), (S{3, 3}));
  expect_error([&] { ops::call("zeros", {}); }, {"zeros", "'size' (int list) is required"});
  expect_error([&] { ops::call("zeros", {x}, {{"size", S{2}}}); }, {"zeros", "expected 0"});
  EXPECT_EQ(ops::call("full", {}, {{"size", S{2}}, {"fill_value", 7}})[0].scalar_type(), kLong);
  EXPECT_EQ(ops::call("full", {}, {{"size", S{2}}, {"fill_value", 7.5}})[0].scalar_type(), kFloat);
  EXPECT_EQ(shape(ops::call("eye", {}, {{"n", 2}})[0]), (S{2, 2}));
  EXPECT_EQ(values(ops::call("squeeze", {ones({2, 1})}, {{"dim", 1}})[0]), (V{1, 1}));
}
