// Sequential, ModuleList, ModuleDict, Functional.
#include <ostream>

#include "nabla/autograd/function.h"
#include "nabla/nn/modules/container/functional.h"
#include "nabla/nn/modules/container/modulelist.h"
#include "nabla/nn/modules/container/parameterlist.h"
#include "nabla/nn/modules/container/sequential.h"

namespace nabla::nn {

std::string detail::demangled(const std::type_info& type) {
  return autograd::detail::demangle_type(type.name());
}

// ---- Sequential ------------------------------------------------------------------------

void SequentialImpl::reset() {}

std::shared_ptr<Module> SequentialImpl::clone(const optional<Device>& device) const {
  auto copy = std::make_shared<SequentialImpl>();
  for (const auto& item : children_) {
    // The stored AnyModule forwards through the original; rebuild it around the clone.
    auto cloned = item.value()->clone(device);
    copy->children_.insert(item.key(), cloned);
    copy->modules_.push_back(modules_[copy->modules_.size()].rebind(cloned));
  }
  copy->train(is_training());
  return copy;
}

void SequentialImpl::pretty_print(std::ostream& stream) const { stream << "nabla::nn::Sequential"; }

Tensor SequentialImpl::forward_tensor(const Tensor& input) {
  Tensor x = input;
  // As a const Tensor&: AnyModule's forward(const Tensor&) (the module's own tensor forward,
  // which a nested Sequential also has) rather than its forward<ReturnType>(Args&&...).
  for (const auto& m : modules_) x = m.forward(static_cast<const Tensor&>(x));
  return x;
}

void SequentialImpl::push_back(std::string name, AnyModule module) {
  NABLA_CHECK(!module.is_empty(), "Sequential::push_back: module '", name, "' is empty");
  register_module(std::move(name), module.ptr());
  modules_.push_back(std::move(module));
}

const AnyModule& SequentialImpl::any(size_t index) const {
  NABLA_CHECK(index < modules_.size(), "Sequential: Index out of range (index ", index,
              " for a Sequential of ", modules_.size(), " modules)");
  return modules_[index];
}

// ---- ModuleList ------------------------------------------------------------------------

std::shared_ptr<Module> ModuleListImpl::clone(const optional<Device>& device) const {
  auto copy = std::make_shared<ModuleListImpl>();
  for (const auto& m : modules_) copy->push_back(m->clone(device));
  copy->train(is_training());
  return copy;
}

void ModuleListImpl::pretty_print(std::ostream& stream) const { stream << "nabla::nn::ModuleList"; }

void ModuleListImpl::push_back(std::shared_ptr<Module> module) {
  NABLA_CHECK(module != nullptr, "ModuleList::push_back: the module is null");
  modules_.push_back(module);
  register_module(std::to_string(modules_.size() - 1), std::move(module));
}

void ModuleListImpl::insert(size_t index, std::shared_ptr<Module> module) {
  NABLA_CHECK(module != nullptr, "ModuleList::insert: the module is null");
  NABLA_CHECK(index <= modules_.size(), "ModuleList::insert: index ", index,
              " is out of range for a list of ", modules_.size(), " modules");
  modules_.insert(modules_.begin() + static_cast<std::ptrdiff_t>(index), std::move(module));
  renumber();
}

void ModuleListImpl::renumber() {
  children_.clear();
  for (size_t i = 0; i < modules_.size(); ++i) children_.insert(std::to_string(i), modules_[i]);
}

const std::shared_ptr<Module>& ModuleListImpl::ptr(size_t index) const {
  NABLA_CHECK(index < modules_.size(), "ModuleList: Index out of range: ", index, " in a list of ",
              modules_.size(), " modules");
  return modules_[index];
}

// ---- ModuleDict ------------------------------------------------------------------------

ModuleDictImpl::ModuleDictImpl(
    const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) {
  update(modules);
}

ModuleDictImpl::ModuleDictImpl(const OrderedDict<std::string, std::shared_ptr<Module>>& modules) {
  for (const auto& item : modules) insert(item.key(), item.value());
}

std::shared_ptr<Module> ModuleDictImpl::clone(const optional<Device>& device) const {
  auto copy = std::make_shared<ModuleDictImpl>();
  for (const auto& item : children_) copy->insert(item.key(), item.value()->clone(device));
  copy->train(is_training());
  return copy;
}

void ModuleDictImpl::pretty_print(std::ostream& stream) const { stream << "nabla::nn::ModuleDict"; }

void ModuleDictImpl::insert(const std::string& key, std::shared_ptr<Module> module) {
  NABLA_CHECK(module != nullptr, "ModuleDict::insert: module '", key, "' is null");
  if (children_.contains(key))
    replace_module(key, std::move(module));
  else
    register_module(key, std::move(module));
}

void ModuleDictImpl::update(
    const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) {
  for (const auto& [key, module] : modules) insert(key, module);
}

std::shared_ptr<Module> ModuleDictImpl::pop(const std::string& key) {
  auto module = (*this)[key];
  children_.erase(key);
  return module;
}

void ModuleDictImpl::clear() { children_.clear(); }

std::shared_ptr<Module> ModuleDictImpl::operator[](const std::string& key) const {
  const auto* found = children_.find(key);
  NABLA_CHECK(found != nullptr, "ModuleDict: Module '", key, "' is not defined");
  return *found;
}

// ---- Functional ------------------------------------------------------------------------

FunctionalImpl::FunctionalImpl(Function function) : function_(std::move(function)) {
  NABLA_CHECK(function_ != nullptr, "Functional: the function is empty");
}

void FunctionalImpl::pretty_print(std::ostream& stream) const {
  stream << "nabla::nn::Functional()";
}

Tensor FunctionalImpl::forward(Tensor input) { return function_(std::move(input)); }

// ---- ParameterList and ParameterDict ----------------------------------------------------

namespace {

void print_parameters(std::ostream& stream, const char* name,
                      const OrderedDict<std::string, Tensor>& params) {
  stream << "nabla::nn::" << name << "(\n";
  for (const auto& item : params)
    stream << "(" << item.key() << "): Parameter containing: [" << item.value().scalar_type()
           << " of size " << item.value().sizes() << "]\n";
  stream << ")";
}

}  // namespace

void ParameterListImpl::pretty_print(std::ostream& stream) const {
  print_parameters(stream, "ParameterList", parameters_);
}

void ParameterListImpl::append(Tensor param) {
  const bool requires_grad = param.requires_grad();
  register_parameter(std::to_string(parameters_.size()), std::move(param), requires_grad);
}

Tensor& ParameterListImpl::at(size_t index) {
  NABLA_CHECK(index < size(), "ParameterList::at: Index out of range (index ", index, ", size ",
              size(), ")");
  return parameters_[index].value();
}

const Tensor& ParameterListImpl::at(size_t index) const {
  return const_cast<ParameterListImpl*>(this)->at(index);
}

ParameterDictImpl::ParameterDictImpl(const OrderedDict<std::string, Tensor>& params) {
  for (const auto& item : params) insert(item.key(), item.value());
}

void ParameterDictImpl::pretty_print(std::ostream& stream) const {
  print_parameters(stream, "ParameterDict", parameters_);
}

Tensor& ParameterDictImpl::insert(const std::string& key, Tensor param) {
  const bool requires_grad = param.requires_grad();
  if (Tensor* existing = parameters_.find(key)) {
    *existing = std::move(param);
    existing->requires_grad_(requires_grad);
    return *existing;
  }
  return register_parameter(key, std::move(param), requires_grad);
}

Tensor ParameterDictImpl::pop(const std::string& key) {
  Tensor t = parameters_[key];  // "Parameter 'key' is not defined"
  parameters_.erase(key);
  return t;
}

void ParameterDictImpl::update(const ParameterDictImpl& other) {
  for (const auto& item : other.parameters_)
    NABLA_CHECK(parameters_.contains(item.key()), "ParameterDict::update: Parameter '", item.key(),
                "' is not defined");
  for (const auto& item : other.parameters_) insert(item.key(), item.value());
}

void ParameterDictImpl::clear() { parameters_.clear(); }

}  // namespace nabla::nn
