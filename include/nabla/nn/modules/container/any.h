#pragma once
// AnyModule: a type-erased module, as torch::nn::AnyModule — what Sequential stores and
// what Transformer's custom encoder/decoder are. Its forward takes the arguments of the
// module's own forward and returns its result:
//   nn::AnyModule any(nn::Linear(3, 4));
//   Tensor y = any.forward(x);                     // forward<Tensor>
//   auto [out, w] = attn.forward<std::tuple<Tensor, Tensor>>(q, k, v, Tensor(), true, Tensor(),
//   true);
// Arguments must have the parameter types (after decay), as LibTorch checks them; a
// module whose forward is overloaded can still be called with one Tensor.
#include <algorithm>
#include <any>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "nabla/nn/module.h"

namespace nabla::nn {

namespace detail {
std::string demangled(const std::type_info& type);
}  // namespace detail

/// A value of any type (torch::nn::AnyValue): what AnyModule::any_forward returns.
class AnyValue {
 public:
  template <class T, class = std::enable_if_t<!std::is_same_v<std::decay_t<T>, AnyValue>>>
  explicit AnyValue(T&& value) : content_(std::forward<T>(value)) {}
  template <class T>
  T* try_get() {
    return std::any_cast<T>(&content_);
  }
  template <class T>
  T get() const {
    const T* p = std::any_cast<T>(&content_);
    NABLA_CHECK(p != nullptr, "Attempted to cast AnyValue to ", detail::demangled(typeid(T)),
                ", but its actual type is ", detail::demangled(content_.type()));
    return *p;
  }
  const std::type_info& type_info() const noexcept { return content_.type(); }

