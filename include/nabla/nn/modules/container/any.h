#pragma once
// AnyModule: a type-erased module whose forward maps one Tensor to one Tensor — what a
// Sequential stores. Any module holder, shared_ptr to a module, or nn::Functional
// whose forward accepts a Tensor converts to it.
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "nabla/nn/module.h"

namespace nabla::nn {

class AnyModule {
 public:
  AnyModule() = default;
  template <class M, class = std::enable_if_t<std::is_base_of_v<Module, M>>>
  explicit AnyModule(std::shared_ptr<M> module)
      : module_(module),
        forward_([m = module.get()](const Tensor& x) -> Tensor { return m->forward(x); }),
        rebinder_([](std::shared_ptr<Module> other) {
          auto typed = std::dynamic_pointer_cast<M>(other);
          NABLA_CHECK(typed != nullptr, "AnyModule: cannot rebind to a module of another type");
          return AnyModule(typed);
        }) {}
  template <class M>
  explicit AnyModule(const ModuleHolder<M>& holder) : AnyModule(holder.ptr()) {}

  Tensor forward(const Tensor& input) const {
    NABLA_CHECK(module_ != nullptr, "AnyModule::forward: the AnyModule is empty");
    return forward_(input);
  }
  const std::shared_ptr<Module>& ptr() const { return module_; }
  template <class M>
  std::shared_ptr<M> ptr() const {
    return std::dynamic_pointer_cast<M>(module_);
  }
  bool is_empty() const noexcept { return module_ == nullptr; }
  /// The same forward signature around `other`, a module of the same concrete type
  /// (clone() uses it).
  AnyModule rebind(std::shared_ptr<Module> other) const { return AnyModule(std::move(other), rebinder_); }

 private:
  using Rebinder = std::function<AnyModule(std::shared_ptr<Module>)>;
  AnyModule(std::shared_ptr<Module> other, const Rebinder& rebinder) : AnyModule(rebinder(std::move(other))) {}
  std::shared_ptr<Module> module_;
  std::function<Tensor(const Tensor&)> forward_;
  Rebinder rebinder_;
};

/// A (name, module) pair for building a Sequential with chosen names.
class NamedAnyModule {
 public:
  template <class M>
  NamedAnyModule(std::string name, M&& module)
      : name_(std::move(name)), module_(std::forward<M>(module)) {}
  NamedAnyModule(std::string name, AnyModule module) : name_(std::move(name)), module_(std::move(module)) {}
  const std::string& name() const noexcept { return name_; }
  const AnyModule& module() const noexcept { return module_; }

 private:
  std::string name_;
  AnyModule module_;
};

}  // namespace nabla::nn
