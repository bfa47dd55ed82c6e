#pragma once
// Custom operators: LibTorch's operator registration API (TORCH_LIBRARY, torch::Library,
// c10::Dispatcher, OperatorHandle::typed<Sig>().call(...)), spelled nabla::.
//
//   Tensor my_add(const Tensor& a, const Tensor& b) { return a + b; }
//   NABLA_LIBRARY(myops, m) { m.def("my_add(Tensor self, Tensor other) -> Tensor"); }
//   NABLA_LIBRARY_IMPL(myops, CPU, m) { m.impl("my_add", NABLA_FN(my_add)); }
//   NABLA_LIBRARY_IMPL(myops, Autograd, m) {
//     m.impl("my_add", nabla::autograd::autogradNotImplementedFallback());
//   }
//   auto op = nabla::Dispatcher::singleton().findSchemaOrThrow("myops::my_add", "")
//                 .typed<Tensor(const Tensor&, const Tensor&)>();
//   Tensor y = op.call(x, x);
//
// Note [Custom operator dispatch]
// The registry holds one entry per "ns::name" + overload: its schema, parsed once at def
// (argument types Tensor, Tensor?, Tensor[], Tensor?[] and the non-tensor ones, alias
// annotations (a) and (a!), returns: one type, a tuple, or none), and per dispatch key the
// kernels registered for it, the newest in force (a Library's destructor takes its own
// back). Kernels are C++ functions stored type-erased with their signature's type_info:
// typed<Sig>() checks Sig against the schema (arity, which arguments and returns hold
// tensors) and against the kernels, and raises a nabla::Error naming the operator
// otherwise. call() walks its arguments with templates (Tensor, optional<Tensor>,
// TensorList / vector<Tensor>, anything else holds no tensor) and hands the tensors, by
// argument, to the one non-template dispatcher (src/ops/registry/library.cpp), which runs:
//  1. Autograd (skipped inside InferenceMode or below AutoDispatchBelowAutograd): a user
//     kernel, or autogradNotImplementedFallback: when grad mode is on and a tensor input
//     requires grad, the outputs get a NotImplemented node whose backward raises
//     "derivative for <op> is not implemented"; in-place arguments (a!) are checked as
//     nabla's in-place ops check them and their history is rebased onto that node.
//  2. ADInplaceOrView (when some input is not an inference tensor, and not below
//     AutoDispatchBelowADInplaceOrView): autogradNotImplementedInplaceOrViewFallback bumps
//     the version of the (a!) outputs and makes a (a) output a view of the first input
//     that autograd tracks (Note [Views and in-place], src/ops/shape/views_backward.h), without
//     a derivative: writing it with grad, or reading its grad_fn after its storage
//     changed, raises.
//  3. The backend kernel (CPU or CUDA, from the first tensor input's device), else the
//     CompositeImplicitAutograd one. Below step 1 it runs with grad mode off, as LibTorch
//     runs it below the autograd keys; without an Autograd kernel it runs with the
//     caller's grad mode, so the ops inside record their own history (LibTorch 1.13's
//     fallthrough). A CompositeImplicitAutograd kernel and no Autograd kernel: it runs
//     at step 1, with grad mode on.
// Not supported: boxed kernels and fallbacks (callBoxed, stacks), redispatch with a
// DispatchKeySet argument, other dispatch keys, TorchScript (docs/compat.md).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "nabla/autograd/dispatch_key.h"
#include "nabla/core/optional.h"
#include "nabla/core/tensor.h"

