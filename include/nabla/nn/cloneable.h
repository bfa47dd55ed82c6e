#pragma once
// Cloneable<Derived>: the base of modules that can deep-copy themselves (every built-in
// layer), as torch::nn::Cloneable. Derived implements reset(), which (re)creates all
// parameters, buffers and submodules from the options; the constructor calls it too.
// clone() copies the object, rebuilds it with reset(), then copies the original's values
// into the fresh tensors, so the clone shares no storage with the original.
#include <memory>

#include "nabla/autograd/grad_mode.h"
#include "nabla/nn/module.h"

namespace nabla::nn {

template <class Derived>
class Cloneable : public Module {
 public:
  using Module::Module;

  /// (Re)creates every parameter, buffer and submodule.
  virtual void reset() = 0;

  std::shared_ptr<Module> clone(const optional<Device>& device = nullopt) const override {
    NoGradGuard no_grad;
    const auto& self = static_cast<const Derived&>(*this);
    auto copy = std::make_shared<Derived>(self);
    copy->parameters_.clear();
    copy->buffers_.clear();
    copy->children_.clear();
    copy->reset();
    copy_tensors("parameter", parameters_, copy->parameters_, device);
    copy_tensors("buffer", buffers_, copy->buffers_, device);
    NABLA_CHECK(copy->children_.size() == children_.size(), "clone: ", name(),
                "'s reset() registered ", copy->children_.size(), " submodules, the original has ",
                children_.size());
    // The copy's own members (holders) point at the children reset() made: fill those
    // objects in place rather than swapping in new pointers.
    for (const auto& child : children_)
      copy->children_[child.key()]->clone_(*child.value(), device);
    return copy;
  }

 protected:
  void clone_(Module& other, const optional<Device>& device) override {
    auto fresh = std::dynamic_pointer_cast<Derived>(other.clone(device));
    NABLA_CHECK(fresh != nullptr, "clone: submodule types differ (", name(), " vs ", other.name(),
                ")");
    static_cast<Derived&>(*this) = std::move(*fresh);
  }

 private:
  static void copy_tensors(const char* what, const OrderedDict<std::string, Tensor>& from,
                           OrderedDict<std::string, Tensor>& to, const optional<Device>& device) {
    NABLA_CHECK(from.size() == to.size(), "clone: reset() registered ", to.size(), " ", what,
                "s, the original has ", from.size());
    for (const auto& item : from) {
      Tensor* dst = to.find(item.key());
      NABLA_CHECK(dst != nullptr, "clone: reset() did not register ", what, " '", item.key(), "'");
      if (!item.value().defined()) {
        *dst = Tensor();
        continue;
      }
      Tensor data = item.value().detach().clone();
      if (device) data = data.to(*device);
      dst->set_data(data);
      dst->requires_grad_(item.value().requires_grad());
    }
  }
};

}  // namespace nabla::nn
