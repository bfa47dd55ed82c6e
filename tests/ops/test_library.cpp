// Custom operators (nabla/ops/library.h): schemas, registration, typed calls, and the
// not-implemented fallbacks of the Autograd and ADInplaceOrView keys (Note [Custom
// operator dispatch]). The values are those of the kernels' own ops; what is checked is
// what dispatch adds: history, version counters, views and the errors.
#include <gtest/gtest.h>

#include <nabla/nabla.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

namespace library_test {

using nabla::DispatchKey;
using nabla::Tensor;
using nabla::TensorList;

template <class F>
std::string library_error_of(F&& f) {
  try {
    f();
  } catch (const nabla::Error& e) {
    return e.what();
  }
  return "";
}
#define EXPECT_LIBRARY_ERROR(stmt, fragment)                                  \
  do {                                                                        \
    std::string msg_ = library_error_of([&] { (void)(stmt); });               \
    EXPECT_NE(msg_.find(fragment), std::string::npos) << "message: " << msg_; \
  } while (0)

Tensor one(bool requires_grad = false) {
  return nabla::tensor({1.0f}).set_requires_grad(requires_grad);
}

nabla::OperatorHandle find(const char* name) {
  return nabla::Dispatcher::singleton().findSchemaOrThrow(name, "");
}

// The test kernels.
Tensor add_k(const Tensor& a, const Tensor& b) { return a + b; }
Tensor add_inplace_k(const Tensor& a, const Tensor& b) { return a.add_(b); }
std::tuple<Tensor, Tensor> two_inplace_k(const Tensor& a, const Tensor& b) {
  b.add_(a);
  a.add_(b);
  return {a, b};
}
Tensor alias_k(const Tensor& a) { return a.alias(); }
std::vector<Tensor> two_aliases_k(const Tensor& a, const Tensor&) { return {a.alias(), a.alias()}; }
std::tuple<Tensor, Tensor, int64_t> diff_sum_k(const Tensor& a, const Tensor& b) {
  return {a - b, a + b, 7};
}
std::vector<Tensor> list_k(const Tensor& a, const Tensor& b) { return {a * b, a - b}; }
Tensor mixed_k(const Tensor& a, const nabla::optional<Tensor>& b, TensorList cs, int64_t k,
               double s) {
  Tensor r = a * s + static_cast<double>(k);
  if (b) r = r + *b;
  for (const Tensor& c : cs) r = r + c;
  return r;
}

// Registers `fn` for CPU with both fallbacks, as LibTorch's tests of the fallbacks do.
struct TestOp {
  template <class F>
  TestOp(const char* schema, const char* name, F fn)
      : def(MAKE_NABLA_LIBRARY(_lib_test)),
        cpu(MAKE_NABLA_LIBRARY_IMPL(_lib_test, CPU)),
        ag(MAKE_NABLA_LIBRARY_IMPL(_lib_test, Autograd)),
        iv(MAKE_NABLA_LIBRARY_IMPL(_lib_test, ADInplaceOrView)) {
    def.def(schema);
    cpu.impl(name, DispatchKey::CPU, fn);
    ag.impl(name, DispatchKey::Autograd, nabla::autograd::autogradNotImplementedFallback());
    iv.impl(name, DispatchKey::ADInplaceOrView,
            nabla::autograd::autogradNotImplementedInplaceOrViewFallback());
  }
  nabla::Library def, cpu, ag, iv;
};

TEST(LibrarySchema, ParsesTypesAliasesAndReturns) {
  auto s = nabla::parse_schema(
      "ns::op.over(Tensor(a!) self, Tensor? other, Tensor[] xs, Tensor?[] ys, int[2] k=[1, 1], "
      "*, float alpha=1.0, str mode=\"a,b\") -> (Tensor(a!), Tensor[](b), int)");
  EXPECT_EQ(s.name(), "ns::op");
  EXPECT_EQ(s.overload_name(), "over");
  ASSERT_EQ(s.arguments().size(), 7u);
  const auto& a = s.arguments();
  EXPECT_EQ(a[0].kind(), nabla::TensorKind::Tensor);
  EXPECT_TRUE(a[0].is_write());
  EXPECT_EQ(a[0].alias_set(), "a");
  EXPECT_EQ(a[1].kind(), nabla::TensorKind::OptionalTensor);
  EXPECT_EQ(a[2].kind(), nabla::TensorKind::TensorList);
  EXPECT_EQ(a[3].kind(), nabla::TensorKind::OptionalTensorList);
  EXPECT_EQ(a[4].kind(), nabla::TensorKind::None);
  EXPECT_EQ(*a[4].default_value(), "[1, 1]");
  EXPECT_FALSE(a[4].kwarg_only());
  EXPECT_TRUE(a[5].kwarg_only());
  EXPECT_EQ(*a[6].default_value(), "\"a,b\"");
  ASSERT_EQ(s.returns().size(), 3u);
  EXPECT_TRUE(s.returns()[0].is_write());
  EXPECT_EQ(s.returns()[1].kind(), nabla::TensorKind::TensorList);
  EXPECT_EQ(s.returns()[1].alias_set(), "b");
  EXPECT_FALSE(s.returns()[1].is_write());
  EXPECT_EQ(s.str(),
            "ns::op.over(Tensor(a!) self, Tensor? other, Tensor[] xs, Tensor?[] ys, "
            "int[2] k=[1, 1], *, float alpha=1.0, str mode=\"a,b\") -> (Tensor(a!), "
            "Tensor(b)[], int)");
  EXPECT_EQ(nabla::parse_schema("f() -> ()").returns().size(), 0u);
}

TEST(LibrarySchema, BadSchemasAreRefused) {
  EXPECT_LIBRARY_ERROR(nabla::parse_schema("f(Tnsor x) -> Tensor"), "expected a type");
  EXPECT_LIBRARY_ERROR(nabla::parse_schema("f(Tensor x) Tensor"), "expected '->'");
  EXPECT_LIBRARY_ERROR(nabla::parse_schema("f(Tensor) -> Tensor"), "an argument name");
  EXPECT_LIBRARY_ERROR(nabla::parse_schema("f(Tensor x) -> Tensor junk junk"),
                       "the end of the schema");
  auto m = MAKE_NABLA_LIBRARY(_lib_test);
  EXPECT_LIBRARY_ERROR(m.def("f(Tensor(a x) -> Tensor"), "parse_schema");
  EXPECT_LIBRARY_ERROR(m.def("other_ns::f(Tensor x) -> Tensor"), "namespace other_ns");
}

TEST(Library, EachArgumentKindReachesTheKernel) {
  auto m = MAKE_NABLA_LIBRARY(_lib_test);
  m.def("mixed(Tensor a, Tensor? b, Tensor[] cs, int k, float s) -> Tensor");
  auto cpu = MAKE_NABLA_LIBRARY_IMPL(_lib_test, CPU);
  cpu.impl("mixed", NABLA_FN(mixed_k));
  auto op = find("_lib_test::mixed")
                .typed<Tensor(const Tensor&, const nabla::optional<Tensor>&, TensorList, int64_t,
                              double)>();
  Tensor a = nabla::tensor({1.0f, 2.0f}), b = nabla::tensor({10.0f, 20.0f});
  std::vector<Tensor> cs = {nabla::tensor({100.0f, 200.0f}), nabla::tensor({1000.0f, 0.0f})};
  EXPECT_TRUE(nabla::equal(op.call(a, b, cs, 3, 2.0), mixed_k(a, b, cs, 3, 2.0)));
  EXPECT_TRUE(nabla::equal(op.call(a, nabla::nullopt, {}, 0, 1.0), a));
  // Without an Autograd kernel the kernel's own ops record history (LibTorch 1.13).
  Tensor x = nabla::tensor({1.0f, 2.0f}).set_requires_grad(true);
  op.call(x, nabla::nullopt, {}, 0, 3.0).sum().backward();
  EXPECT_TRUE(nabla::equal(x.grad(), nabla::full({2}, 3.0f)));
}

TEST(Library, ReturnKinds) {
  TestOp t1("_lib_test::diff_sum(Tensor a, Tensor b) -> (Tensor, Tensor, int)", "diff_sum",
            NABLA_FN(diff_sum_k));
  auto [d, s, k] =
      nabla::callOpUnboxed<std::tuple<Tensor, Tensor, int64_t>, const Tensor&, const Tensor&>(
          find("_lib_test::diff_sum"), one(), one());
  EXPECT_EQ(d.item<float>(), 0.0f);
  EXPECT_EQ(s.item<float>(), 2.0f);
  EXPECT_EQ(k, 7);
  auto m = MAKE_NABLA_LIBRARY(_lib_test2);
  m.def("list(Tensor a, Tensor b) -> Tensor[]", &list_k);
  int calls = 0;
  m.def("nothing(Tensor a) -> ()", [&calls](const Tensor&) { ++calls; });
  auto v = find("_lib_test2::list")
               .typed<std::vector<Tensor>(const Tensor&, const Tensor&)>()
               .call(one(), one());
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].item<float>(), 1.0f);
  EXPECT_EQ(v[1].item<float>(), 0.0f);
  find("_lib_test2::nothing").typed<void(const Tensor&)>().call(one());
  EXPECT_EQ(calls, 1);
}