namespace nabla {

// ---- Schemas ---------------------------------------------------------------------------

/// What an argument or return holds, as far as dispatch looks at it.
enum class TensorKind : uint8_t { None, Tensor, OptionalTensor, TensorList, OptionalTensorList };

/// One argument or return of a schema: `Tensor(a!) self`, `int[2] stride=1`, `Tensor[]`.
class Argument {
 public:
  Argument(std::string name, std::string type, TensorKind kind, std::string alias_set,
           bool is_write, optional<std::string> default_value, bool kwarg_only)
      : name_(std::move(name)),
        type_(std::move(type)),
        alias_set_(std::move(alias_set)),
        default_value_(std::move(default_value)),
        kind_(kind),
        is_write_(is_write),
        kwarg_only_(kwarg_only) {}
  const std::string& name() const { return name_; }
  /// The type as written, without the alias annotation ("Tensor?", "int[2]").
  const std::string& type() const { return type_; }
  TensorKind kind() const { return kind_; }
  /// The alias set of `Tensor(a)` / `Tensor(a!)` ("a"), empty when not annotated.
  const std::string& alias_set() const { return alias_set_; }
  bool is_aliasing() const { return !alias_set_.empty(); }
  /// Annotated `(x!)`: the operator writes it.
  bool is_write() const { return is_write_; }
  const optional<std::string>& default_value() const { return default_value_; }
  bool kwarg_only() const { return kwarg_only_; }

 private:
  std::string name_, type_, alias_set_;
  optional<std::string> default_value_;
  TensorKind kind_;
  bool is_write_, kwarg_only_;
};

class FunctionSchema {
 public:
  FunctionSchema(std::string name, std::string overload_name, std::vector<Argument> arguments,
                 std::vector<Argument> returns)
      : name_(std::move(name)),
        overload_name_(std::move(overload_name)),
        arguments_(std::move(arguments)),
        returns_(std::move(returns)) {}
  /// "ns::op" (or "op" when the schema named no namespace).
  const std::string& name() const { return name_; }
  const std::string& overload_name() const { return overload_name_; }
  const std::vector<Argument>& arguments() const { return arguments_; }
  const std::vector<Argument>& returns() const { return returns_; }
  /// The schema written back: "ns::op.overload(Tensor(a!) self, int n=1) -> Tensor(a!)".
  std::string str() const;

 private:
  std::string name_, overload_name_;
  std::vector<Argument> arguments_, returns_;
};
std::ostream& operator<<(std::ostream& os, const FunctionSchema& schema);

/// Parses a schema as LibTorch's def() takes it; a nabla::Error saying what and where
/// when the text is not one.
FunctionSchema parse_schema(std::string_view text);

// ---- Kernels ---------------------------------------------------------------------------

namespace detail {
class OperatorEntry;

/// A kernel's or a call's C++ signature, and what dispatch reads of it.
struct CppSignature {
  const std::type_info* type;
  std::vector<TensorKind> args, rets;
};

template <class T>
constexpr TensorKind kind_of() {
  using U = std::remove_cvref_t<T>;
  if constexpr (std::is_same_v<U, Tensor>)
    return TensorKind::Tensor;
  else if constexpr (std::is_same_v<U, optional<Tensor>>)
    return TensorKind::OptionalTensor;
  else if constexpr (std::is_same_v<U, TensorList> || std::is_same_v<U, std::vector<Tensor>>)
    return TensorKind::TensorList;
  else if constexpr (std::is_same_v<U, std::vector<optional<Tensor>>>)
    return TensorKind::OptionalTensorList;
  else
    return TensorKind::None;
}

template <class R>
struct ReturnKinds {
  static std::vector<TensorKind> get() { return {kind_of<R>()}; }
};
template <>
struct ReturnKinds<void> {
  static std::vector<TensorKind> get() { return {}; }
};
template <class... Ts>
struct ReturnKinds<std::tuple<Ts...>> {
  static std::vector<TensorKind> get() { return {kind_of<Ts>()...}; }
};

template <class Sig>
struct SignatureOf;
template <class R, class... Args>
struct SignatureOf<R(Args...)> {
  static CppSignature get() {
    return {&typeid(R(Args...)), {kind_of<Args>()...}, ReturnKinds<R>::get()};
  }
};

/// The tensors of one call, each with the index of the argument (or return) holding it.
struct SlotTensor {
  uint32_t slot;
  const Tensor* tensor;
};
using SlotTensors = std::vector<SlotTensor>;

template <class T>
void collect(const T& value, uint32_t slot, SlotTensors& out) {
  constexpr TensorKind kind = kind_of<T>();
  if constexpr (kind == TensorKind::Tensor) {
    if (value.defined()) out.push_back({slot, &value});
  } else if constexpr (kind == TensorKind::OptionalTensor) {
    if (value.has_value() && value->defined()) out.push_back({slot, &*value});
  } else if constexpr (kind == TensorKind::TensorList) {
    for (const Tensor& t : value)
      if (t.defined()) out.push_back({slot, &t});
  } else if constexpr (kind == TensorKind::OptionalTensorList) {
    for (const auto& t : value)
      if (t.has_value() && t->defined()) out.push_back({slot, &*t});
  }
}
template <class T>
struct IsTuple : std::false_type {};
template <class... T>
struct IsTuple<std::tuple<T...>> : std::true_type {};
template <class R>
void collect_returns(const R& r, SlotTensors& out) {
  if constexpr (IsTuple<R>::value) {
    [&]<size_t... I>(std::index_sequence<I...>) {
      (collect(std::get<I>(r), static_cast<uint32_t>(I), out), ...);
    }
    (std::make_index_sequence<std::tuple_size_v<R>>());
  } else {
    collect(r, 0, out);
  }
}

/// Runs the chosen kernel (a `const std::function<Sig>*`) on the call's arguments and
/// returns the result's tensors; a reference to the caller's lambda, called once.
class RunKernel {
 public:
  template <class F>
  explicit RunKernel(F& f)
      : obj_(&f), fn_([](void* o, const void* k) { return (*static_cast<F*>(o))(k); }) {}
  SlotTensors operator()(const void* kernel) const { return fn_(obj_, kernel); }

