// InferenceMode and inference tensors; LibTorch's autograd spellings (Variable,
// make_variable, tensor_data, set_requires_grad returning the tensor).
#include <nabla/nabla.h>

#include <gtest/gtest.h>

#include "test_util.h"

namespace nabla::testing {
namespace {

TEST(InferenceMode, TensorsMadeInsideAreInferenceTensors) {
  Tensor normal = ones({2, 3}, requires_grad());
  EXPECT_FALSE(normal.is_inference());
  Tensor made, computed, view_of_normal;
  {
    InferenceMode guard;
    EXPECT_TRUE(InferenceMode::is_enabled());
    EXPECT_FALSE(GradMode::is_enabled());
    made = ones({2, 3});
    computed = normal * 2;  // a new storage: an inference tensor, no graph
    view_of_normal = normal.view({3, 2});
    {
      InferenceMode off(false);
      EXPECT_FALSE(InferenceMode::is_enabled());
      EXPECT_TRUE(GradMode::is_enabled());
      EXPECT_FALSE(ones({1}).is_inference());
    }
    made.add_(1);  // in-place inside: allowed
    Tensor r = ones({1}).set_requires_grad(true);
    EXPECT_TRUE(r.requires_grad());
    EXPECT_TRUE(r.is_inference());
  }
  EXPECT_FALSE(InferenceMode::is_enabled());
  EXPECT_TRUE(made.is_inference());
  EXPECT_TRUE(computed.is_inference());
  EXPECT_FALSE(computed.requires_grad());
  EXPECT_FALSE(view_of_normal.is_inference()) << "a view of a normal tensor stays normal";
  EXPECT_TRUE(allclose(made, full({2, 3}, 2.0)));
}

TEST(InferenceMode, InferenceTensorsRefuseAutogradUseOutside) {
  Tensor t;
  {
    InferenceMode guard;
    t = ones({3});
  }
  expect_error([&] { t.add_(1); },
               {"Inplace update to inference tensor outside InferenceMode is not allowed"});
  expect_error([&] { (void)t._version(); }, {"Inference tensors do not track version counter"});
  expect_error([&] { t.requires_grad_(true); },
               {"Setting requires_grad=True on inference tensor outside InferenceMode"});
  Tensor w = ones({3}, requires_grad());
  expect_error([&] { (void)(w * t); }, {"Inference tensors cannot be saved for backward"});
  // Functional use without autograd, and a clone, are fine.
  EXPECT_TRUE(allclose(t + 1, full({3}, 2.0)));
  Tensor c = t.clone();
  EXPECT_FALSE(c.is_inference());
  c.add_(1);
  Tensor y = (w * c).sum();
  y.backward();
  EXPECT_TRUE(allclose(w.grad(), c));
}

// An inference tensor takes no part in autograd: ops on it alone record nothing, even
// when its requires_grad flag was set inside the mode.
TEST(InferenceMode, OpsOnInferenceTensorsRecordNothingOutside) {
  Tensor t;
  {
    InferenceMode guard;
    t = ones({3}).set_requires_grad(true);
  }
  EXPECT_TRUE(t.requires_grad());
  Tensor y = t * t;
  EXPECT_FALSE(y.requires_grad());
  EXPECT_FALSE(y.is_inference());
}

// A number used inside InferenceMode (an inference constant) is not reused outside it,
// where autograd saves it.
TEST(InferenceMode, ConstantsMadeInsideAreNotReusedOutside) {
  Tensor a = ones({2}, requires_grad()).clone();
  {
    InferenceMode guard;
    a.mul_(3);
  }
  a.mul_(3);  // saves the constant 3 for backward
  Tensor b = a * 3;
  b.sum().backward();
  EXPECT_FALSE(b.is_inference());
}

TEST(InferenceMode, AnInplaceChangeInsideStillInvalidatesSavedTensors) {
  Tensor s = ones({2}, requires_grad());
  Tensor a = s.clone();
  Tensor out = a * a;
  {
    InferenceMode guard;
    a.mul_(1);  // a normal tensor: its version moves
  }
  expect_error([&] { out.sum().backward(); }, {"modified by an inplace operation"});
}

// A view made with grad off of a tensor requiring grad requires grad too (a leaf), and
// writing it in place with grad on is refused, naming the mode it was made in.
TEST(InferenceMode, ViewsMadeWithGradOffKeepRequiresGradAndRefuseWritesWithGrad) {
  Tensor s = ones({2, 3}).requires_grad_();
  Tensor a = s.clone();
  Tensor no_grad_view, inference_view, plain_view;
  {
    NoGradGuard g;
    no_grad_view = a.view({3, 2});
  }
  {
    InferenceMode g;
    inference_view = a.view({6});
    EXPECT_FALSE(inference_view.is_inference());
  }
  EXPECT_TRUE(no_grad_view.is_leaf());
  {
    NoGradGuard g;
    plain_view = ones({2}).view({2});
    no_grad_view.mul_(2);  // allowed with grad off
  }
  EXPECT_TRUE(no_grad_view.requires_grad());
  // ... but its history is now lost, and asking for it says so (as PyTorch 1.13 does).
  expect_error([&] { (void)no_grad_view.is_leaf(); }, {"created in no_grad mode"});
  EXPECT_TRUE(inference_view.requires_grad());
  EXPECT_FALSE(plain_view.requires_grad());
  expect_error([&] { no_grad_view.add_(1); }, {"add_", "A view was created in no_grad mode"});
  expect_error([&] { inference_view.add_(1); },
               {"add_", "A view was created in inference mode and is being modified inplace"});
  // A view of such a view remembers where its base came from.
  Tensor again;
  {
    NoGradGuard g;
    again = inference_view.view({2, 3});
  }
  expect_error([&] { again.add_(1); }, {"created in inference mode"});
}

TEST(AutogradSpellings, VariableMakeVariableAndTensorData) {
  autograd::Variable v = ones({2}, requires_grad());
  autograd::variable_list list{v, v * 2};
  EXPECT_EQ(list.size(), 2u);
  Tensor data = v.tensor_data();
  EXPECT_FALSE(data.requires_grad());
  EXPECT_EQ(data.data_ptr(), v.data_ptr());
  Tensor leaf = autograd::make_variable(data, /*requires_grad=*/true);
  EXPECT_TRUE(leaf.requires_grad());
  EXPECT_TRUE(leaf.is_leaf());
  EXPECT_EQ(leaf.data_ptr(), v.data_ptr());
  EXPECT_EQ(v.variable_data().data_ptr(), v.data_ptr());
  // set_requires_grad returns the tensor, so it chains.
  Tensor x = zeros({3}).set_requires_grad(true);
  EXPECT_TRUE(x.requires_grad());
  expect_error([&] { (void)x.to(TensorOptions().requires_grad(true)); },
               {"to(options)", "requires_grad"});
}

TEST(AutogradSpellings, BackwardWithCreateGraphWarnsOnce) {
  struct Collect : WarningHandler {
    int n = 0;
    void process(const SourceLocation&, const std::string& msg, bool) override {
      n += msg.find("create_graph=True") != std::string::npos;
    }
  } collect;
  WarningUtils::WarningHandlerGuard guard(&collect);
  Warning::WarnAlways always;
  Tensor x = ones({2}, requires_grad());
  (x * x).sum().backward({}, nullopt, /*create_graph=*/true);
  EXPECT_EQ(collect.n, 1);
  x.mutable_grad() = Tensor();  // the cycle the warning is about (LeakSanitizer sees it)
}

// Note [Views and in-place]: a view made in InferenceMode or under no_grad of a base that
// requires grad has no usable history once the base is written in place; its grad_fn()
// says so (a base that needs no gradient leaves nothing to lose).
TEST(InferenceMode, ViewOfRewrittenBaseRefusesGradFn) {
  for (bool requires_grad : {true, false}) {
    Tensor a = ones({2, 3}).set_requires_grad(requires_grad).clone();
    Tensor in_inference, in_no_grad;
    {
      InferenceMode guard;
      in_inference = a.view({6});
    }
    {
      NoGradGuard guard;
      in_no_grad = a.view({6});
    }
    EXPECT_NO_THROW((void)in_inference.grad_fn());
    a.mul_(2);
    if (requires_grad) {
      expect_error([&] { (void)in_inference.grad_fn(); },
                   {"grad_fn",
                    "A view was created in inference mode and its base or another "
                    "view of its base has been modified inplace"});
      expect_error([&] { (void)in_no_grad.grad_fn(); },
                   {"A view was created in no_grad mode", "with grad mode enabled"});
    } else {
      EXPECT_EQ(in_inference.grad_fn(), nullptr);
      EXPECT_EQ(in_no_grad.grad_fn(), nullptr);
    }
  }
}

}  // namespace
}  // namespace nabla::testing