TEST(Library, LookupAndSignatureErrorsNameTheOperator) {
  EXPECT_LIBRARY_ERROR(find("_lib_test::missing"), "Could not find schema for _lib_test::missing");
  EXPECT_FALSE(nabla::Dispatcher::singleton().findSchema("_lib_test::missing", "").has_value());
  TestOp t("_lib_test::add(Tensor self, Tensor other) -> Tensor", "add", NABLA_FN(add_k));
  auto h = find("_lib_test::add");
  EXPECT_EQ(h.schema().str(), "_lib_test::add(Tensor self, Tensor other) -> Tensor");
  EXPECT_TRUE(h.hasKernelForDispatchKey(DispatchKey::CPU));
  EXPECT_LIBRARY_ERROR(h.typed<Tensor(const Tensor&)>(),
                       "the schema has 2 arguments, the signature 1");
  EXPECT_LIBRARY_ERROR((h.typed<Tensor(const Tensor&, int64_t)>()),
                       "argument 1 (other) is Tensor in the schema");
  EXPECT_LIBRARY_ERROR((h.typed<Tensor(Tensor, Tensor)>()),
                       "_lib_test::add was asked for the C++ signature");
  auto cpu2 = MAKE_NABLA_LIBRARY_IMPL(_lib_test, CPU);
  EXPECT_LIBRARY_ERROR(cpu2.impl("add", [](const Tensor& a) { return a; }),
                       "the schema has 2 arguments");
  EXPECT_LIBRARY_ERROR(cpu2.impl("add", [](Tensor a, Tensor) { return a; }),
                       "all kernels of an operator share one C++ signature");
  EXPECT_LIBRARY_ERROR(cpu2.impl("add", DispatchKey::Autograd, NABLA_FN(add_k)),
                       "is registered for Autograd");
  auto other = MAKE_NABLA_LIBRARY_IMPL(_lib_test, AutogradCPU);
  EXPECT_LIBRARY_ERROR(other.impl("add", NABLA_FN(add_k)), "dispatch key AutogradCPU");
  EXPECT_LIBRARY_ERROR(MAKE_NABLA_LIBRARY(_lib_test), "namespace _lib_test is already defined");
  auto frag = MAKE_NABLA_LIBRARY(_lib_test3);
  frag.def("add(Tensor a) -> Tensor");
  EXPECT_LIBRARY_ERROR(frag.def("add(Tensor b) -> Tensor"),
                       "operator _lib_test3::add is already defined");
}