 private:
  void* obj_;
  SlotTensors (*fn_)(void*, const void*);
};

/// The dispatcher (Note [Custom operator dispatch]).
void call_operator(const OperatorEntry& op, const SlotTensors& inputs, const std::type_info& sig,
                   RunKernel run);
/// Raises unless `sig` fits op's schema and kernels.
void check_call_signature(const OperatorEntry& op, const CppSignature& sig);

template <class Sig>
struct FunctionTraits;
template <class R, class... Args>
struct FunctionTraits<R(Args...)> {
  using type = R(Args...);
};
template <class R, class... Args>
struct FunctionTraits<R (*)(Args...)> : FunctionTraits<R(Args...)> {};
template <class C, class R, class... Args>
struct FunctionTraits<R (C::*)(Args...) const> : FunctionTraits<R(Args...)> {};
template <class C, class R, class... Args>
struct FunctionTraits<R (C::*)(Args...)> : FunctionTraits<R(Args...)> {};
}  // namespace detail

/// A function known at compile time (what NABLA_FN makes).
template <class FuncType, FuncType* kFunc>
struct CompileTimeFunctionPointer {
  using Func = FuncType;
  static constexpr FuncType* func_ptr() { return kFunc; }
};
/// LibTorch's TORCH_FN: a kernel function for Library::impl.
#define NABLA_FN(func)                 \
  ::nabla::CompileTimeFunctionPointer< \
      std::remove_pointer_t<std::remove_reference_t<decltype(func)>>, func>()

/// A kernel as Library::impl and def take it: a C++ function (pointer, NABLA_FN, lambda or
/// other functor with one call operator), a fallback below, or a fallthrough; optionally
/// bound to a key (nabla::dispatch).
class CppFunction {
 public:
  enum class Kind : uint8_t {
    Unboxed,
    AutogradNotImplemented,
    InplaceOrViewNotImplemented,
    Fallthrough
  };

  template <class FuncType, FuncType* kFunc>
  CppFunction(CompileTimeFunctionPointer<FuncType, kFunc>)  // NOLINT: as LibTorch's
      : CppFunction(make<FuncType>(kFunc)) {}
  template <class R, class... Args>
  CppFunction(R (*fn)(Args...))  // NOLINT: as LibTorch's
      : CppFunction(make<R(Args...)>(fn)) {}
  template <
      class F,
      class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, CppFunction> &&
                               !std::is_pointer_v<std::decay_t<F>>>,
      class Sig = typename detail::FunctionTraits<decltype(&std::decay_t<F>::operator())>::type>
  CppFunction(F&& functor)  // NOLINT: as LibTorch's
      : CppFunction(make<Sig>(std::function<Sig>(std::forward<F>(functor)))) {}

