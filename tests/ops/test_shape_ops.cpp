// Shape ops, what the op table (tests/conformance/table_shape_index.cpp) cannot say:
// which results share storage with their input (the table compares values and strides,
// not storage), a flip large enough for the threaded copy, ops::call's alternative
// arguments, and error messages.
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

// The copying ops never return storage of an input, even when the result equals it.
TEST(ShapeOps, CopiesNeverAlias) {
  Tensor a = arange(6, kFloat).view({2, 3});
  EXPECT_FALSE(same_storage(cat({a}), a));
  EXPECT_FALSE(same_storage(a.repeat({1, 1}), a));
  EXPECT_FALSE(same_storage(a.roll({0}, {0}), a));
  Tensor f = a.flip({1});
  EXPECT_FALSE(same_storage(f, a));
  EXPECT_TRUE(f.is_contiguous());
  EXPECT_EQ(f.strides().vec(), (S{3, 1}));
  EXPECT_FALSE(same_storage(a.flip({}), a));
}

// Large enough to take the threaded copy path.
TEST(Flip, LargeThreaded) {
  Tensor big = arange(100000, kLong);
  Tensor fb = big.flip({0});
  EXPECT_EQ(fb.index({0}).item<int64_t>(), 99999);
  EXPECT_EQ(fb.index({99999}).item<int64_t>(), 0);
  EXPECT_EQ(fb.index({12345}).item<int64_t>(), 99999 - 12345);
}

// broadcast_tensors and meshgrid return views of their inputs; no inputs, no outputs.
TEST(BroadcastAndMeshgrid, Views) {
  Tensor a = arange(3, kFloat).view({3, 1});
  auto r = broadcast_tensors({a, arange(2, kFloat), scalar_tensor(1.0)});
  EXPECT_TRUE(same_storage(r[0], a));
  EXPECT_TRUE(broadcast_tensors({}).empty());
  Tensor x = tensor({1, 2, 3}), y = tensor({4, 5});
  auto ij = meshgrid({x, y});
  EXPECT_TRUE(same_storage(ij[0], x));
  EXPECT_TRUE(same_storage(ij[1], y));
}

// The free-function spellings of the views (the table calls the methods): the same
// result, sharing the input's storage.
TEST(ViewFreeFunctions, AreViewsLikeTheMethods) {
  Tensor x = arange(24, kFloat).view({2, 3, 4});
  auto check = [&](const Tensor& free, const Tensor& method, const char* what) {
    EXPECT_TRUE(same_storage(free, x)) << what;
    EXPECT_EQ(free.sizes(), method.sizes()) << what;
    EXPECT_EQ(free.strides(), method.strides()) << what;
    EXPECT_TRUE(free.equal(method)) << what;
  };
  auto sp = split(x, 2, 2), msp = x.split(2, 2);
  ASSERT_EQ(sp.size(), msp.size());
  for (size_t i = 0; i < sp.size(); ++i) check(sp[i], msp[i], "split");
  auto ch = chunk(x, 3, 1), mch = x.chunk(3, 1);
  ASSERT_EQ(ch.size(), mch.size());
  for (size_t i = 0; i < ch.size(); ++i) check(ch[i], mch[i], "chunk");
  auto ub = unbind(x, 1), mub = x.unbind(1);
  ASSERT_EQ(ub.size(), mub.size());
  for (size_t i = 0; i < ub.size(); ++i) check(ub[i], mub[i], "unbind");
  check(reshape(x, {4, -1}), x.reshape({4, -1}), "reshape");
  check(flatten(x, 1), x.flatten(1), "flatten");
  check(squeeze(x.unsqueeze(0)), x.unsqueeze(0).squeeze(), "squeeze");
  check(squeeze(x.unsqueeze(1), 1), x.unsqueeze(1).squeeze(1), "squeeze dim");
  check(unsqueeze(x, -1), x.unsqueeze(-1), "unsqueeze");
  check(transpose(x, 0, 2), x.transpose(0, 2), "transpose");
  check(t(x.select(0, 0)), x.select(0, 0).t(), "t");
  check(permute(x, {1, 2, 0}), x.permute({1, 2, 0}), "permute");
  check(narrow(x, 2, 1, 2), x.narrow(2, 1, 2), "narrow");
  check(select(x, 1, -1), x.select(1, -1), "select");
}

// Messages beyond the op's name (the table's error entries check the name).
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

// The by-name forms whose arguments have alternatives, and their errors (the op table calls
// each op by name with one valid form).
TEST(ShapeOpsByName, AlternativeArguments) {
  Tensor x = arange(6, kFloat).view({2, 3});
  expect_error(
      [&] {
        ops::call("tensor_split", {x}, {{"sections", 2}, {"indices", S{1}}});
      },
      {"tensor_split", "no form of the op", "1 input; attributes sections (int), dim (int)",
       "1 input; attributes indices (int list), dim (int)"});
  expect_error([&] { ops::call("hsplit", {x}); },
               {"hsplit", "no form of the op", "attributes sections (int)"});
  auto pieces = ops::call("vsplit", {x}, {{"sections", 2}}), direct = x.vsplit(2);
  ASSERT_EQ(pieces.size(), direct.size());
  for (size_t i = 0; i < pieces.size(); ++i) {
    EXPECT_TRUE(pieces[i].equal(direct[i])) << i;
    EXPECT_TRUE(same_storage(pieces[i], x)) << i;  // views, as the direct call's
  }
  expect_error(
      [&] { ops::call("repeat_interleave", {x}); },
      {"repeat_interleave", "no form of the op", "1 input; attributes repeats (int), dim (int)"});
  Tensor reps = tensor({1, 2});
  expect_error(
      [&] {
        ops::call("repeat_interleave", {x, reps}, {{"repeats", 2}});
      },
      {"repeat_interleave", "no form of the op takes 2 inputs"});
  EXPECT_EQ(shape(ops::call("repeat_interleave", {x, reps}, {{"dim", 0}})[0]), (S{3, 3}));
  expect_error([&] { ops::call("zeros", {}); }, {"zeros", "'size' (int list) is required"});
  expect_error([&] { ops::call("zeros", {x}, {{"size", S{2}}}); }, {"zeros", "expected 0"});
  EXPECT_EQ(ops::call("full", {}, {{"size", S{2}}, {"fill_value", 7}})[0].scalar_type(), kLong);
  EXPECT_EQ(ops::call("full", {}, {{"size", S{2}}, {"fill_value", 7.5}})[0].scalar_type(), kFloat);
  EXPECT_EQ(shape(ops::call("eye", {}, {{"n", 2}})[0]), (S{2, 2}));
  EXPECT_EQ(values(ops::call("squeeze", {ones({2, 1})}, {{"dim", 1}})[0]), (V{1, 1}));
}