TEST(Library, RegistrationsEndWithTheirLibrary) {
  {
    TestOp t("_lib_test::add(Tensor self, Tensor other) -> Tensor", "add", NABLA_FN(add_k));
    EXPECT_TRUE(nabla::Dispatcher::singleton().findSchema("_lib_test::add", "").has_value());
  }
  EXPECT_FALSE(nabla::Dispatcher::singleton().findSchema("_lib_test::add", "").has_value());
  // A newer kernel replaces an older one until its library goes.
  TestOp t("_lib_test::add(Tensor self, Tensor other) -> Tensor", "add", NABLA_FN(add_k));
  auto op = find("_lib_test::add").typed<Tensor(const Tensor&, const Tensor&)>();
  {
    auto m = MAKE_NABLA_LIBRARY_IMPL(_lib_test, CPU);
    m.impl("add", [](const Tensor& a, const Tensor& b) { return a * b; });
    EXPECT_EQ(op.call(nabla::tensor({3.0f}), nabla::tensor({4.0f})).item<float>(), 12.0f);
  }
  EXPECT_EQ(op.call(nabla::tensor({3.0f}), nabla::tensor({4.0f})).item<float>(), 7.0f);
}

TEST(LibraryFallback, OutputsOfInputsRequiringGradRaiseInBackward) {
  TestOp t("_lib_test::add(Tensor self, Tensor other) -> Tensor", "add", NABLA_FN(add_k));
  auto op = find("_lib_test::add").typed<Tensor(const Tensor&, const Tensor&)>();
  Tensor a = one(true);
  Tensor out = op.call(a, one());
  ASSERT_TRUE(out.grad_fn());
  EXPECT_EQ(out.grad_fn()->name(), "NotImplemented");
  EXPECT_EQ(out.item<float>(), 2.0f);
  EXPECT_LIBRARY_ERROR(out.backward(), "derivative for _lib_test::add is not implemented");
  EXPECT_FALSE(op.call(one(), one()).requires_grad());
  {
    nabla::NoGradGuard no_grad;
    EXPECT_FALSE(op.call(a, one()).requires_grad());
  }
  {
    nabla::InferenceMode guard;
    EXPECT_FALSE(op.call(a, one()).requires_grad());
  }
}