  /// Skips the key: the call goes on to the next one.
  static CppFunction makeFallthrough() { return CppFunction(Kind::Fallthrough); }

  Kind kind() const { return kind_; }
  const optional<DispatchKey>& dispatch_key() const { return key_; }
  /// The C++ signature (Unboxed kernels only).
  const detail::CppSignature* signature() const { return signature_.get(); }
  /// A `const std::function<Sig>*` (Unboxed kernels only).
  const std::shared_ptr<const void>& function() const { return fn_; }

 private:
  friend CppFunction autograd_not_implemented_function(Kind);
  template <class Func>
  friend CppFunction dispatch(DispatchKey key, Func&& f);
  explicit CppFunction(Kind kind) : kind_(kind) {}
  template <class Sig, class F>
  static CppFunction make(F&& f) {
    CppFunction c(Kind::Unboxed);
    c.fn_ = std::make_shared<const std::function<Sig>>(std::forward<F>(f));
    c.signature_ = std::make_shared<const detail::CppSignature>(detail::SignatureOf<Sig>::get());
    return c;
  }

  Kind kind_;
  optional<DispatchKey> key_;
  std::shared_ptr<const void> fn_;
  std::shared_ptr<const detail::CppSignature> signature_;
};

CppFunction autograd_not_implemented_function(CppFunction::Kind kind);

/// `f` registered under `key` (LibTorch's torch::dispatch).
template <class Func>
CppFunction dispatch(DispatchKey key, Func&& f) {
  CppFunction c(std::forward<Func>(f));
  c.key_ = key;
  return c;
}

namespace autograd {
/// The Autograd kernel of an operator without a derivative (Note [Custom operator
/// dispatch]): its outputs' backward raises "derivative for <op> is not implemented".
inline CppFunction autogradNotImplementedFallback() {
  return autograd_not_implemented_function(CppFunction::Kind::AutogradNotImplemented);
}
/// Its ADInplaceOrView partner: version bumps for (a!) outputs, and a (a) output of the
/// first input made a view of it (which must be the first output).
inline CppFunction autogradNotImplementedInplaceOrViewFallback() {
  return autograd_not_implemented_function(CppFunction::Kind::InplaceOrViewNotImplemented);
}
}  // namespace autograd
using autograd::autogradNotImplementedFallback;
using autograd::autogradNotImplementedInplaceOrViewFallback;

// ---- Operators -------------------------------------------------------------------------

template <class Sig>
class TypedOperatorHandle;

/// A registered operator (found through the Dispatcher). Stays valid for the process:
/// entries are never freed, only emptied.
class OperatorHandle {
 public:
  const FunctionSchema& schema() const;
  /// "ns::op" and the overload name.
  const std::string& name() const;
  const std::string& overload_name() const;
  bool hasSchema() const;
  /// Whether a kernel is registered for `key`.
  bool hasKernelForDispatchKey(DispatchKey key) const;
  /// This operator called with the C++ signature Sig: raises unless Sig has the schema's
  /// arity and tensor arguments and returns where the schema has them, and is the
  /// signature of its kernels.
  template <class Sig>
  TypedOperatorHandle<Sig> typed() const {
    detail::check_call_signature(*entry_, detail::SignatureOf<Sig>::get());
    return TypedOperatorHandle<Sig>(entry_);
  }

