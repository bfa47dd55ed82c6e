// core stands alone (docs/architecture.md, "Layers"): this program links core's objects
// and nothing else of nabla, so a call from core into a higher layer would fail to link
// here. It checks what core does by itself: tensors' metadata and storage, the errors
// about them, generators' states and tensors' autograd state being freed.
#include <gtest/gtest.h>

#include <nabla/core/autograd_meta.h>
#include <nabla/core/generator.h>
#include <nabla/core/tensor.h>
#include <nabla/core/tensor_impl.h>

#include <string>

using namespace nabla;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(CoreAlone, MetadataOfAContiguousTensor) {
  const Tensor t = empty_contiguous({2, 3, 4}, kFloat);
  EXPECT_EQ(t.dim(), 3);
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.size(-1), 4);
  EXPECT_EQ(t.stride(0), 12);
  EXPECT_EQ(t.stride(-2), 4);
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_FALSE(t.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_TRUE(t.is_non_overlapping_and_dense());
  EXPECT_EQ(t.options().dtype(), kFloat);
  float* p = t.data_ptr<float>();
  for (int i = 0; i < 24; ++i) p[i] = static_cast<float>(i);
  EXPECT_EQ(t.data_ptr<float>()[23], 23.0f);
}

TEST(CoreAlone, ErrorsNameWhatWasWrong) {
  const Tensor t = empty_contiguous({2, 3}, kDouble);
  EXPECT_NE(error_of([&] { (void)t.size(2); }).find("size: dimension out of range"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)t.data_ptr<float>(); }).find("expected scalar type Float"),
            std::string::npos);
  EXPECT_NE(error_of([] { (void)Tensor().dim(); }).find("undefined Tensor"), std::string::npos);
  EXPECT_EQ(detail::wrap_dim(-1, 0, "x"), 0);  // a 0-d tensor takes -1 and 0
}

TEST(CoreAlone, GeneratorStateRoundTrips) {
  Generator g(42);
  const Tensor state = g.get_state();
  EXPECT_EQ(state.scalar_type(), kByte);
  Generator h(7);
  h.set_state(state);
  EXPECT_EQ(h.current_seed(), 42u);
  EXPECT_NE(error_of([&] { h.set_state(empty_contiguous({3}, kByte)); }).find("5056 bytes"),
            std::string::npos);
}

TEST(CoreAlone, AutogradStateIsFreedWithItsTensor) {
  Tensor t = empty_contiguous({2}, kFloat);
  autograd::AutogradMeta& meta = t.impl()->ensure_autograd_meta();
  meta.requires_grad = true;
  EXPECT_EQ(t.impl()->autograd_meta(), &meta);
  t = Tensor();  // ~AutogradMeta without a grad_fn: nothing of autograd's is called
}
