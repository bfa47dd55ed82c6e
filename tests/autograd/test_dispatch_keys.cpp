// The dispatch-key state LibTorch programs read (nabla/autograd/dispatch_key.h), derived
// from InferenceMode and the below-autograd guards, and TensorImpl's version counter
// handle.
#include <gtest/gtest.h>

#include <nabla/nabla.h>

#include <string>
#include <vector>

namespace dispatch_keys_test {

using nabla::DispatchKey;

// LibTorch's TLS sets: autograd excluded and ADInplaceOrView out of the included set
// exactly inside InferenceMode; ADInplaceOrView is never excluded there.
void expect_tls(bool inference) {
  namespace impl = nabla::impl;
  EXPECT_EQ(nabla::InferenceMode::is_enabled(), inference);
  EXPECT_FALSE(impl::tls_is_dispatch_key_excluded(DispatchKey::ADInplaceOrView));
  EXPECT_FALSE(impl::tls_is_dispatch_keyset_included(nabla::autograd_dispatch_keyset));
  EXPECT_EQ(impl::tls_is_dispatch_keyset_excluded(nabla::autograd_dispatch_keyset), inference);
  EXPECT_EQ(impl::tls_is_dispatch_key_included(DispatchKey::ADInplaceOrView), !inference);
  EXPECT_EQ(nabla::GradMode::is_enabled(), !inference);
}

TEST(DispatchKeys, TlsStateFollowsInferenceMode) {
  expect_tls(false);
  {
    nabla::InferenceMode on;
    expect_tls(true);
    {
      nabla::InferenceMode off(false);
      expect_tls(false);
    }
    expect_tls(true);
  }
  expect_tls(false);
}

TEST(DispatchKeys, BelowAutogradGuards) {
  {
    nabla::AutoDispatchBelowAutograd below;
    EXPECT_TRUE(nabla::impl::tls_is_dispatch_keyset_excluded(nabla::autograd_dispatch_keyset));
    EXPECT_FALSE(nabla::impl::tls_is_dispatch_key_excluded(DispatchKey::ADInplaceOrView));
    // The ops inside record nothing.
    nabla::Tensor x = nabla::ones({2}).set_requires_grad(true);
    EXPECT_FALSE((x * 2).requires_grad());
  }
  {
    nabla::AutoDispatchBelowADInplaceOrView below;
    EXPECT_TRUE(nabla::impl::tls_is_dispatch_key_excluded(DispatchKey::ADInplaceOrView));
  }
  EXPECT_FALSE(nabla::impl::tls_is_dispatch_keyset_excluded(nabla::autograd_dispatch_keyset));
  EXPECT_TRUE(nabla::GradMode::is_enabled());
  EXPECT_EQ(nabla::to_string(DispatchKey::ADInplaceOrView), "ADInplaceOrView");
}

struct Collect : nabla::WarningHandler {
  std::vector<std::string> seen;
  void process(const nabla::SourceLocation&, const std::string& msg, bool) override {
    seen.push_back(msg);
  }
};

TEST(DispatchKeys, AutoNonVariableTypeModeWarnsItIsDeprecated) {
  nabla::Warning::WarnAlways always(true);
  Collect collect;
  nabla::WarningUtils::WarningHandlerGuard guard(&collect);
  {
    nabla::AutoNonVariableTypeMode mode;
    EXPECT_TRUE(nabla::impl::tls_is_dispatch_keyset_excluded(nabla::autograd_dispatch_keyset));
  }
  ASSERT_EQ(collect.seen.size(), 1u);
  EXPECT_NE(collect.seen[0].find("AutoNonVariableTypeMode is deprecated"), std::string::npos);
}

TEST(VersionCounter, ReadsTheSharedCounterAndRefusesInferenceTensors) {
  nabla::Tensor c = nabla::ones({2, 3});
  nabla::Tensor v = c.view({6});
  auto* impl = c.unsafeGetTensorImpl();
  const uint32_t v0 = impl->version_counter().current_version();
  EXPECT_EQ(v0, c._version());
  v.unsafeGetTensorImpl()->bump_version();  // a view shares the counter
  EXPECT_EQ(impl->version_counter().current_version(), v0 + 1);
  c.add_(1);
  EXPECT_EQ(impl->version_counter().current_version(), c._version());

  nabla::Tensor t;
  {
    nabla::InferenceMode guard;
    t = nabla::ones({1, 2, 3});
    EXPECT_FALSE(t.unsafeGetTensorImpl()->version_counter().enabled());
    EXPECT_THROW(t.unsafeGetTensorImpl()->version_counter().current_version(), nabla::Error);
    t.unsafeGetTensorImpl()->bump_version();  // allowed inside InferenceMode
  }
  try {
    t.unsafeGetTensorImpl()->version_counter().current_version();
    ADD_FAILURE() << "no error";
  } catch (const nabla::Error& e) {
    EXPECT_NE(std::string(e.what()).find("Inference tensors do not track version counter."),
              std::string::npos);
  }
  try {
    t.unsafeGetTensorImpl()->bump_version();
    ADD_FAILURE() << "no error";
  } catch (const nabla::Error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "Inplace update to inference tensor outside InferenceMode is not allowed."),
              std::string::npos);
  }
}

}  // namespace dispatch_keys_test
