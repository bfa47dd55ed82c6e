// Signatures and dtype rules LibTorch's own tests pin down: ATen's general elu, the
// dtypes of tensor literals, binary_cross_entropy pairing [N, 1] with [N], TensorOptions
// made of a device's parts.
#include <nabla/nabla.h>

#include <gtest/gtest.h>

#include "test_util.h"

namespace nabla::testing {
namespace {

TEST(CompatSignatures, EluWithScaleAndInputScale) {
  Tensor x = tensor({-1.0, 0.5}, kDouble).requires_grad_();
  Tensor y = elu(x, 1.5, 2.0, 3.0);
  EXPECT_NEAR(y[0].item<double>(), 2.0 * 1.5 * (std::exp(-3.0) - 1), 1e-12);
  EXPECT_NEAR(y[1].item<double>(), 1.0, 1e-12);
  y.sum().backward();
  EXPECT_NEAR(x.grad()[0].item<double>(), 2.0 * 1.5 * 3.0 * std::exp(-3.0), 1e-12);
  EXPECT_NEAR(x.grad()[1].item<double>(), 2.0, 1e-12);
  EXPECT_TRUE(allclose(elu(x.detach(), 1.5), elu(x.detach(), 1.5, 1, 1)));
}

TEST(CompatSignatures, TensorLiteralDtypes) {
  EXPECT_EQ(tensor({1, 2, 3}).scalar_type(), kLong);
  EXPECT_EQ(tensor(ArrayRef<int>({1, 2})).scalar_type(), kLong);
  EXPECT_EQ(tensor(std::vector<int>{1, 2}).scalar_type(), kLong);
  EXPECT_EQ(tensor(ArrayRef<float>({1.f})).scalar_type(), get_default_dtype());
  EXPECT_EQ(tensor(std::vector<uint8_t>{1, 2}).scalar_type(), kByte);
  EXPECT_EQ(tensor({true, false}).scalar_type(), kBool);
  EXPECT_EQ(tensor(std::vector<int8_t>{1, 2}).scalar_type(), kChar);
  EXPECT_EQ(tensor(std::vector<int16_t>{1, 2}).scalar_type(), kShort);
  EXPECT_EQ(zeros({2}, kInt8).scalar_type(), kChar);
  EXPECT_NE(kInt16, kInt);
}

TEST(CompatSignatures, BinaryCrossEntropyPairsSqueezedSizes) {
  Tensor p = full({3, 1}, 0.25, kDouble);
  Tensor t = tensor({1.0, 0.0, 1.0}, kDouble);
  Tensor loss = binary_cross_entropy(p, t);
  const double want = -(2 * std::log(0.25) + std::log(0.75)) / 3;
  EXPECT_NEAR(loss.item<double>(), want, 1e-12);
  expect_error(
      [&] {
        (void)binary_cross_entropy(p, tensor({1.0, 0.0}, kDouble));
      },
      {"must be the same as input size"});
  expect_error([&] { (void)nn::functional::binary_cross_entropy(p, t); },
               {"different to the input size"});
}

TEST(CompatSignatures, TensorOptionsFromADevicesParts) {
  TensorOptions o = {kCUDA, 1};  // only a description: no GPU is needed
  EXPECT_TRUE(o.device().is_cuda());
  EXPECT_EQ(o.device().index(), 1);
  Device::Type type = kCPU;
  EXPECT_EQ(Device(type).type(), kCPU);
  EXPECT_EQ(typeMetaToScalarType(get_default_dtype()), kFloat);
}

TEST(CompatSignatures, TensorDataContainerKindsAndPrinting) {
  detail::TensorDataContainer one(1.5), list({{1, 2}, {3, 4}}), vec(std::vector<double>{1.5, 2.5});
  EXPECT_TRUE(one.is_scalar());
  EXPECT_EQ(one.scalar().toDouble(), 1.5);
  EXPECT_TRUE(list.is_init_list());
  EXPECT_EQ(list.init_list().size(), 2u);
  EXPECT_TRUE(vec.is_tensor());
  EXPECT_TRUE(vec.tensor().equal(tensor({1.5, 2.5})));
  EXPECT_EQ(str(one), "1.5");
  EXPECT_EQ(str(list), "{{1, 2}, {3, 4}}");
  EXPECT_EQ(str(vec), "{1.5, 2.5}");
  EXPECT_EQ(str(detail::TensorDataContainer({{}})), "{{}}");
  expect_error([&] { (void)one.init_list(); }, {"Can only call `init_list()`"});
  expect_error([&] { (void)list.scalar(); }, {"Can only call `scalar()`"});
  expect_error([&] { (void)vec.scalar(); }, {"is_scalar() == true"});
  expect_error([&] { (void)one.tensor(); }, {"Can only call `tensor()`"});
}

// Sequential passes values of any type from module to module.
TEST(CompatSignatures, SequentialForwardsAnyValues) {
  struct AddOne : nn::Module {
    int forward(int v) { return v + 1; }
  };
  nn::Sequential chain(AddOne{}, AddOne{}, AddOne{});
  EXPECT_EQ(chain->forward<int>(1), 4);
  expect_error([&] { chain->forward<float>(1); },
               {"The type of the return value is int, but you asked for type float"});
  nn::Sequential empty;
  expect_error([&] { empty->forward<int>(1); }, {"Cannot call forward() on an empty Sequential"});
  nn::Sequential tensors(nn::Linear(2, 3), nn::ReLU());
  EXPECT_EQ(tensors->forward(ones({4, 2})).sizes(), IntArrayRef({4, 3}));
}

int64_t first_or_minus_one(OptionalIntArrayRef values) {
  return values.has_value() ? values.value()[0] : -1;
}

TEST(CompatSignatures, OptionalIntArrayRefFromValuesListsAndNothing) {
  EXPECT_EQ(first_or_minus_one(300), 300);
  EXPECT_EQ(first_or_minus_one({400, 1}), 400);
  std::vector<int64_t> v = {7, 8};
  EXPECT_EQ(first_or_minus_one(v), 7);
  EXPECT_EQ(first_or_minus_one(nullopt), -1);
  EXPECT_EQ(first_or_minus_one({}), -1);
  OptionalIntArrayRef none;
  expect_error([&] { (void)none.value(); }, {"OptionalArrayRef", "no value"});
}

TEST(CompatSignatures, StorageIsLibTorchsStorage) {
  Tensor x = arange(12, kFloat).view({3, 4});
  Tensor row = x[1];
  EXPECT_EQ(row.storage().data(), x.data_ptr());  // element 0 of the storage, not of the view
  EXPECT_EQ(static_cast<float*>(row.storage().data()) + 4, row.data_ptr<float>());
  EXPECT_EQ(x.storage().nbytes(), 12 * sizeof(float));
  EXPECT_TRUE(row.storage().is_alias_of(x.storage()));
  EXPECT_FALSE(x.clone().storage().is_alias_of(x.storage()));
  EXPECT_EQ(x.storage().device(), Device(kCPU));
}

TEST(CompatSignatures, RandomWithOneBoundOrNone) {
  manual_seed(1);
  Tensor a = empty({200}, kFloat).random_(3);
  EXPECT_GE(a.min().item<double>(), 0);
  EXPECT_LE(a.max().item<double>(), 2);
  EXPECT_EQ(a.eq(2).sum().item<int64_t>() > 0, true);
  Tensor b = empty({200}, kByte).random_();
  EXPECT_GE(b.to(kLong).max().item<int64_t>(), 128);  // the whole byte range is drawn
  Tensor c = empty({50}, kBool).random_();
  EXPECT_TRUE(c.any().item<bool>());
  Tensor d = empty({100}, kLong).random_();
  EXPECT_GT(d.max().item<int64_t>(), int64_t{1} << 40);
  EXPECT_GE(d.min().item<int64_t>(), 0);
}

struct ForwardsInt : nn::Module {
  int forward(const Tensor&) { return 1; }
};
struct NoForward : nn::Module {};

TEST(CompatSignatures, StaticHelpers) {
  static_assert(all_of<>::value && all_of<true, true>::value && !all_of<true, false>::value);
  static_assert(!any_of<>::value && any_of<false, true>::value);
  static_assert(detail::is_module<nn::LinearImpl>::value && !detail::is_module<int>::value);
  static_assert(detail::check_not_lvalue_references<int, float&&>() &&
                !detail::check_not_lvalue_references<int&>());
  static_assert(std::is_same_v<detail::return_type_of_forward_t<ForwardsInt, Tensor>, int>);
  static_assert(std::is_same_v<detail::return_type_of_forward_t<NoForward>, void>);
  static_assert(std::is_same_v<detail::enable_if_module_t<nn::LinearImpl, double>, double>);
  int sum = 0;
  apply([&](int v) { sum = sum * 10 + v; }, 1, 2, 3);
  EXPECT_EQ(sum, 123);
  variant<int, std::string> v = std::string("x");
  EXPECT_TRUE(holds_alternative<std::string>(v));
}

TEST(CompatSignatures, SpecialFunctionsAreTheOps) {
  Tensor x = linspace(0.5, 3.0, 6, kDouble);
  EXPECT_TRUE(special::gammaln(x).equal(x.lgamma()));
  EXPECT_TRUE(special::expit(x).equal(x.sigmoid()));
  EXPECT_TRUE(allclose(special::ndtr(tensor({0.0, 1.0}, kDouble)),
                       tensor({0.5, 0.8413447460685429}, kDouble), 1e-12, 1e-12));
  EXPECT_TRUE(special::log_softmax(x, 0).exp().sum().item<double>() - 1 < 1e-12);
}

TEST(CompatSignatures, InteropThreadCountIsKept) {
  init_num_threads();
  EXPECT_GE(get_num_interop_threads(), 1);
  set_num_interop_threads(3);
  EXPECT_EQ(get_num_interop_threads(), 3);
  expect_error([] { set_num_interop_threads(0); }, {"set_num_interop_threads", "positive"});
}

}  // namespace
}  // namespace nabla::testing
