#pragma once
// nn::Module: the base of every layer and model, as torch::nn::Module. A module owns
// named parameters, buffers and submodules (registered in its constructor); everything
// else — recursion over the tree with dotted names, train/eval, zero_grad, dtype moves,
// printing, saving — is done here once.
//
//   struct NetImpl : nabla::nn::Module {
//     NetImpl() : fc(register_module("fc", nabla::nn::Linear(784, 10))) {}
//     nabla::Tensor forward(nabla::Tensor x) { return fc(x); }
//     nabla::nn::Linear fc;
//   };
//   NABLA_MODULE(Net);   // Net: a shared-pointer holder of NetImpl
//
// Names follow LibTorch exactly: named_parameters() of a Sequential of Linears gives
// "0.weight", "0.bias", "1.weight", ...; nested modules join with dots.
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "nabla/core/ordered_dict.h"
#include "nabla/core/tensor.h"
#include "nabla/nn/pimpl.h"

namespace nabla::serialize {
class OutputArchive;
class InputArchive;
}  // namespace nabla::serialize

namespace nabla::nn {

class Module : public std::enable_shared_from_this<Module> {
 public:
  using ModuleApplyFunction = std::function<void(Module&)>;
  using ConstModuleApplyFunction = std::function<void(const Module&)>;
  using NamedModuleApplyFunction = std::function<void(const std::string&, Module&)>;
  using ConstNamedModuleApplyFunction = std::function<void(const std::string&, const Module&)>;
  using ModulePointerApplyFunction = std::function<void(const std::shared_ptr<Module>&)>;
  using NamedModulePointerApplyFunction =
      std::function<void(const std::string&, const std::shared_ptr<Module>&)>;

  /// `name` is what printing shows; by default the demangled class name.
  explicit Module(std::string name);
  Module();
  Module(const Module&) = default;
  Module& operator=(const Module&) = default;
  virtual ~Module() = default;

  const std::string& name() const noexcept;

  /// A deep copy (parameters and buffers copied, not shared). Modules derived from
  /// Cloneable<T> (every built-in layer) support it; others raise nabla::Error.
  virtual std::shared_ptr<Module> clone(const optional<Device>& device = nullopt) const;

  /// Calls `fn` on this module and every descendant, parents before children.
  void apply(const ModuleApplyFunction& fn);
  void apply(const ConstModuleApplyFunction& fn) const;
  void apply(const NamedModuleApplyFunction& fn, const std::string& name_prefix = "");
  void apply(const ConstNamedModuleApplyFunction& fn, const std::string& name_prefix = "") const;
  void apply(const ModulePointerApplyFunction& fn) const;
  void apply(const NamedModulePointerApplyFunction& fn, const std::string& name_prefix = "") const;

  /// Parameters (defined ones only), this module's first, then its children's, in
  /// registration order.
  std::vector<Tensor> parameters(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_buffers(bool recurse = true) const;

  /// This module (unless include_self is false) and all descendants, depth first.
  /// Needs the module to be owned by a shared_ptr when include_self is true.
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true) const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_modules(
      const std::string& name_prefix = "", bool include_self = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_children() const;

  /// Training mode for this module and every descendant (dropout, batch norm read it).
  virtual void train(bool on = true);
  void eval() { train(false); }
  virtual bool is_training() const noexcept { return is_training_; }

  /// Converts parameters and buffers in place (same tensor objects, new data), as
  /// LibTorch's Module::to. Only floating tensors change dtype.
  virtual void to(Device device, ScalarType dtype, bool non_blocking = false);
  virtual void to(ScalarType dtype, bool non_blocking = false);
  virtual void to(Device device, bool non_blocking = false);

  /// Resets the gradients of every parameter: zeroed in place by default, as LibTorch
  /// 1.13 (its set_to_none defaults to false; LibTorch 2.x changed it to true), or made
  /// undefined with set_to_none = true.
  virtual void zero_grad(bool set_to_none = false);

  /// The module as its concrete type, or nullptr: `m->as<nn::Linear>()` gives a
  /// LinearImpl*; `m->as<LinearImpl>()` too.
  template <class M>
  typename M::ContainedType* as() noexcept {
    return as<typename M::ContainedType>();
  }
  template <class M>
  const typename M::ContainedType* as() const noexcept {
    return as<typename M::ContainedType>();
  }
  template <class M, class = std::enable_if_t<std::is_base_of_v<Module, M>>>
  M* as() noexcept {
    return dynamic_cast<M*>(this);
  }
  template <class M, class = std::enable_if_t<std::is_base_of_v<Module, M>>>
  const M* as() const noexcept {
    return dynamic_cast<const M*>(this);
  }

  /// Writes parameters, buffers (flagged) and children (nested archives) under their names.
  virtual void save(serialize::OutputArchive& archive) const;
  /// Reads every parameter and buffer in place; see InputArchive::read for the checks.
  virtual void load(serialize::InputArchive& archive);

  /// One line describing this module ("torch::nn::Linear(in_features=3, ...)" style);
  /// operator<< adds the children, indented.
  virtual void pretty_print(std::ostream& stream) const;
  virtual bool is_serializable() const { return true; }

  /// Registers `tensor` as parameter `name` (requires_grad set as asked) and returns the
  /// stored handle. An undefined tensor reserves the name (e.g. a disabled bias).
  Tensor& register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
  Tensor& register_buffer(std::string name, Tensor tensor);

  template <class M>
  std::shared_ptr<M> register_module(std::string name, std::shared_ptr<M> module) {
    check_child_name("register_module", name);
    NABLA_CHECK(module != nullptr, "register_module: submodule '", name, "' is null");
    children_.insert(std::move(name), module);
    return module;
  }
  template <class M>
  std::shared_ptr<M> register_module(std::string name, ModuleHolder<M> holder) {
    return register_module(std::move(name), holder.ptr());
  }
  /// Replaces an already registered submodule (the holder members are the caller's).
  template <class M>
  std::shared_ptr<M> replace_module(const std::string& name, std::shared_ptr<M> module) {
    NABLA_CHECK(children_.contains(name), "replace_module: Submodule '", name, "' is not defined");
    children_[name] = module;
    return module;
  }
  template <class M>
  std::shared_ptr<M> replace_module(const std::string& name, ModuleHolder<M> holder) {
    return replace_module(name, holder.ptr());
  }
  void unregister_module(const std::string& name);

 protected:
  OrderedDict<std::string, Tensor> parameters_{"Parameter"};
  OrderedDict<std::string, Tensor> buffers_{"Buffer"};
  OrderedDict<std::string, std::shared_ptr<Module>> children_{"Submodule"};

 protected:
  /// Makes this module a deep copy of `other` (same concrete type), keeping this
  /// object's identity; used by Cloneable::clone for children.
  virtual void clone_(Module& other, const optional<Device>& device);

 private:
  template <class>
  friend class Cloneable;
  void check_child_name(const char* what, const std::string& name) const;
  void collect_named(bool parameters, const std::string& prefix, bool recurse,
                     OrderedDict<std::string, Tensor>& out) const;
  void pretty_print_recursive(std::ostream& stream, const std::string& indentation) const;
  friend std::ostream& operator<<(std::ostream& stream, const Module& module);

  mutable optional<std::string> name_;
  bool is_training_ = true;
};

/// Prints the module tree: "Net(\n  (fc): torch::nn::Linear(...)\n)".
std::ostream& operator<<(std::ostream& stream, const Module& module);

template <class M>
std::ostream& operator<<(std::ostream& stream, const ModuleHolder<M>& holder) {
  return stream << *holder;
}

}  // namespace nabla::nn