TEST(LibraryFallback, InPlaceArgumentsAreCheckedBumpedAndRebased) {
  TestOp t("_lib_test::add_(Tensor(a!) self, Tensor other) -> Tensor(a!)", "add_",
           NABLA_FN(add_inplace_k));
  auto op = find("_lib_test::add_").typed<Tensor(const Tensor&, const Tensor&)>();
  Tensor leaf = one(true);
  EXPECT_LIBRARY_ERROR(
      op.call(leaf, one()),
      "_lib_test::add_: a leaf Variable that requires grad is being used in an in-place");
  // A non-leaf is written; its history continues from the NotImplemented node.
  Tensor x = one(true).clone();
  const uint32_t v0 = x._version();
  Tensor r = op.call(x, one());
  EXPECT_EQ(r.unsafeGetTensorImpl(), x.unsafeGetTensorImpl());
  EXPECT_EQ(x.item<float>(), 2.0f);
  EXPECT_GT(x._version(), v0);
  EXPECT_EQ(x.grad_fn()->name(), "NotImplemented");
  // A tracked view: the base's history goes through CopySlices, the view's through
  // AsStridedBackward0 (as after a built-in in-place op on a view).
  Tensor base = nabla::ones({2}).set_requires_grad(true).clone();
  Tensor view = base.narrow(0, 0, 1);
  op.call(view, one());
  EXPECT_EQ(view.grad_fn()->name(), "AsStridedBackward0");
  EXPECT_EQ(base.grad_fn()->name(), "torch::autograd::CopySlices");
  EXPECT_LIBRARY_ERROR(base.sum().backward(), "is not implemented");
  // A view made under no_grad of a base requiring grad is refused a write with grad.
  Tensor v_nograd;
  {
    nabla::NoGradGuard no_grad;
    v_nograd = base.view(-1);
    op.call(v_nograd, one());  // allowed: no grad
  }
  EXPECT_LIBRARY_ERROR(op.call(v_nograd, one()), "A view was created in no_grad mode");
}

TEST(LibraryFallback, TwoInPlaceOutputsEachGetAnOutputOfTheNode) {
  TestOp t("_lib_test::two(Tensor(a!) self, Tensor(b!) other) -> (Tensor(a!), Tensor(b!))", "two",
           NABLA_FN(two_inplace_k));
  auto op =
      find("_lib_test::two").typed<std::tuple<Tensor, Tensor>(const Tensor&, const Tensor&)>();
  EXPECT_LIBRARY_ERROR(op.call(one(), one(true)), "a leaf Variable that requires grad");
  Tensor c = one(true).clone(), d = one(true).clone();
  const uint32_t vc = c._version(), vd = d._version();
  op.call(c, d);
  EXPECT_EQ(d.item<float>(), 2.0f);
  EXPECT_EQ(c.item<float>(), 3.0f);
  EXPECT_NE(c._version(), vc);
  EXPECT_NE(d._version(), vd);
  EXPECT_EQ(c.grad_fn(), d.grad_fn());
  EXPECT_EQ(c.output_nr(), 0u);
  EXPECT_EQ(d.output_nr(), 1u);
}

