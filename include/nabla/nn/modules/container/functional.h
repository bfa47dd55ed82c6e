#pragma once
// Functional: wraps a function of one tensor as a module, so it can sit in a Sequential:
//   nn::Sequential net(nn::Linear(4, 4), nn::Functional(nabla::relu));
//   nn::Functional(nabla::leaky_relu, 0.2)   // extra arguments bound after the input
#include <functional>
#include <utility>

#include "nabla/nn/cloneable.h"

namespace nabla::nn {

class FunctionalImpl : public Cloneable<FunctionalImpl> {
 public:
  using Function = std::function<Tensor(Tensor)>;

  explicit FunctionalImpl(Function function);
  template <class F, class Arg, class... Args>
  explicit FunctionalImpl(F&& f, Arg&& arg, Args&&... args)
      : FunctionalImpl(Function([f = std::forward<F>(f),
                                 bound = std::make_tuple(std::forward<Arg>(arg),
                                                         std::forward<Args>(args)...)](Tensor x) {
          return std::apply([&](const auto&... a) { return f(x, a...); }, bound);
        })) {}

  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  bool is_serializable() const override { return false; }

 private:
  Function function_;
};
NABLA_MODULE(Functional);

}  // namespace nabla::nn