 private:
  std::any content_;
};

namespace detail {
template <class M, class = void>
struct unique_forward : std::false_type {};
template <class M>
struct unique_forward<M, std::void_t<decltype(&M::forward)>> : std::true_type {};

template <class M, class = void>
struct tensor_forward : std::false_type {};
template <class M>
struct tensor_forward<
    M, std::void_t<decltype(Tensor(std::declval<M&>().forward(std::declval<const Tensor&>())))>>
    : std::true_type {};

// Argument `index` of a forward call as T.
template <class T>
T argument(const AnyValue& value, size_t index) {
  const T* p = const_cast<AnyValue&>(value).try_get<T>();
  NABLA_CHECK(p != nullptr, "Expected argument #", index, " to be of type ", demangled(typeid(T)),
              ", but received value of type ", demangled(value.type_info()));
  return *p;
}

// Calls (m->*f) with the arguments unpacked from `args` (checked against Params).
struct NoValue {};
template <class R, class... Params, class M, class F, size_t... I>
AnyValue invoke(M* m, F f, std::vector<AnyValue>& args, std::index_sequence<I...>) {
  if constexpr (std::is_void_v<R>) {
    (m->*f)(argument<std::decay_t<Params>>(args[I], I)...);
    return AnyValue(NoValue{});
  } else {
    return AnyValue((m->*f)(argument<std::decay_t<Params>>(args[I], I)...));
  }
}

/// Reads what a module declared with NABLA_FORWARD_HAS_DEFAULT_ARGS (it befriends this).
struct ForwardDefaults {
  using List = std::vector<std::pair<size_t, AnyValue>>;
  template <class M>
  static auto of(const M& m, int) -> decltype(m._forward_default_args(), optional<List>()) {
    return m._forward_default_args();
  }
  template <class M>
  static optional<List> of(const M&, long) {
    return nullopt;
  }
};

// The arguments of a call, completed with the module's declared defaults; a count that
// does not fit is an error naming the module.
template <class M>
void complete_arguments(const M& m, size_t params, std::vector<AnyValue>& args) {
  const std::string name = demangled(typeid(M));
  optional<ForwardDefaults::List> defaults = ForwardDefaults::of(m, 0);
  if (!defaults) {
    NABLA_CHECK(args.size() == params, name, "'s forward() method expects ", params,
                " argument(s), but received ", args.size(), ". If ", name,
                "'s forward() method has default arguments, please make sure the forward() "
                "method is declared with a corresponding `NABLA_FORWARD_HAS_DEFAULT_ARGS` macro.");
    return;
  }
  const size_t required = params - std::min(params, defaults->size());
  NABLA_CHECK(args.size() >= required && args.size() <= params, name,
              "'s forward() method expects at least ", required, " argument(s) and at most ",
              params, " argument(s), but received ", args.size(), ".");
  std::sort(defaults->begin(), defaults->end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [index, value] : *defaults)
    if (index == args.size()) args.push_back(std::move(value));
  NABLA_CHECK(args.size() == params, name, ": NABLA_FORWARD_HAS_DEFAULT_ARGS must give the last ",
              params - required, " argument(s) of forward() their defaults");
}

template <class R, class... Params, class M, class F>
std::function<AnyValue(std::vector<AnyValue>&&)> invoker_for(M* m, F f) {
  return [m, f](std::vector<AnyValue>&& args) {
    complete_arguments(*m, sizeof...(Params), args);
    return invoke<R, Params...>(m, f, args, std::index_sequence_for<Params...>{});
  };
}
// forward may be declared in a base class of M (C), const or not.
template <class M, class C, class R, class... Params>
std::function<AnyValue(std::vector<AnyValue>&&)> make_invoker(M* m, R (C::*f)(Params...)) {
  return invoker_for<R, Params...>(m, f);
}
template <class M, class C, class R, class... Params>
std::function<AnyValue(std::vector<AnyValue>&&)> make_invoker(M* m, R (C::*f)(Params...) const) {
  return invoker_for<R, Params...>(m, f);
}
}  // namespace detail

/// Declares the defaults of a module's forward() arguments, so that AnyModule and
/// Sequential may leave them out (LibTorch's FORWARD_HAS_DEFAULT_ARGS; the porting script
/// renames it): pairs {argument index, AnyValue(default)}, for the last arguments.
#define NABLA_FORWARD_HAS_DEFAULT_ARGS(...)                                             \
  friend struct ::nabla::nn::detail::ForwardDefaults;                                   \
  std::vector<std::pair<size_t, ::nabla::nn::AnyValue>> _forward_default_args() const { \
    return {__VA_ARGS__};                                                               \
  }

class AnyModule {
 public:
  AnyModule() = default;
  template <class M, class = std::enable_if_t<std::is_base_of_v<Module, M>>>
  explicit AnyModule(std::shared_ptr<M> module)
      : module_(module), rebinder_([](std::shared_ptr<Module> other) {
          auto typed = std::dynamic_pointer_cast<M>(other);
          NABLA_CHECK(typed != nullptr, "AnyModule: cannot rebind to a module of another type");
          return AnyModule(typed);
        }) {
    if constexpr (detail::tensor_forward<M>::value)
      tensor_forward_ = [m = module.get()](const Tensor& x) -> Tensor { return m->forward(x); };
    if constexpr (detail::unique_forward<M>::value)
      invoke_ = detail::make_invoker(module.get(), &M::forward);
  }
  template <class M>
  explicit AnyModule(const ModuleHolder<M>& holder) : AnyModule(holder.ptr()) {}
  /// A module given by value is moved (or copied) into a new shared_ptr (LibTorch's
  /// AnyModule(M&&)).
  template <class M, class = std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>>>>
  explicit AnyModule(M&& module)
      : AnyModule(std::make_shared<std::decay_t<M>>(std::forward<M>(module))) {}
  /// Holds another module (of any type) from now on.
  template <class M, class = std::enable_if_t<std::is_base_of_v<Module, M>>>
  AnyModule& operator=(std::shared_ptr<M> module) {
    return *this = AnyModule(std::move(module));
  }

