#pragma once
// ParameterList: parameters named "0", "1", ... in order; ParameterDict: parameters by
// name in insertion order. Containers without forward, as LibTorch's; each parameter keeps
// the requires_grad its tensor had when it was added.
#include <string>
#include <vector>

#include "nabla/nn/cloneable.h"

namespace nabla::nn {

class ParameterListImpl : public Cloneable<ParameterListImpl> {
 public:
  using Iterator = OrderedDict<std::string, Tensor>::Iterator;
  using ConstIterator = OrderedDict<std::string, Tensor>::ConstIterator;

  ParameterListImpl() = default;
  template <class... Tensors>
  explicit ParameterListImpl(Tensors&&... params) {
    (append(std::forward<Tensors>(params)), ...);
  }

  void reset() override {}
  void pretty_print(std::ostream& stream) const override;

  /// Adds `param` as parameter "<size()>".
  void append(Tensor param);
  void append(const OrderedDict<std::string, Tensor>::Item& item) { append(item.value()); }
  /// Appends every parameter of a container of tensors (or of another list).
  template <class Container>
  void extend(const Container& container) {
    for (const auto& p : container) append(p);
  }
  /// The i-th parameter; "Index out of range" past the end.
  Tensor& at(size_t index);
  const Tensor& at(size_t index) const;
  Tensor& operator[](size_t index) { return at(index); }
  const Tensor& operator[](size_t index) const { return at(index); }
  ParameterListImpl& operator+=(const ParameterListImpl& other) {
    extend(other);
    return *this;
  }

  size_t size() const noexcept { return parameters_.size(); }
  bool is_empty() const noexcept { return parameters_.is_empty(); }
  Iterator begin() { return parameters_.begin(); }
  Iterator end() { return parameters_.end(); }
  ConstIterator begin() const { return parameters_.begin(); }
  ConstIterator end() const { return parameters_.end(); }
};
NABLA_MODULE(ParameterList);

class ParameterDictImpl : public Cloneable<ParameterDictImpl> {
 public:
  using Iterator = OrderedDict<std::string, Tensor>::Iterator;
  using ConstIterator = OrderedDict<std::string, Tensor>::ConstIterator;

  ParameterDictImpl() = default;
  explicit ParameterDictImpl(const OrderedDict<std::string, Tensor>& params);

  void reset() override {}
  void pretty_print(std::ostream& stream) const override;

  /// Adds (or replaces) parameter `key`; returns the stored handle.
  Tensor& insert(const std::string& key, Tensor param);
  /// Removes and returns parameter `key` ("Parameter 'key' is not defined" if absent).
  Tensor pop(const std::string& key);
  /// Replaces the values of keys both hold ("Parameter 'k' is not defined" for a key of
  /// other's that this dict lacks; nothing is changed then).
  void update(const ParameterDictImpl& other);
  void clear();
  bool contains(const std::string& key) const { return parameters_.contains(key); }
  std::vector<std::string> keys() const { return parameters_.keys(); }
  std::vector<Tensor> values() const { return parameters_.values(); }
  Tensor& get(const std::string& key) { return parameters_[key]; }
  const Tensor& get(const std::string& key) const { return parameters_[key]; }
  Tensor& operator[](const std::string& key) { return get(key); }
  const Tensor& operator[](const std::string& key) const { return get(key); }

  size_t size() const noexcept { return parameters_.size(); }
  bool empty() const noexcept { return parameters_.is_empty(); }
  Iterator begin() { return parameters_.begin(); }
  Iterator end() { return parameters_.end(); }
  ConstIterator begin() const { return parameters_.begin(); }
  ConstIterator end() const { return parameters_.end(); }
};
NABLA_MODULE(ParameterDict);

}  // namespace nabla::nn
