#pragma once
// ModuleList: an indexable list of submodules named "0", "1", ... (no forward), and
// ModuleDict: submodules by name in insertion order; as LibTorch's.
#include <string>
#include <vector>

#include "nabla/nn/cloneable.h"

namespace nabla::nn {

class ModuleListImpl : public Cloneable<ModuleListImpl> {
 public:
  using Iterator = std::vector<std::shared_ptr<Module>>::iterator;
  using ConstIterator = std::vector<std::shared_ptr<Module>>::const_iterator;

  ModuleListImpl() = default;
  template <class... Modules>
  explicit ModuleListImpl(Modules&&... modules) {
    (push_back(std::forward<Modules>(modules)), ...);
  }

  void reset() override {}
  std::shared_ptr<Module> clone(const optional<Device>& device = nullopt) const override;
  void pretty_print(std::ostream& stream) const override;

  void push_back(std::shared_ptr<Module> module);
  template <class M>
  void push_back(const ModuleHolder<M>& holder) {
    push_back(std::static_pointer_cast<Module>(holder.ptr()));
  }
  template <class M, class = std::enable_if_t<std::is_base_of_v<Module, M>>>
  void push_back(std::shared_ptr<M> module) {
    push_back(std::static_pointer_cast<Module>(std::move(module)));
  }
  /// A module given by value is stored as a copy (LibTorch's push_back(M&&)).
  template <class M, class = std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>>>>
  void push_back(M&& module) {
    push_back(std::static_pointer_cast<Module>(
        std::make_shared<std::decay_t<M>>(std::forward<M>(module))));
  }
  /// Inserts before `index` (renumbering the names of the modules after it).
  void insert(size_t index, std::shared_ptr<Module> module);
  template <class M>
  void insert(size_t index, const ModuleHolder<M>& holder) {
    insert(index, std::static_pointer_cast<Module>(holder.ptr()));
  }
  template <class M, class = std::enable_if_t<std::is_base_of_v<Module, M>>>
  void insert(size_t index, std::shared_ptr<M> module) {
    insert(index, std::static_pointer_cast<Module>(std::move(module)));
  }
  template <class M, class = std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>>>>
  void insert(size_t index, M&& module) {
    insert(index, std::static_pointer_cast<Module>(
                      std::make_shared<std::decay_t<M>>(std::forward<M>(module))));
  }
  template <class Container>
  void extend(const Container& container) {
    for (const auto& m : container) push_back(m);
  }

  const std::shared_ptr<Module>& ptr(size_t index) const;
  template <class M>
  std::shared_ptr<M> ptr(size_t index) const {
    return std::dynamic_pointer_cast<M>(ptr(index));
  }
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  template <class M>
  M& at(size_t index) {
    auto p = ptr<M>(index);
    NABLA_CHECK(p != nullptr, "ModuleList::at: module ", index, " is not a ", typeid(M).name());
    return *p;
  }
  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  Iterator begin() { return modules_.begin(); }
  Iterator end() { return modules_.end(); }
  ConstIterator begin() const { return modules_.begin(); }
  ConstIterator end() const { return modules_.end(); }

 private:
  void renumber();
  std::vector<std::shared_ptr<Module>> modules_;
};
NABLA_MODULE(ModuleList);

class ModuleDictImpl : public Cloneable<ModuleDictImpl> {
 public:
  ModuleDictImpl() = default;
  explicit ModuleDictImpl(
      const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules);
  explicit ModuleDictImpl(const OrderedDict<std::string, std::shared_ptr<Module>>& modules);

  void reset() override {}
  std::shared_ptr<Module> clone(const optional<Device>& device = nullopt) const override;
  void pretty_print(std::ostream& stream) const override;

  /// Adds or replaces.
  void insert(const std::string& key, std::shared_ptr<Module> module);
  void update(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules);
  /// Inserts (or replaces) every module of `modules` / of another ModuleDict, in order.
  void update(const OrderedDict<std::string, std::shared_ptr<Module>>& modules) {
    for (const auto& item : modules) insert(item.key(), item.value());
  }
  void update(const ModuleDictImpl& other) { update(other.children_); }
  std::shared_ptr<Module> pop(const std::string& key);
  void clear();

  std::shared_ptr<Module> operator[](const std::string& key) const;
  template <class M>
  M& at(const std::string& key) {
    auto p = std::dynamic_pointer_cast<M>((*this)[key]);
    NABLA_CHECK(p != nullptr, "ModuleDict::at: module '", key, "' is not a ", typeid(M).name());
    return *p;
  }
  bool contains(const std::string& key) const { return children_.contains(key); }
  std::vector<std::string> keys() const { return children_.keys(); }
  std::vector<std::shared_ptr<Module>> values() const { return children_.values(); }
  const std::vector<OrderedDict<std::string, std::shared_ptr<Module>>::Item>& items() const {
    return children_.items();
  }
  size_t size() const noexcept { return children_.size(); }
  bool empty() const noexcept { return children_.is_empty(); }
  auto begin() const { return children_.begin(); }
  auto end() const { return children_.end(); }
};
NABLA_MODULE(ModuleDict);

}  // namespace nabla::nn