  /// The concrete type of the held module (typeid(Linear) for an nn::Linear's impl).
  const std::type_info& type_info() const {
    check_not_empty("type_info");
    return held_type();
  }

  /// forward with one Tensor (what Sequential does).
  Tensor forward(const Tensor& input) const {
    check_not_empty("forward");
    if (tensor_forward_) return tensor_forward_(input);
    return forward<Tensor>(Tensor(input));
  }
  /// forward with the module's own arguments; the result converted to ReturnType.
  template <class ReturnType = Tensor, class... Args>
  ReturnType forward(Args&&... args) const {
    return any_forward(std::forward<Args>(args)...).template get<ReturnType>();
  }
  template <class... Args>
  AnyValue any_forward(Args&&... args) const {
    check_not_empty("forward");
    NABLA_CHECK(invoke_ != nullptr, "AnyModule: ", detail::demangled(held_type()),
                " has an overloaded or templated forward(); only forward(Tensor) can be called "
                "through AnyModule");
    std::vector<AnyValue> values;
    values.reserve(sizeof...(Args));
    (values.emplace_back(std::forward<Args>(args)), ...);
    return invoke_(std::move(values));
  }

  const std::shared_ptr<Module>& ptr() const {
    check_not_empty("ptr");
    return module_;
  }
  /// The module as M; a module of another type is an error.
  template <class M>
  std::shared_ptr<M> ptr() const {
    check_not_empty("ptr");
    auto p = std::dynamic_pointer_cast<M>(module_);
    NABLA_CHECK(p != nullptr, "Attempted to cast module of type ", detail::demangled(held_type()),
                " to type ", detail::demangled(typeid(M)));
    return p;
  }
  /// The module as M: a module type gives a reference, a holder type (nn::Linear) a holder.
  template <class M>
  decltype(auto) get() const {
    check_not_empty("get");
    if constexpr (std::is_base_of_v<Module, M>)
      return static_cast<M&>(*ptr<M>());
    else
      return M(ptr<typename M::ContainedType>());
  }
  bool is_empty() const noexcept { return module_ == nullptr; }
  /// The same forward signature around `other`, a module of the same concrete type
  /// (clone() uses it).
  AnyModule rebind(std::shared_ptr<Module> other) const {
    return AnyModule(std::move(other), rebinder_);
  }
  /// A deep copy of the module, wrapped the same way.
  AnyModule clone(const optional<Device>& device = nullopt) const {
    check_not_empty("clone");
    return rebind(module_->clone(device));
  }

 private:
  using Rebinder = std::function<AnyModule(std::shared_ptr<Module>)>;
  AnyModule(std::shared_ptr<Module> other, const Rebinder& rebinder)
      : AnyModule(rebinder(std::move(other))) {}
  void check_not_empty(const char* method) const {
    NABLA_CHECK(module_ != nullptr, "Cannot call ", method, "() on an empty AnyModule");
  }
  // The dynamic type of the held module (through a named reference: typeid of an
  // expression with side effects is a clang warning).
  const std::type_info& held_type() const {
    const Module& held = *module_;
    return typeid(held);
  }
  std::shared_ptr<Module> module_;
  std::function<Tensor(const Tensor&)> tensor_forward_;
  std::function<AnyValue(std::vector<AnyValue>&&)> invoke_;
  Rebinder rebinder_;
};

/// A (name, module) pair for building a Sequential with chosen names.
class NamedAnyModule {
 public:
  template <class M>
  NamedAnyModule(std::string name, M&& module)
      : name_(std::move(name)), module_(std::forward<M>(module)) {}
  NamedAnyModule(std::string name, AnyModule module)
      : name_(std::move(name)), module_(std::move(module)) {}
  const std::string& name() const noexcept { return name_; }
  const AnyModule& module() const noexcept { return module_; }

 private:
  std::string name_;
  AnyModule module_;
};

}  // namespace nabla::nn
