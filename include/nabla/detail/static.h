#pragma once
// The compile-time helpers of LibTorch's torch/detail/static.h and c10's variadic
// utilities, for code written against them: nabla::all_of / any_of over bools,
// nabla::apply (a function on each argument), and, in nabla::detail, is_module,
// enable_if_module_t, check_not_lvalue_references and return_type_of_forward.
#include <type_traits>
#include <utility>

namespace nabla {
namespace nn {
class Module;
}  // namespace nn

template <bool B, class T = void>
using enable_if_t = std::enable_if_t<B, T>;

template <bool... Values>
struct all_of : std::bool_constant<(Values && ...)> {};
template <bool... Values>
struct any_of : std::bool_constant<(Values || ...)> {};

/// Calls f(arg) for each argument, in order.
template <class F, class... Args>
void apply(F&& f, Args&&... args) {
  (f(std::forward<Args>(args)), ...);
}

namespace detail {

/// Whether T (without references and cv) derives from nn::Module.
template <class T>
using is_module = std::is_base_of<nn::Module, std::decay_t<T>>;

template <class T, class V = void>
using enable_if_module_t = std::enable_if_t<is_module<T>::value, V>;

/// True when none of Ts is an lvalue reference.
template <class... Ts>
constexpr bool check_not_lvalue_references() {
  return (!std::is_lvalue_reference_v<Ts> && ...);
}

/// The type Module::forward(Args...) returns, or void when Module has no forward.
template <class Module, class... Args>
struct return_type_of_forward {
 private:
  template <class M>
  static auto test(int) -> decltype(std::declval<M&>().forward(std::declval<Args>()...));
  template <class>
  static void test(...);

 public:
  using type = decltype(test<Module>(0));
};
template <class Module, class... Args>
using return_type_of_forward_t = typename return_type_of_forward<Module, Args...>::type;

}  // namespace detail
}  // namespace nabla