 protected:
  friend class Dispatcher;
  explicit OperatorHandle(const detail::OperatorEntry* entry) : entry_(entry) {}
  const detail::OperatorEntry* entry_;
};

template <class R, class... Args>
class TypedOperatorHandle<R(Args...)> : public OperatorHandle {
 public:
  /// Runs the operator's kernels for this call (Note [Custom operator dispatch]).
  R call(Args... args) const {
    detail::SlotTensors inputs;
    uint32_t slot = 0;
    (detail::collect(args, slot++, inputs), ...);
    using Fn = std::function<R(Args...)>;
    if constexpr (std::is_void_v<R>) {
      auto run = [&](const void* k) {
        (*static_cast<const Fn*>(k))(std::forward<Args>(args)...);
        return detail::SlotTensors{};
      };
      detail::call_operator(*entry_, inputs, typeid(R(Args...)), detail::RunKernel(run));
    } else if constexpr (std::is_reference_v<R>) {  // an in-place kernel's `Tensor&`
      std::remove_reference_t<R>* result = nullptr;
      auto run = [&](const void* k) {
        result = &(*static_cast<const Fn*>(k))(std::forward<Args>(args)...);
        detail::SlotTensors out;
        detail::collect_returns(*result, out);
        return out;
      };
      detail::call_operator(*entry_, inputs, typeid(R(Args...)), detail::RunKernel(run));
      return static_cast<R>(*result);
    } else {
      optional<R> result;
      auto run = [&](const void* k) {
        result.emplace((*static_cast<const Fn*>(k))(std::forward<Args>(args)...));
        detail::SlotTensors out;
        detail::collect_returns(*result, out);
        return out;
      };
      detail::call_operator(*entry_, inputs, typeid(R(Args...)), detail::RunKernel(run));
      return std::move(*result);
    }
  }

 private:
  friend class OperatorHandle;
  explicit TypedOperatorHandle(const detail::OperatorEntry* entry) : OperatorHandle(entry) {}
};

/// The registry of custom operators (LibTorch's c10::Dispatcher, its unboxed part).
class Dispatcher {
 public:
  static Dispatcher& singleton();
  /// The operator `name` ("ns::op") with overload `overload_name` ("" for none), if defined.
  optional<OperatorHandle> findSchema(const std::string& name,
                                      const std::string& overload_name) const;
  /// The same, raising a nabla::Error naming it when it is not defined.
  OperatorHandle findSchemaOrThrow(const char* name, const char* overload_name) const;
  /// The names ("ns::op.overload") of all defined operators, sorted.
  std::vector<std::string> getAllOpNames() const;

 private:
  Dispatcher() = default;
};

/// LibTorch's test helper: calls `op` with the C++ signature Result(Args...).
template <class Result, class... Args>
Result callOpUnboxed(const OperatorHandle& op, Args... args) {
  return op.typed<Result(Args...)>().call(std::forward<Args>(args)...);
}

// ---- Registration ----------------------------------------------------------------------

/// A set of registrations for one namespace (LibTorch's torch::Library): DEF defines
/// operators (one DEF library per namespace at a time), IMPL registers kernels under one
/// key, FRAGMENT defines more operators of a namespace. Its registrations last as long
/// as it does: the static ones of NABLA_LIBRARY for the process, MAKE_NABLA_LIBRARY's
/// until it is destroyed.
class Library {
 public:
  enum Kind { DEF, IMPL, FRAGMENT };
  Library(Kind kind, std::string ns, optional<DispatchKey> key, const char* file, uint32_t line);
  ~Library();
  Library(Library&& other) noexcept;
  Library& operator=(Library&&) = delete;
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  /// Defines an operator from its schema; a name without namespace gets this library's.
  Library& def(const std::string& schema) &;
  /// Defines it and registers `f` as its CompositeImplicitAutograd kernel.
  template <class Func>
  Library& def(const std::string& schema, Func&& f) & {
    def(schema);
    return impl(def_name(schema).c_str(), CppFunction(std::forward<Func>(f)));
  }
  /// Registers a kernel of operator `name` ("op", "op.overload" or "ns::op") under `f`'s
  /// key, else this IMPL library's key, else CompositeImplicitAutograd.
  template <class Func>
  Library& impl(const char* name, Func&& f) & {
    return register_kernel(name, CppFunction(std::forward<Func>(f)));
  }
  /// The same under `key` (which must agree with an IMPL library's own).
  template <class Func>
  Library& impl(const char* name, DispatchKey key, Func&& f) & {
    return register_kernel(name, dispatch(key, std::forward<Func>(f)));
  }

