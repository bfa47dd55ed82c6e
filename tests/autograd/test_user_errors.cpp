// Exceptions thrown by user code inside autograd — a tensor hook, a custom Function's
// forward or backward — reach the caller with their own type, as in LibTorch (its engine
// stores std::current_exception() and rethrows it), and leave the library usable: grad
// mode is restored and the next forward/backward step works.
#include <gtest/gtest.h>

#include <stdexcept>

#include <nabla/nabla.h>

#include "test_util.h"

using nabla::Tensor;
using nabla::autograd::AutogradContext;
using nabla::autograd::tensor_list;

namespace {

struct UserError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A training step that must work after any of the failures below.
void expect_next_step_works() {
  EXPECT_TRUE(nabla::GradMode::is_enabled());
  Tensor w = nabla::full({3}, 2.0, nabla::kDouble).requires_grad_();
  Tensor loss = (w * w).sum();
  loss.backward();
  EXPECT_EQ(nabla::testing::values(w.grad()), (std::vector<double>{4, 4, 4}));
}

struct ThrowingForward : nabla::autograd::Function<ThrowingForward> {
  static Tensor forward(AutogradContext*, Tensor x) {
    (void)x;
    throw UserError("forward failed");
  }
  static tensor_list backward(AutogradContext*, tensor_list grads) { return grads; }
};

struct ThrowingBackward : nabla::autograd::Function<ThrowingBackward> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    ctx->save_for_backward({x});
    return x * 3;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
    Tensor x = ctx->get_saved_variables()[0];
    if (x.sum().item<double>() > 0) throw UserError("backward failed");
    NABLA_CHECK(false, "ThrowingBackward: negative input");
    return {grads[0] * 3};
  }
};

}  // namespace

TEST(UserErrors, TensorHookThrows) {
  Tensor x = nabla::ones({3}, nabla::kDouble).requires_grad_();
  Tensor h = x * 2;
  h.register_hook([](const Tensor&) -> Tensor { throw UserError("hook failed"); });
  Tensor loss = h.sum();
  EXPECT_THROW(loss.backward(), UserError);
  // A hook raising nabla::Error arrives as nabla::Error.
  Tensor x2 = nabla::ones({2}).requires_grad_();
  x2.register_hook(
      [](const Tensor& g) { NABLA_CHECK(g.numel() == 0, "hook: refused ", g.sizes()); });
  EXPECT_THROW((x2 * 2).sum().backward(), nabla::Error);
  expect_next_step_works();
}

TEST(UserErrors, CustomFunctionForwardThrows) {
  Tensor x = nabla::ones({3}, nabla::kDouble).requires_grad_();
  EXPECT_THROW(ThrowingForward::apply(x), UserError);
  // forward ran with grad mode off; the failure must not leave it off
  expect_next_step_works();
}

TEST(UserErrors, CustomFunctionBackwardThrows) {
  Tensor x = nabla::ones({3}, nabla::kDouble).requires_grad_();
  Tensor y = ThrowingBackward::apply(x).sum();
  EXPECT_THROW(y.backward(), UserError);
  Tensor neg = nabla::full({3}, -1.0, nabla::kDouble).requires_grad_();
  try {
    ThrowingBackward::apply(neg).sum().backward();
    ADD_FAILURE() << "expected nabla::Error";
  } catch (const nabla::Error& e) {
    EXPECT_NE(std::string(e.what()).find("negative input"), std::string::npos) << e.what();
  }
  expect_next_step_works();
  // Under create_graph (grad mode on inside backward) too.
  Tensor z = ThrowingBackward::apply(x).sum();
  EXPECT_THROW(nabla::autograd::grad({z}, {x}, {}, true, true), UserError);
  expect_next_step_works();
}
