// Indexing, what the op table (tests/conformance/table_shape_index.cpp) cannot say: which
// results share storage with self (views) and which are copies, version counters, writes
// whose operands overlap self, the winner among repeated indices, and every error message.
#include <sstream>
#include <string>

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

TEST(Indexing, BasicIndicesAreViews) {
  Tensor x = arange(24).view({2, 3, 4});
  Tensor v = x.index({Slice(1, 2), Slice(0, 3, 2), Slice(None, 10)});
  EXPECT_TRUE(same_storage(v, x));
  // Only an ellipsis: a fresh alias.
  Tensor a = x.index({Ellipsis});
  EXPECT_FALSE(a.is_same(x));
  EXPECT_TRUE(same_storage(a, x));
}

TEST(Indexing, ZeroDimIntegerTensorSelectsAView) {
  Tensor x = arange(6, kFloat).view({2, 3});
  Tensor r = x.index({tensor(int64_t(1))});
  EXPECT_EQ(shape(r), S{3});
  EXPECT_TRUE(same_storage(r, x));
  EXPECT_EQ(values(r), (V{3, 4, 5}));
}

// ---- advanced indexing: copies --------------------------------------------------------------

TEST(Indexing, AdvancedIndicesCopy) {
  Tensor x = arange(12, kFloat).view({3, 4});
  Tensor r = x.index({longs({2, 0, -1}, {3})});
  EXPECT_FALSE(same_storage(r, x));
  r.fill_(-1);  // writing the copy leaves x alone
  EXPECT_EQ(x.index({0, 0}).item<float>(), 0);
  Tensor all = x.index(std::vector<optional<Tensor>>{nullopt});
  EXPECT_FALSE(same_storage(all, x));
  EXPECT_EQ(values(all), values(x));
}

// uint8 masks: LibTorch accepts them with a deprecation warning on every call, too noisy
// for the table.
TEST(Indexing, Uint8Mask) {
  Tensor x = arange(6, kFloat).view({2, 3});
  EXPECT_EQ(values(x.index({x.gt(2).to(kByte)})), (V{3, 4, 5}));
}

// ---- index_put_ ----------------------------------------------------------------------------

// Writes through basic indices bump self's version; a value overlapping the destination
// reads the old data (LibTorch refuses the partial overlap).
TEST(IndexPut, BasicIndicesWriteThroughTheView) {
  Tensor x = zeros({2, 3});
  uint32_t v0 = x._version();
  x.index_put_({Slice(), 1}, 5);
  EXPECT_EQ(values(x), (V{0, 5, 0, 0, 5, 0}));
  EXPECT_GT(x._version(), v0);
  Tensor y = arange(4, kFloat);
  y.index_put_({Slice(1, None)}, y.index({Slice(None, 3)}));
  EXPECT_EQ(values(y), (V{0, 0, 1, 2}));
}

// Repeated indices without accumulate: the last write wins (LibTorch leaves it unspecified).
TEST(IndexPut, LastWriteWinsAndVersion) {
  Tensor x = zeros({3});
  Tensor idx = longs({0, 0, 2, 0}, {4});
  uint32_t v0 = x._version();
  x.index_put_({idx}, tensor({1.0f, 2.0f, 3.0f, 4.0f}), true);
  EXPECT_EQ(values(x), (V{7, 0, 3}));
  EXPECT_GT(x._version(), v0);
  x.index_put_({idx}, tensor({1.0f, 2.0f, 3.0f, 4.0f}));
  EXPECT_EQ(values(x), (V{4, 0, 3}));
  EXPECT_EQ(values(index_put(x, {longs({1}, {1})}, tensor({5.0f}))), (V{4, 5, 3}));
}

// ---- scatter and masks: versions and aliasing -----------------------------------------------

TEST(GatherScatter, VersionsAndAliasing) {
  Tensor x = zeros({2, 3});
  uint32_t v0 = x._version();
  x.scatter_(1, longs({2, 2}, {2, 1}), -1.5);
  EXPECT_GT(x._version(), v0);
  uint32_t v1 = x._version();
  x.scatter_(1, longs({0}, {1, 1}), ones({1, 1}));
  EXPECT_GT(x._version(), v1);
  // src aliasing self reads the old values (LibTorch refuses the overlap).
  Tensor y = arange(3, kFloat);
  y.scatter_(0, longs({1, 2, 0}, {3}), y);
  EXPECT_EQ(values(y), (V{2, 0, 1}));
}

TEST(Masks, MaskedFillInPlaceVersions) {
  Tensor x = arange(6, kFloat).view({2, 3});
  Tensor m = tensor({true, false, true});
  uint32_t v0 = x._version();
  x.t().masked_fill_(x.t().gt(3), 0);  // through a non-contiguous view
  EXPECT_EQ(values(x), (V{0, 1, 2, 3, 0, 0}));
  EXPECT_GT(x._version(), v0);
  uint32_t v1 = x._version();
  x.masked_fill_(m.to(kByte), tensor(5));
  EXPECT_EQ(values(x), (V{5, 1, 5, 5, 0, 5}));
  EXPECT_GT(x._version(), v1);
}

// ---- errors: messages beyond the op's name (the table's error entries check the name) ---------

TEST(IndexingErrors, TensorIndexLists) {
  Tensor x = arange(6, kFloat).view({2, 3});
  expect_error([&] { x.index({5}); },
               {"index", "index 5 is out of bounds for dimension 0 with size 2"});
  expect_error(
      [&] {
        x.index({0, -4});
      },
      {"index -4 is out of bounds for dimension 1 with size 3"});  // self's dim, as LibTorch
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
  expect_error([&] { scalar_tensor(1.0).index({0}); }, {"invalid index of a 0-dim tensor"});
  expect_error(
      [&] {
        scalar_tensor(1.0).index({0, 0});
      },
      {"too many indices for tensor of dimension 0"});
  expect_error([&] { x.index({}); }, {"empty index list"});
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
      {"index 0 is out of bounds for dimension with size 0 (dimension 1)"});
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

namespace {
template <class T>
std::string str_of(const T& v) {
  std::ostringstream os;
  os << v;
  return os.str();
}
}  // namespace

// LibTorch prints indices so that an index list reads like Python's subscript.
TEST(Indexing, PrintsIndices) {
  std::vector<TensorIndex> list{None, "...", Ellipsis, 0, true, Slice(1, None, 2)};
  EXPECT_EQ(str_of(list), "(None, ..., ..., 0, true, 1:" + std::to_string(INDEX_MAX) + ":2)");
  EXPECT_EQ(str_of(Slice()), "0:" + std::to_string(INDEX_MAX) + ":1");
  EXPECT_EQ(str_of(Slice(None, None, -1)),
            std::to_string(INDEX_MAX) + ":" + std::to_string(INDEX_MIN) + ":-1");
  EXPECT_EQ(str_of(TensorIndex(false)), "false");
  expect_error([] { TensorIndex(".."); },
               {"Expected \"...\" to represent an ellipsis index, but got \"..\""});
}

TEST(Indexing, FunctionSpellings) {
  Tensor x = arange(12, kFloat).view({4, 3});
  Tensor i = tensor({2, 0});
  EXPECT_TRUE(index(x, {i}).equal(x.index({i})));
  Tensor y = x.clone();
  index_put_(y, {i}, ones({3}));
  EXPECT_EQ(values(y.sum(1)), (V{3, 12, 3, 30}));
}