 private:
  Library& register_kernel(const char* name, CppFunction f);
  std::string def_name(const std::string& schema) const;

  Kind kind_;
  std::string ns_;
  optional<DispatchKey> key_;
  std::string where_;
  std::vector<uint64_t> registrations_;  // ids this library added (src/ops/registry/library.cpp)
  bool owns_namespace_ = false;
};

namespace detail {
/// Runs a NABLA_LIBRARY block once, at static initialization, and keeps its library.
class LibraryInit {
 public:
  LibraryInit(Library::Kind kind, void (*init)(Library&), const char* ns, optional<DispatchKey> key,
              const char* file, uint32_t line)
      : lib_(kind, ns, key, file, line) {
    init(lib_);
  }

 private:
  Library lib_;
};
}  // namespace detail

}  // namespace nabla

/// Defines the operators of namespace `ns` at static initialization (TORCH_LIBRARY):
///   NABLA_LIBRARY(myops, m) { m.def("my_add(Tensor self, Tensor other) -> Tensor"); }
#define NABLA_LIBRARY(ns, m)                                                                       \
  static void NABLA_LIBRARY_init_##ns(::nabla::Library&);                                          \
  static const ::nabla::detail::LibraryInit NABLA_LIBRARY_static_init_##ns(                        \
      ::nabla::Library::DEF, &NABLA_LIBRARY_init_##ns, #ns, ::nabla::nullopt, __FILE__, __LINE__); \
  void NABLA_LIBRARY_init_##ns(::nabla::Library& m)

#define NABLA_LIBRARY_UID_CAT_(a, b) a##b
#define NABLA_LIBRARY_UID_CAT(a, b) NABLA_LIBRARY_UID_CAT_(a, b)

/// More definitions for namespace `ns` (TORCH_LIBRARY_FRAGMENT); any number of them.
#define NABLA_LIBRARY_FRAGMENT(ns, m)                     \
  NABLA_LIBRARY_BLOCK_(FRAGMENT, ns, ::nabla::nullopt, m, \
                       NABLA_LIBRARY_UID_CAT(frag_##ns##_, __COUNTER__))
/// Kernels of namespace `ns`'s operators for key `k` (TORCH_LIBRARY_IMPL):
///   NABLA_LIBRARY_IMPL(myops, CPU, m) { m.impl("my_add", NABLA_FN(my_add)); }
#define NABLA_LIBRARY_IMPL(ns, k, m)                         \
  NABLA_LIBRARY_BLOCK_(IMPL, ns, ::nabla::DispatchKey::k, m, \
                       NABLA_LIBRARY_UID_CAT(impl_##ns##_##k##_, __COUNTER__))
#define NABLA_LIBRARY_BLOCK_(kind, ns, key, m, uid)                                            \
  static void NABLA_LIBRARY_UID_CAT(NABLA_LIBRARY_init_, uid)(::nabla::Library&);              \
  static const ::nabla::detail::LibraryInit NABLA_LIBRARY_UID_CAT(NABLA_LIBRARY_static_, uid)( \
      ::nabla::Library::kind, &NABLA_LIBRARY_UID_CAT(NABLA_LIBRARY_init_, uid), #ns, key,      \
      __FILE__, __LINE__);                                                                     \
  void NABLA_LIBRARY_UID_CAT(NABLA_LIBRARY_init_, uid)(::nabla::Library & m)

/// A library object with the registrations of its scope (MAKE_TORCH_LIBRARY):
///   auto m = MAKE_NABLA_LIBRARY(myops); m.def(...);
#define MAKE_NABLA_LIBRARY(ns) \
  ::nabla::Library(::nabla::Library::DEF, #ns, ::nabla::nullopt, __FILE__, __LINE__)
#define MAKE_NABLA_LIBRARY_IMPL(ns, k) \
  ::nabla::Library(::nabla::Library::IMPL, #ns, ::nabla::DispatchKey::k, __FILE__, __LINE__)
