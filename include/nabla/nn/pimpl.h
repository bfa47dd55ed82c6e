#pragma once
// ModuleHolder<Impl> and NABLA_MODULE: the shared-pointer handles of modules, as
// LibTorch's TORCH_MODULE. `NABLA_MODULE(Linear)` defines class Linear holding a
// std::shared_ptr<LinearImpl>: copies share the module, `->` reaches its members,
// `linear(x)` calls forward, and `Linear l = nullptr;` is the empty holder that a
// constructor fills in later.
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

#include "nabla/core/error.h"

namespace nabla::nn {

template <class Contained>
class ModuleHolder {
 public:
  using ContainedType = Contained;

 private:
  // Arguments that are handles themselves (copies, nullptr, the shared_ptr) are not
  // constructor arguments of the module.
  template <class T>
  static constexpr bool is_handle_v = std::is_base_of_v<ModuleHolder, std::decay_t<T>> ||
                                      std::is_same_v<std::decay_t<T>, std::nullptr_t> ||
                                      std::is_same_v<std::decay_t<T>, std::shared_ptr<Contained>>;

 public:
  /// Default-constructs the module; a module without a default constructor must be
  /// written `Net net = nullptr;` and assigned later.
  ModuleHolder() : impl_(std::make_shared<Contained>()) {
    static_assert(std::is_default_constructible_v<Contained>,
                  "this module has no default constructor: declare the holder as "
                  "`Name x = nullptr;` and construct it in the owner's constructor");
  }
  ModuleHolder(std::nullptr_t) {}  // NOLINT: the empty state, as LibTorch
  /// Constructs the module from its constructor's arguments (`Linear(3, 4)`,
  /// `Conv2d(Conv2dOptions(1, 32, 3))`).
  template <class Head, class... Tail,
            class = std::enable_if_t<sizeof...(Tail) != 0 || !is_handle_v<Head>>>
  explicit ModuleHolder(Head&& head, Tail&&... tail)
      : impl_(std::make_shared<Contained>(std::forward<Head>(head), std::forward<Tail>(tail)...)) {}
  ModuleHolder(std::shared_ptr<Contained> module) : impl_(std::move(module)) {}  // NOLINT

  explicit operator bool() const noexcept { return impl_ != nullptr; }
  bool is_empty() const noexcept { return impl_ == nullptr; }

  Contained* operator->() { return get(); }
  const Contained* operator->() const { return get(); }
  Contained& operator*() { return *get(); }
  const Contained& operator*() const { return *get(); }
  const std::shared_ptr<Contained>& ptr() const {
    check_not_empty();
    return impl_;
  }
  Contained* get() {
    check_not_empty();
    return impl_.get();
  }
  const Contained* get() const {
    check_not_empty();
    return impl_.get();
  }

  /// Calls the module's forward.
  template <class... Args>
  decltype(auto) operator()(Args&&... args) {
    return get()->forward(std::forward<Args>(args)...);
  }
  template <class Arg>
  decltype(auto) operator[](Arg&& arg) {
    return (*get())[std::forward<Arg>(arg)];
  }

 protected:
  std::shared_ptr<Contained> impl_;

 private:
  void check_not_empty() const {
    NABLA_CHECK(impl_ != nullptr,
                "Accessing empty ModuleHolder (a module handle set to nullptr and never "
                "assigned a module)");
  }
};

}  // namespace nabla::nn

/// Defines `Name`, a ModuleHolder of `ImplType`.
#define NABLA_MODULE_IMPL(Name, ImplType)                    \
  class Name : public ::nabla::nn::ModuleHolder<ImplType> {  \
   public:                                                   \
    using ::nabla::nn::ModuleHolder<ImplType>::ModuleHolder; \
    using Impl = ImplType;                                   \
  }

/// Defines `Name` holding `Name##Impl`.
#define NABLA_MODULE(Name) NABLA_MODULE_IMPL(Name, Name##Impl)
