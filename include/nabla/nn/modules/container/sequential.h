#pragma once
// Sequential: modules applied one after another, named "0", "1", ... (or by the names
// given), as torch::nn::Sequential:
//   nn::Sequential net(nn::Linear(784, 256), nn::ReLU(), nn::Linear(256, 10));
//   Tensor y = net->forward(x);   // or net(x)
#include <vector>

#include "nabla/nn/cloneable.h"
#include "nabla/nn/modules/container/any.h"

namespace nabla::nn {

class SequentialImpl : public Cloneable<SequentialImpl> {
 public:
  SequentialImpl() = default;
  template <class... Modules>
  explicit SequentialImpl(Modules&&... modules) {
    (push_back(std::forward<Modules>(modules)), ...);
  }
  explicit SequentialImpl(std::vector<NamedAnyModule> named) {
    for (auto& item : named) push_back(item.name(), item.module());
  }
  SequentialImpl(std::initializer_list<NamedAnyModule> named)
      : SequentialImpl(std::vector<NamedAnyModule>(named)) {}

  /// Submodules are the members; clone() copies them (see Cloneable::clone).
  void reset() override;
  std::shared_ptr<Module> clone(const optional<Device>& device = nullopt) const override;
  void pretty_print(std::ostream& stream) const override;

  /// Runs the modules in turn, each on the previous one's output; ReturnType is what the
  /// last one returns (a Tensor chain runs as tensors, other values pass as AnyValues).
  template <class ReturnType = Tensor, class... InputTypes>
  ReturnType forward(InputTypes&&... inputs) {
    NABLA_CHECK(!modules_.empty(), "Cannot call forward() on an empty Sequential");
    if constexpr (std::is_same_v<ReturnType, Tensor> && sizeof...(InputTypes) == 1 &&
                  (std::is_convertible_v<InputTypes&&, const Tensor&> && ...)) {
      return forward_tensor(inputs...);
    } else {
      auto it = modules_.begin();
      AnyValue value = it->any_forward(std::forward<InputTypes>(inputs)...);
      for (++it; it != modules_.end(); ++it) value = it->any_forward(std::move(value));
      ReturnType* result = value.try_get<ReturnType>();
      NABLA_CHECK(result != nullptr, "Sequential::forward: The type of the return value is ",
                  detail::demangled(value.type_info()), ", but you asked for type ",
                  detail::demangled(typeid(ReturnType)));
      return std::move(*result);
    }
  }

  template <class M>
  void push_back(M&& module) {
    push_back(std::to_string(modules_.size()), std::forward<M>(module));
  }
  template <class M>
  void push_back(std::string name, M&& module) {
    push_back(std::move(name), to_any(std::forward<M>(module)));
  }
  void push_back(std::string name, AnyModule module);
  /// Appends every module of another Sequential (or any range of modules).
  template <class Container>
  void extend(const Container& modules) {
    for (const auto& m : modules) push_back(m);
  }

  /// The module at `index` (as LibTorch: a shared_ptr<Module>); any(index) is its AnyModule.
  std::shared_ptr<Module> operator[](size_t index) const { return any(index).ptr(); }
  const AnyModule& any(size_t index) const;
  template <class M>
  M& at(size_t index) {
    auto p = any(index).template ptr<M>();
    NABLA_CHECK(p != nullptr, "Sequential::at: module ", index, " is not a ", typeid(M).name());
    return *p;
  }
  std::shared_ptr<Module> ptr(size_t index) const { return any(index).ptr(); }
  template <class M>
  std::shared_ptr<M> ptr(size_t index) const {
    return any(index).template ptr<M>();
  }
  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  std::vector<AnyModule>::const_iterator begin() const { return modules_.begin(); }
  std::vector<AnyModule>::const_iterator end() const { return modules_.end(); }

 private:
  template <class M>
  static AnyModule to_any(M&& module) {
    using D = std::decay_t<M>;
    if constexpr (std::is_same_v<D, AnyModule>)
      return module;
    else if constexpr (std::is_base_of_v<Module, D>)  // a module by value: stored as a copy
      return AnyModule(std::make_shared<D>(std::forward<M>(module)));
    else
      return AnyModule(std::forward<M>(module));
  }
  Tensor forward_tensor(const Tensor& input);
  std::vector<AnyModule> modules_;
};
/// Sequential's holder also takes a braced list of (name, module) pairs:
///   nn::Sequential net({{"fc", nn::Linear(4, 2)}, {"act", nn::Functional(nabla::relu)}});
class Sequential : public ModuleHolder<SequentialImpl> {
 public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  using Impl = SequentialImpl;
  Sequential() : ModuleHolder() {}
  Sequential(std::initializer_list<NamedAnyModule> named)
      : ModuleHolder(std::make_shared<SequentialImpl>(named)) {}
};

}  // namespace nabla::nn
