// nabla::pickle_save / pickle_load against LibTorch's torch::pickle_save / pickle_load: each
// reads what the other writes (dicts of tensors of every shared dtype, shared storages and
// views, nested lists, ints and strings), values and strides compared byte for byte.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <nabla/nabla.h>

#include <cstring>

namespace {

// The elements of a tensor of either library, row-major, as bytes.
std::string bytes_of(const torch::Tensor& t) {
  const auto c = t.contiguous();
  return std::string(static_cast<const char*>(c.data_ptr()), c.nbytes());
}
std::string bytes_of(const nabla::Tensor& t) {
  const auto c = t.contiguous();
  return std::string(static_cast<const char*>(c.data_ptr()), c.nbytes());
}

std::vector<std::pair<std::string, torch::Tensor>> torch_tensors() {
  const auto base = torch::arange(12, torch::kFloat).reshape({3, 4}) * 0.5 - 1;
  return {{"f32", base},
          {"t", base.t()},
          {"col", base.select(1, 2)},
          {"f64", torch::linspace(-2, 2, 5, torch::kDouble)},
          {"f16", torch::arange(6, torch::kFloat).to(torch::kHalf)},
          {"bf16", torch::arange(6, torch::kFloat).to(torch::kBFloat16)},
          {"i64", torch::arange(-3, 3, torch::kLong)},
          {"i32", torch::arange(-3, 3, torch::kInt)},
          {"u8", torch::arange(0, 250, 50, torch::kByte)},
          {"b", torch::arange(5).remainder(2).eq(0)},
          {"scalar", torch::scalar_tensor(7.5)}};
}

TEST(Pickle, NablaReadsLibTorchsBytes) {
  c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
  for (const auto& [k, t] : torch_tensors()) dict.insert(k, t);
  dict.insert("n", int64_t{-70000});
  dict.insert("s", std::string("text"));
  const std::vector<char> bytes = torch::pickle_save(c10::IValue(dict));
  const nabla::IValue v = nabla::pickle_load(bytes);
  ASSERT_TRUE(v.isGenericDict());
  const auto& d = v.toGenericDict();
  for (const auto& [k, t] : torch_tensors()) {
    const nabla::Tensor& o = d.at(k).toTensor();
    EXPECT_EQ(o.sizes().vec(), t.sizes().vec()) << k;
    EXPECT_EQ(o.strides().vec(), t.strides().vec()) << k;
    EXPECT_EQ(bytes_of(o), bytes_of(t)) << k;
  }
  EXPECT_TRUE(d.at("t").toTensor().is_alias_of(d.at("f32").toTensor()));
  EXPECT_EQ(d.at("n").toInt(), -70000);
  EXPECT_EQ(d.at("s").toStringRef(), "text");
}

TEST(Pickle, LibTorchReadsNablasBytes) {
  nabla::GenericDict d;
  const auto base = nabla::arange(12, nabla::kFloat).reshape({3, 4}) * 0.5 - 1;
  d.insert_or_assign("f32", base);
  d.insert_or_assign("t", base.t());
  d.insert_or_assign("f16", nabla::arange(6, nabla::kFloat).to(nabla::kHalf));
  d.insert_or_assign("i64", nabla::arange(-3, 3, nabla::kLong));
  d.insert_or_assign("b", nabla::arange(5).remainder(2).eq(0));
  d.insert_or_assign("list", nabla::GenericList{1, "two", nabla::IValue()});
  const c10::IValue v = torch::pickle_load(nabla::pickle_save(nabla::IValue(d)));
  ASSERT_TRUE(v.isGenericDict());
  const auto dict = v.toGenericDict();
  for (const char* k : {"f32", "t", "f16", "i64", "b"}) {
    const torch::Tensor t = dict.at(k).toTensor();
    const nabla::Tensor& o = d.at(k).toTensor();
    EXPECT_EQ(t.sizes().vec(), o.sizes().vec()) << k;
    EXPECT_EQ(t.strides().vec(), o.strides().vec()) << k;
    EXPECT_EQ(bytes_of(t), bytes_of(o)) << k;
  }
  // LibTorch 1.13's reader gives each tensor a storage of its own (Python's shares them,
  // tests/io/test_torch_file.cpp): the view's values and strides are what counts here.
  const auto list = dict.at("list").toList();
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list.get(0).toInt(), 1);
  EXPECT_EQ(list.get(1).toStringRef(), "two");
  EXPECT_TRUE(list.get(2).isNone());
}

}  // namespace
