// An autograd walk-through (docs/design.md, "Autograd semantics"): the grad_fn chain and its node
// names, vector-Jacobian products, no_grad and detach, higher-order derivatives, a gradient
// penalty, a custom Function, hooks, and the backward graph written as Graphviz DOT
// (autograd_tour.dot).
#include <nabla/autograd/graph_export.h>
#include <nabla/nabla.h>

#include <cstdio>
#include <iostream>

using nabla::Tensor;

// y = x * k with a hand-written backward (LibTorch's MulConstant example).
struct MulConstant : nabla::autograd::Function<MulConstant> {
  static Tensor forward(nabla::autograd::AutogradContext* ctx, Tensor x, double k) {
    ctx->saved_data["k"] = k;
    return x * k;
  }
  static nabla::autograd::variable_list backward(nabla::autograd::AutogradContext* ctx,
                                                 nabla::autograd::variable_list grads) {
    return {grads[0] * ctx->saved_data["k"].toDouble(), Tensor()};
  }
};

int main() {
  std::cout << "== the graph: each result remembers the op that made it ==\n";
  auto x = nabla::tensor({1.0, 2.0, 3.0}).requires_grad_();
  auto y = (x * x + 2).exp().sum();
  std::cout << "y.grad_fn: " << y.grad_fn()->name();
  for (auto node = y.grad_fn(); node && !node->next_edges().empty();
       node = node->next_edges()[0].function)
    if (node->next_edges()[0].function)
      std::cout << " -> " << node->next_edges()[0].function->name();
  std::cout << "\nx is a leaf: " << std::boolalpha << x.is_leaf() << ", y is not: " << y.is_leaf()
            << "\n\n";

  std::cout << "== vector-Jacobian product: backward of a vector output needs a vector ==\n";
  auto v = x * 2;
  v.backward(nabla::tensor({1.0, 0.1, 0.01}));
  std::cout << "d(v . u)/dx = " << x.grad() << "\n";
  x.mutable_grad() = Tensor();

  std::cout << "== no_grad and detach: values without history ==\n";
  {
    nabla::NoGradGuard guard;
    auto z = x * 3;
    std::cout << "under no_grad, requires_grad = " << z.requires_grad() << "\n";
  }
  auto d = (x * 3).detach();
  std::cout << "detach(): requires_grad = " << d.requires_grad()
            << ", shares storage with the result\n\n";

  std::cout << "== higher-order derivatives (create_graph) ==\n";
  auto t = nabla::tensor(2.0, nabla::kDouble).requires_grad_();
  auto f = t.pow(4) + 2 * t.pow(3) + t.pow(2);
  auto d1 = nabla::autograd::grad({f}, {t}, {}, nabla::nullopt, true)[0];
  auto d2 = nabla::autograd::grad({d1}, {t}, {}, nabla::nullopt, true)[0];
  auto d3 = nabla::autograd::grad({d2}, {t})[0];
  std::printf("f = x^4 + 2x^3 + x^2 at 2: f' = %.0f, f'' = %.0f, f''' = %.0f (60, 74, 60)\n\n",
              d1.item<double>(), d2.item<double>(), d3.item<double>());

  std::cout << "== gradient penalty: differentiate a gradient's norm ==\n";
  auto w = nabla::tensor({0.5, -1.0}, nabla::kDouble).requires_grad_();
  auto inp = nabla::tensor({1.0, 2.0}, nabla::kDouble).requires_grad_();
  auto critic = (w * inp).tanh().sum();
  auto g = nabla::autograd::grad({critic}, {inp}, {}, nabla::nullopt, true)[0];
  auto penalty = (g.norm() - 1).pow(2);
  penalty.backward();
  std::cout << "penalty " << penalty.item<double>() << ", d penalty / d w = " << w.grad() << "\n";

  std::cout << "== a custom Function ==\n";
  auto a = nabla::tensor({1.0, 2.0}).requires_grad_();
  auto b = MulConstant::apply(a, 5.0);
  b.sum().backward();
  std::cout << "grad of sum(5 a): " << a.grad() << "\n(node " << b.grad_fn()->name() << ")\n";

  std::cout << "== hooks see (and may change) gradients ==\n";
  auto h = nabla::tensor({1.0, 1.0}).requires_grad_();
  h.register_hook([](Tensor grad) {
    std::cout << "hook saw " << grad << "\n";
    return grad * 10;
  });
  (h * 3).sum().backward();
  std::cout << "h.grad after the hook scaled it: " << h.grad() << "\n";

  auto graph = ((x * x).sin() + x.exp()).sum();
  nabla::utils::save_dot(graph, "autograd_tour.dot");
  std::cout << "the backward graph of sum(sin(x*x) + exp(x)) is in autograd_tour.dot (dot -Tpng)\n";
  return 0;
}