TEST(LibraryFallback, ViewOutputsAreTrackedViewsWithoutDerivative) {
  TestOp t("_lib_test::al(Tensor(a) self) -> Tensor(a)", "al", NABLA_FN(alias_k));
  auto op = find("_lib_test::al").typed<Tensor(const Tensor&)>();
  Tensor b = one();
  Tensor v = op.call(b);
  ASSERT_TRUE(v.is_view());
  EXPECT_EQ(v._base().unsafeGetTensorImpl(), b.unsafeGetTensorImpl());
  v.add_(one());  // nothing requires grad: an ordinary write
  EXPECT_EQ(b.item<float>(), 2.0f);

  Tensor b1 = one(true).clone();
  Tensor v1 = op.call(b1);
  ASSERT_TRUE(v1.is_view());
  EXPECT_EQ(v1._base().unsafeGetTensorImpl(), b1.unsafeGetTensorImpl());
  EXPECT_EQ(v1.grad_fn()->name(), "NotImplemented");
  Tensor vv = v1.view(-1);  // a view of it cannot be rebuilt either
  EXPECT_LIBRARY_ERROR(v1.add_(one(true)),
                       "Mutating the view _lib_test::al which does not have a derivative");
  b1.add_(one(true));  // the base does not know the view
  EXPECT_LIBRARY_ERROR(v1.grad_fn(), "which does not have a derivative implemented is forbidden");
  EXPECT_LIBRARY_ERROR(vv.grad_fn(), "which does not have a derivative implemented is forbidden");
}

TEST(LibraryFallback, ListViewsAndAliasRules) {
  {
    TestOp t("_lib_test::two_al(Tensor(a) self, Tensor other) -> Tensor[](a)", "two_al",
             NABLA_FN(two_aliases_k));
    auto out = nabla::callOpUnboxed<std::vector<Tensor>, const Tensor&, const Tensor&>(
        find("_lib_test::two_al"), one(), one());
    ASSERT_EQ(out.size(), 2u);
    for (const Tensor& o : out) EXPECT_TRUE(o.is_view());
  }
  {
    auto two_views = [](const Tensor& a, const Tensor& b) {
      return std::tuple<Tensor, Tensor>(a, b);
    };
    TestOp t("_lib_test::tv(Tensor(a) self, Tensor(b) other) -> (Tensor(a), Tensor(b))", "tv",
             two_views);
    EXPECT_LIBRARY_ERROR(
        (nabla::callOpUnboxed<std::tuple<Tensor, Tensor>, const Tensor&, const Tensor&>(
            find("_lib_test::tv"), one(true), one())),
        "Expected only a single output in the operator schema to have a non-write alias");
  }
  {
    auto second = [](const Tensor& a, const Tensor& b) {
      return std::tuple<Tensor, Tensor>(a.clone(), b.alias());
    };
    TestOp t("_lib_test::nf(Tensor self, Tensor(b) other) -> (Tensor, Tensor(b))", "nf", second);
    EXPECT_LIBRARY_ERROR(
        (nabla::callOpUnboxed<std::tuple<Tensor, Tensor>, const Tensor&, const Tensor&>(
            find("_lib_test::nf"), one(true), one())),
        "can only create view relationships between the first input and the first output");
  }
  TestOp t("_lib_test::self(Tensor(a) self) -> Tensor(a)", "self",
           [](const Tensor& a) { return a; });
  EXPECT_LIBRARY_ERROR(
      (nabla::callOpUnboxed<Tensor, const Tensor&>(find("_lib_test::self"), one())),
      "returned its input itself");
}

