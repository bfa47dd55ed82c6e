// nn::Module: registration, recursion over the module tree, modes, conversion, printing.
#include "nabla/nn/module.h"

#include <cxxabi.h>

#include <cstdlib>
#include <ostream>
#include <typeinfo>

#include "nabla/autograd/autograd.h"
#include "nabla/autograd/grad_mode.h"
#include "nabla/core/warning.h"
#include "nabla/serialize/archive.h"

namespace nabla::nn {

namespace {

std::string demangled(const std::type_info& type) {
  int status = 0;
  char* raw = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string out = status == 0 && raw != nullptr ? raw : type.name();
  std::free(raw);
  return out;
}

std::string joined(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

}  // namespace

Module::Module(std::string name) : name_(std::move(name)) {}
Module::Module() = default;

const std::string& Module::name() const noexcept {
  // Computed on first use: typeid(*this) is only the derived type after construction.
  if (!name_) name_ = demangled(typeid(*this));
  return *name_;
}

std::shared_ptr<Module> Module::clone(const optional<Device>&) const {
  NABLA_CHECK(false, "clone: clone() has not been implemented for ", name(),
              "; derive it from nn::Cloneable<", name(), "> and implement reset()");
  return nullptr;
}

void Module::clone_(Module& other, const optional<Device>&) {
  NABLA_CHECK(false, "clone: ", name(), " (a submodule of the module being cloned, from ",
              other.name(), ") does not derive from nn::Cloneable");
}

void Module::apply(const ModuleApplyFunction& fn) {
  fn(*this);
  for (auto& child : children_) child.value()->apply(fn);
}

void Module::apply(const ConstModuleApplyFunction& fn) const {
  fn(*this);
  for (const auto& child : children_) static_cast<const Module&>(*child.value()).apply(fn);
}

void Module::apply(const NamedModuleApplyFunction& fn, const std::string& name_prefix) {
  fn(name_prefix, *this);
  for (auto& child : children_) child.value()->apply(fn, joined(name_prefix, child.key()));
}

void Module::apply(const ConstNamedModuleApplyFunction& fn, const std::string& name_prefix) const {
  fn(name_prefix, *this);
  for (const auto& child : children_)
    static_cast<const Module&>(*child.value()).apply(fn, joined(name_prefix, child.key()));
}

void Module::apply(const ModulePointerApplyFunction& fn) const {
  for (const auto& m : modules(true)) fn(m);
}

void Module::apply(const NamedModulePointerApplyFunction& fn,
                   const std::string& name_prefix) const {
  for (const auto& item : named_modules(name_prefix, true)) fn(item.key(), item.value());
}

void Module::collect_named(bool parameters, const std::string& prefix, bool recurse,
                           OrderedDict<std::string, Tensor>& out) const {
  for (const auto& item : parameters ? parameters_ : buffers_)
    if (item.value().defined()) out.insert(joined(prefix, item.key()), item.value());
  if (!recurse) return;
  for (const auto& child : children_)
    child.value()->collect_named(parameters, joined(prefix, child.key()), true, out);
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  return named_parameters(recurse).values();
}

OrderedDict<std::string, Tensor> Module::named_parameters(bool recurse) const {
  OrderedDict<std::string, Tensor> out("Parameter");
  collect_named(true, "", recurse, out);
  return out;
}

std::vector<Tensor> Module::buffers(bool recurse) const { return named_buffers(recurse).values(); }

OrderedDict<std::string, Tensor> Module::named_buffers(bool recurse) const {
  OrderedDict<std::string, Tensor> out("Buffer");
  collect_named(false, "", recurse, out);
  return out;
}

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) const {
  return named_modules("", include_self).values();
}

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_modules(
    const std::string& name_prefix, bool include_self) const {
  OrderedDict<std::string, std::shared_ptr<Module>> out("Module");
  if (include_self) {
    // shared_from_this needs an owner: a module built on the stack has none.
    auto self = std::const_pointer_cast<Module>(weak_from_this().lock());
    NABLA_CHECK(self != nullptr,
                "modules()/named_modules(): It looks like you attempted to "
                "retrieve your top-level module as a shared_ptr, but ",
                name(),
                " is not owned by one (create it with std::make_shared or a module holder); "
                "pass include_self=false");
    out.insert(name_prefix, self);
  }
  // Children are always owned by shared_ptrs; recurse through them.
  for (const auto& child : children_) {
    auto sub = child.value()->named_modules(joined(name_prefix, child.key()), true);
    for (auto& item : sub) out.insert(item.key(), item.value());
  }
  return out;
}

std::vector<std::shared_ptr<Module>> Module::children() const { return children_.values(); }

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_children() const {
  return children_;
}

void Module::train(bool on) {
  is_training_ = on;
  for (auto& child : children_) child.value()->train(on);
}

namespace {

// Replaces the data of every parameter and buffer (and of a parameter's gradient) of `m`
// and its descendants by `convert(tensor)`, keeping their identity (set_data), as
// LibTorch's Module::to.
template <class Convert>
void convert_all(Module& m, Convert convert) {
  NoGradGuard no_grad;
  m.apply([&](Module& sub) {
    for (auto& t : sub.parameters(/*recurse=*/false)) {
      t.set_data(convert(t));
      Tensor& g = t.mutable_grad();
      if (g.defined()) g = convert(g);
    }
    for (auto& t : sub.buffers(/*recurse=*/false))
      if (t.defined()) t.set_data(convert(t));
  });
}

}  // namespace

// Floating tensors take `dtype`; integer buffers (num_batches_tracked) keep theirs.
void Module::to(Device device, ScalarType dtype, bool non_blocking) {
  convert_all(*this, [&](const Tensor& t) {
    return t.to(device, t.is_floating_point() ? dtype : t.scalar_type(), non_blocking);
  });
}

void Module::to(ScalarType dtype, bool non_blocking) {
  convert_all(*this, [&](const Tensor& t) {
    return t.to(t.device(), t.is_floating_point() ? dtype : t.scalar_type(), non_blocking);
  });
}

void Module::to(Device device, bool non_blocking) {
  convert_all(*this, [&](const Tensor& t) { return t.to(device, t.scalar_type(), non_blocking); });
}

void Module::zero_grad(bool set_to_none) {
  for (auto& p : parameters()) autograd::zero_grad(p, set_to_none);
}

void Module::save(serialize::OutputArchive& archive) const {
  for (const auto& p : named_parameters(false)) archive.write(p.key(), p.value());
  for (const auto& b : named_buffers(false)) archive.write(b.key(), b.value(), true);
  for (const auto& child : children_) {
    if (!child.value()->is_serializable()) continue;
    serialize::OutputArchive child_archive;
    child.value()->save(child_archive);
    archive.write(child.key(), child_archive);
  }
}

void Module::load(serialize::InputArchive& archive) {
  for (auto& p : parameters_)
    if (p.value().defined()) archive.read(p.key(), p.value());
  for (auto& b : buffers_)
    if (b.value().defined()) archive.read(b.key(), b.value(), true);
  for (auto& child : children_) {
    if (!child.value()->is_serializable()) continue;
    serialize::InputArchive child_archive;
    archive.read(child.key(), child_archive);
    child.value()->load(child_archive);
  }
}

void Module::pretty_print(std::ostream& stream) const { stream << name(); }

void Module::pretty_print_recursive(std::ostream& stream, const std::string& indentation) const {
  pretty_print(stream);
  if (children_.is_empty()) return;
  stream << "(\n";
  const std::string next = indentation + "  ";
  for (const auto& child : children_) {
    stream << next << "(" << child.key() << "): ";
    child.value()->pretty_print_recursive(stream, next);
    stream << '\n';
  }
  stream << indentation << ")";
}

std::ostream& operator<<(std::ostream& stream, const Module& module) {
  module.pretty_print_recursive(stream, "");
  return stream;
}

void Module::check_child_name(const char* what, const std::string& name) const {
  NABLA_CHECK(!name.empty(), what, ": Submodule name must not be empty (in ", this->name(), ")");
  NABLA_CHECK(name.find('.') == std::string::npos, what,
              ": Submodule name must not contain a dot (got '", name,
              "'): dots separate nesting levels");
  NABLA_CHECK(!children_.contains(name), what, ": Submodule '", name, "' already defined in ",
              this->name());
}

Tensor& Module::register_parameter(std::string name, Tensor tensor, bool requires_grad) {
  NABLA_CHECK(!name.empty(), "register_parameter: Parameter name must not be empty");
  NABLA_CHECK(name.find('.') == std::string::npos,
              "register_parameter: Parameter name must not contain a dot (got '", name, "')");
  NABLA_CHECK(!parameters_.contains(name), "register_parameter: Parameter '", name,
              "' already defined in ", this->name());
  if (tensor.defined()) {
    NABLA_CHECK(!requires_grad || tensor.is_floating_point(), "register_parameter: parameter '",
                name, "' has dtype ", tensor.scalar_type(),
                "; only floating tensors can require gradients");
    tensor.requires_grad_(requires_grad);
  } else if (requires_grad) {
    NABLA_WARN("register_parameter: parameter '", name,
               "' is an undefined tensor; Ignoring the `requires_grad=true` function parameter "
               "(an undefined tensor cannot require grad)");
  }
  return parameters_.insert(std::move(name), std::move(tensor));
}

Tensor& Module::register_buffer(std::string name, Tensor tensor) {
  NABLA_CHECK(!name.empty(), "register_buffer: Buffer name must not be empty");
  NABLA_CHECK(name.find('.') == std::string::npos,
              "register_buffer: Buffer name must not contain a dot (got '", name, "')");
  NABLA_CHECK(!buffers_.contains(name), "register_buffer: Buffer '", name, "' already defined in ",
              this->name());
  return buffers_.insert(std::move(name), std::move(tensor));
}

void Module::unregister_module(const std::string& name) {
  NABLA_CHECK(children_.contains(name), "unregister_module: No Module with name `", name,
              "` is registered in ", this->name());
  children_.erase(name);
}

}  // namespace nabla::nn
