#include <cmath>
#include <numeric>

#include "test_util.h"

using namespace nabla;
using nabla::testing::expect_error;
using nabla::testing::shape;
using nabla::testing::values;

TEST(Factories, UndefinedTensor) {
  Tensor t;
  EXPECT_FALSE(t.defined());
  expect_error([&] { (void)t.sizes(); }, {"undefined"});
}

TEST(Factories, ZerosOnesFullEmpty) {
  Tensor z = zeros({2, 3});
  EXPECT_EQ(shape(z), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(z.scalar_type(), kFloat);
  EXPECT_EQ(values(z), std::vector<double>(6, 0.0));
  EXPECT_EQ(values(ones({4}, kInt64)), std::vector<double>(4, 1.0));
  EXPECT_EQ(ones({4}, kInt64).scalar_type(), kLong);
  EXPECT_EQ(full({2}, 7).scalar_type(), kLong);  // dtype follows the fill value
  EXPECT_EQ(full({2}, 2.5).scalar_type(), kFloat);
  EXPECT_EQ(full({2}, true).scalar_type(), kBool);
  EXPECT_EQ(values(full({2, 2}, 2.5, kDouble)), std::vector<double>(4, 2.5));
  EXPECT_EQ(empty({0, 3}).numel(), 0);
  EXPECT_EQ(zeros({}).dim(), 0);
  EXPECT_EQ(zeros({}).numel(), 1);
  EXPECT_TRUE(zeros({3}, dtype(kFloat64).requires_grad(true)).requires_grad());
}

TEST(Factories, ArangeLinspaceEye) {
  EXPECT_EQ(arange(5).scalar_type(), kLong);
  EXPECT_EQ(values(arange(5)), (std::vector<double>{0, 1, 2, 3, 4}));
  EXPECT_EQ(arange(0, 1, 0.25).scalar_type(), kFloat);
  EXPECT_EQ(values(arange(0, 1, 0.25)), (std::vector<double>{0, 0.25, 0.5, 0.75}));
  EXPECT_EQ(values(arange(5, 0, -2)), (std::vector<double>{5, 3, 1}));
  EXPECT_EQ(values(arange(3, kDouble)), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(arange(0).numel(), 0);
  EXPECT_EQ(values(linspace(0, 1, 5)), (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
  EXPECT_EQ(linspace(0, 1, 0).numel(), 0);
  EXPECT_EQ(values(linspace(3, 3, 1)), (std::vector<double>{3}));
  EXPECT_EQ(values(eye(2, 3)), (std::vector<double>{1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(values(eye(2)), (std::vector<double>{1, 0, 0, 1}));
  expect_error([] { arange(0, 5, 0); }, {"arange", "step"});
  expect_error([] { arange(5, 0, 1); }, {"arange"});
  expect_error([] { linspace(0, 1, -1); }, {"linspace"});
}

TEST(Factories, TensorLiteral) {
  Tensor a = tensor({1, 2, 3});
  EXPECT_EQ(a.scalar_type(), kLong);
  EXPECT_EQ(values(a), (std::vector<double>{1, 2, 3}));
  Tensor b = tensor({1.5, 2.0});
  EXPECT_EQ(b.scalar_type(), kFloat);
  Tensor c = tensor({{1, 2}, {3, 4}, {5, 6}});
  EXPECT_EQ(shape(c), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(values(c), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  Tensor d = tensor(2.5);
  EXPECT_EQ(d.dim(), 0);
  EXPECT_EQ(d.item<double>(), 2.5);
  EXPECT_EQ(tensor({true, false}).scalar_type(), kBool);
  EXPECT_EQ(tensor(std::vector<double>{1, 2}).scalar_type(), kFloat);  // as LibTorch
  EXPECT_EQ(tensor(std::vector<float>{1, 2}).scalar_type(), kFloat);
  EXPECT_EQ(tensor({1, 2}, kFloat64).scalar_type(), kDouble);
  EXPECT_EQ(tensor({{{1}, {2}}}).sizes().vec(), (std::vector<int64_t>{1, 2, 1}));
  expect_error(
      [] {
        tensor({{1, 2}, {3}});
      },
      {"tensor",
       "Expected all sub-lists to have sizes: 2 (e.g. {1, 2}), but got "
       "sub-list {3} with sizes: 1"});
}

// As LibTorch's: the literals of one braced list have one C++ type (no silent promotion),
// named by the ScalarType of that type (`1` is Int even though the tensor is Long).
TEST(Factories, TensorLiteralRefusesMixedTypes) {
  expect_error(
      [] {
        tensor({1, 2.0});
      },
      {"tensor", "same scalar type: Int, but got element of scalar type: Double"});
  expect_error(
      [] {
        tensor({{true}, {2}});
      },
      {"same scalar type: Bool, but got element of scalar type: Int"});
  expect_error(
      [] {
        tensor({1.5f, 2.5});
      },
      {"same scalar type: Float, but got element of scalar type: Double"});
  expect_error(
      [] {
        tensor({int64_t{1}, 2});
      },
      {"same scalar type: Long, but got element of scalar type: Int"});
  EXPECT_EQ(tensor({{1.5f, 2.5f}}).scalar_type(), kFloat);
  EXPECT_EQ(tensor({int64_t{1}, int64_t{2}}).scalar_type(), kLong);
}

TEST(Factories, FromBlob) {
  float data[6] = {0, 1, 2, 3, 4, 5};
  Tensor t = from_blob(data, {2, 3});
  EXPECT_EQ(t.data_ptr<float>(), data);
  t.mul_(2);
  EXPECT_EQ(data[5], 10.0f);
  Tensor s = from_blob(data, {3}, {2});  // strided: every other element
  EXPECT_EQ(values(s), (std::vector<double>{0, 4, 8}));
  bool deleted = false;
  {
    float* heap = new float[4]{1, 2, 3, 4};
    Tensor owned = from_blob(heap, {4}, [&](void* p) {
      delete[] static_cast<float*>(p);
      deleted = true;
    });
    Tensor view = owned.view({2, 2});
    owned = Tensor();
    EXPECT_FALSE(deleted);  // the view keeps the storage alive
  }
  EXPECT_TRUE(deleted);
  int64_t longs[2] = {7, 8};
  EXPECT_EQ(from_blob(longs, {2}, kLong)[0].item<int64_t>(), 7);
}

// LibTorch's DataPtr view of a storage: the deleter's context is null for from_blob
// memory without a deleter, set for memory with one and for nabla's own allocations.
TEST(Factories, StorageDataPtr) {
  float data[2] = {1, 2};
  DataPtr plain = from_blob(data, {2}).storage().data_ptr();
  EXPECT_EQ(plain.get(), data);
  EXPECT_EQ(plain.get_context(), nullptr);
  EXPECT_TRUE(plain.device().is_cpu());
  EXPECT_NE(from_blob(data, {2}, [](void*) {}).storage().data_ptr().get_context(), nullptr);
  Tensor own = zeros({3});
  EXPECT_EQ(own.storage().data_ptr().get(), own.data_ptr());
  EXPECT_NE(own.storage().data_ptr().get_context(), nullptr);
}

TEST(Factories, Like) {
  Tensor x = ones({2, 3}, kDouble);
  EXPECT_EQ(zeros_like(x).scalar_type(), kDouble);
  EXPECT_EQ(shape(ones_like(x)), shape(x));
  EXPECT_EQ(values(full_like(x, 3)), std::vector<double>(6, 3.0));
  EXPECT_EQ(empty_like(x, kInt).scalar_type(), kInt);
  EXPECT_EQ(rand_like(x).scalar_type(), kDouble);
  EXPECT_EQ(randn_like(x).numel(), 6);
  Tensor ri = randint_like(x, 3, 5);
  for (double v : values(ri)) EXPECT_TRUE(v == 3 || v == 4);
}

TEST(Random, SameSeedSameNumbers) {
  manual_seed(42);
  Tensor a = randn({1000});
  manual_seed(42);
  Tensor b = randn({1000});
  EXPECT_TRUE(a.equal(b));
  Tensor c = randn({1000});
  EXPECT_FALSE(a.equal(c));
}

TEST(Random, ThreadCountDoesNotChangeNumbers) {
  int saved = get_num_threads();
  set_num_threads(1);
  manual_seed(7);
  Tensor a = rand({200000});
  set_num_threads(2);
  manual_seed(7);
  Tensor b = rand({200000});
  set_num_threads(saved);
  EXPECT_TRUE(a.equal(b));
}

TEST(Random, Distributions) {
  manual_seed(0);
  auto u = values(rand({100000}, kDouble));
  double mean = std::accumulate(u.begin(), u.end(), 0.0) / u.size();
  EXPECT_NEAR(mean, 0.5, 0.01);
  for (double v : u) ASSERT_TRUE(v >= 0 && v < 1);
  auto n = values(randn({100000}, kDouble));
  double m = std::accumulate(n.begin(), n.end(), 0.0) / n.size();
  double var = 0;
  for (double v : n) var += (v - m) * (v - m);
  var /= n.size();
  EXPECT_NEAR(m, 0, 0.02);
  EXPECT_NEAR(var, 1, 0.02);
  auto g = values(normal(3, 2, {100000}, nullopt, kDouble));
  double gm = std::accumulate(g.begin(), g.end(), 0.0) / g.size();
  EXPECT_NEAR(gm, 3, 0.05);
  auto ri = randint(-3, 3, {10000});
  EXPECT_EQ(ri.scalar_type(), kLong);
  std::vector<int> counts(6, 0);
  for (double v : values(ri)) {
    ASSERT_TRUE(v >= -3 && v < 3);
    counts[static_cast<int>(v) + 3]++;
  }
  for (int c : counts) EXPECT_GT(c, 1400);
  auto p = values(randperm(100));
  std::vector<double> sorted = p;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 100; ++i) EXPECT_EQ(sorted[i], i);
  EXPECT_NE(p, sorted);
  Tensor t = empty({1000}, kDouble);
  t.uniform_(-2, 2);
  for (double v : values(t)) ASSERT_TRUE(v >= -2 && v < 2);
  t.normal_(5, 0.1);
  EXPECT_NEAR(values(t.mean())[0], 5, 0.05);
  expect_error([] { randint(5, 5, {2}); }, {"randint"});
  expect_error([] { randn({2}, kLong); }, {"randn", "floating"});
}

TEST(Random, GeneratorsAreIndependent) {
  Generator g1 = make_generator(123), g2 = make_generator(123);
  Tensor a = randn({10}, g1), b = randn({10}, g2);
  EXPECT_TRUE(a.equal(b));
  Tensor c = randn({10}, g1);
  EXPECT_FALSE(a.equal(c));
  EXPECT_EQ(g1.current_seed(), 123u);
}

TEST(Factories, NegativeAndOverflowingSizes) {
  expect_error([] { zeros({2, -1}); }, {"negative dimension", "-1"});
  expect_error([] { empty({int64_t(1) << 40, int64_t(1) << 40}); }, {"overflow"});
  expect_error([] { empty({int64_t(1) << 61}); }, {"empty"});
}

TEST(Device, CpuOnly) {
  Device d("cpu");
  EXPECT_TRUE(d.is_cpu());
  EXPECT_EQ(Device("cuda:1").index(), 1);
  EXPECT_EQ(ones({2}).device(), Device(kCPU));
  expect_error([] { Device("tpu"); }, {"Device", "tpu"});
  if (cuda::is_available()) GTEST_SKIP() << "this machine has a GPU: tests/cuda covers it";
  // Without a GPU (or a build without CUDA), asking for one is a clear error.
  EXPECT_EQ(cuda::device_count(), 0);
  expect_error([] { ones({2}).to(kCUDA); }, {"cuda", "is_available"});
  expect_error([] { ones({2}, device(kCUDA)); }, {"cuda", "is_available"});
  expect_error([] { ones({2}).cuda(); }, {"cuda"});
  expect_error([] { ones({2}).pin_memory(); }, {"pin_memory"});
  EXPECT_FALSE(ones({2}).is_pinned());
}