TEST(LibraryFallback, TensorListInputsGetEdges) {
  auto sum_into = [](const Tensor& a, TensorList others) {
    Tensor r = a.clone();
    for (const Tensor& o : others) r.add_(o);
    return r;
  };
  TestOp t("_lib_test::tl(Tensor self, Tensor[] other) -> Tensor", "tl", sum_into);
  auto op = find("_lib_test::tl").typed<Tensor(const Tensor&, TensorList)>();
  Tensor c = one(true);
  std::vector<Tensor> list = {one(), c};
  Tensor out = op.call(one(), list);
  EXPECT_EQ(out.item<float>(), 3.0f);
  EXPECT_LIBRARY_ERROR(nabla::autograd::grad({out}, {list[0]}), "does not require grad");
  EXPECT_LIBRARY_ERROR(nabla::autograd::grad({out}, {c}), "is not implemented");
}

TEST(Library, UserAutogradKernelRunsFirst) {
  // An Autograd kernel of the user's own: here one that gives the op a gradient through
  // ops the library differentiates, calling the CPU kernel below autograd for the value.
  auto m = MAKE_NABLA_LIBRARY(_lib_test);
  m.def("sq(Tensor x) -> Tensor");
  auto cpu = MAKE_NABLA_LIBRARY_IMPL(_lib_test, CPU);
  int cpu_calls = 0;
  cpu.impl("sq", [&cpu_calls](const Tensor& x) {
    ++cpu_calls;
    EXPECT_FALSE(nabla::GradMode::is_enabled());
    return x * x;
  });
  auto ag = MAKE_NABLA_LIBRARY_IMPL(_lib_test, Autograd);
  ag.impl("sq", [](const Tensor& x) {
    Tensor value;
    {
      nabla::AutoDispatchBelowADInplaceOrView below;
      value = find("_lib_test::sq").typed<Tensor(const Tensor&)>().call(x);
    }
    return value.detach() + (x * x - (x * x).detach());  // the value, with x*x's gradient
  });
  Tensor x = nabla::tensor({3.0f}).set_requires_grad(true);
  Tensor y = find("_lib_test::sq").typed<Tensor(const Tensor&)>().call(x);
  EXPECT_EQ(cpu_calls, 1);
  EXPECT_EQ(y.item<float>(), 9.0f);
  y.backward();
  EXPECT_EQ(x.grad().item<float>(), 6.0f);
}

}  // namespace library_test

// Static registration, as a user's library writes it.
namespace library_test {
Tensor twice(const Tensor& x) { return x * 2; }
}  // namespace library_test

NABLA_LIBRARY(_lib_static, m) {
  m.def("twice(Tensor x) -> Tensor");
  m.def("thrice(Tensor x) -> Tensor", [](const nabla::Tensor& x) { return x * 3; });
}
NABLA_LIBRARY_FRAGMENT(_lib_static, m) { m.def("twice_nd(Tensor x) -> Tensor"); }
NABLA_LIBRARY_IMPL(_lib_static, CPU, m) {
  m.impl("twice", NABLA_FN(library_test::twice));
  m.impl("twice_nd", NABLA_FN(library_test::twice));
}
NABLA_LIBRARY_IMPL(_lib_static, Autograd, m) {
  m.impl("twice_nd", nabla::autograd::autogradNotImplementedFallback());
}

namespace library_test {
TEST(Library, StaticRegistrationMacros) {
  Tensor x = nabla::tensor({1.0f, 2.0f}).set_requires_grad(true);
  auto twice_op = find("_lib_static::twice").typed<Tensor(const Tensor&)>();
  auto thrice_op = find("_lib_static::thrice").typed<Tensor(const Tensor&)>();
  auto nd_op = find("_lib_static::twice_nd").typed<Tensor(const Tensor&)>();
  EXPECT_TRUE(nabla::equal(twice_op.call(x), x * 2));
  // thrice is CompositeImplicitAutograd: differentiated through its ops.
  thrice_op.call(x).sum().backward();
  EXPECT_TRUE(nabla::equal(x.grad(), nabla::full({2}, 3.0f)));
  EXPECT_LIBRARY_ERROR(nd_op.call(x).sum().backward(), "derivative for _lib_static::twice_nd");
  auto names = nabla::Dispatcher::singleton().getAllOpNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "_lib_static::thrice"), names.end());
}
}  // namespace library_test

#undef EXPECT_LIBRARY_ERROR
