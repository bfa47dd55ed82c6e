// A tour of what nabla does today: factories, views, broadcasting, type promotion,
// reductions, matmul, indexing, printing, autograd and clear errors. Written as a LibTorch
// program would be, with `torch::` renamed to `nabla::`.
#include <nabla/nabla.h>

#include <chrono>
#include <iostream>

int main() {
  using namespace nabla::indexing;
  nabla::manual_seed(0);

  std::cout << "== factories and printing ==\n";
  auto x = nabla::arange(36, nabla::kFloat).reshape({2, 3, 2, 3});
  std::cout << x << "\n\n";
  std::cout << nabla::tensor({{1.5, -2.25}, {3.0, 4.125}}) << "\n\n";

  std::cout << "== views share storage ==\n";
  auto m = nabla::zeros({3, 4});
  m.index({Slice(), 1}).fill_(7);  // a column view, written through
  m.t()[2].fill_(1);               // row 2 of the transpose is column 2 of m
  std::cout << m << "\n\n";

  std::cout << "== broadcasting and type promotion ==\n";
  auto ints = nabla::tensor({1, 2, 3});
  auto halves = ints / 2;  // int64 / int64 -> float32, as in LibTorch
  std::cout << halves << "\n";
  std::cout << (nabla::ones({2, 1}) + nabla::arange(3)) << "\n\n";

  std::cout << "== reductions and matmul ==\n";
  auto a = nabla::randn({256, 512});
  auto b = nabla::randn({512, 128});
  auto start = std::chrono::steady_clock::now();
  auto c = nabla::matmul(a, b);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::cout << "matmul [256x512]@[512x128] in " << ms << " ms; mean " << c.mean().item<float>()
            << ", std " << c.std().item<float>() << " (expect ~0 and ~sqrt(512)=22.6)\n";
  auto [values, indices] = nabla::tensor({{3, 9, 2}, {8, 1, 8}}).max(1);
  std::cout << "row max " << values << "\nat " << indices << "\n\n";

  std::cout << "== autograd ==\n";
  auto w = nabla::randn({3, 1}, nabla::requires_grad());
  auto xs = nabla::randn({8, 3});
  auto loss = (xs.matmul(w).tanh() - 1).square().mean();
  loss.backward();
  std::cout << "loss " << loss.item<float>() << " grad_fn " << loss.grad_fn()->name()
            << "\nd loss / d w =\n"
            << w.grad() << "\n";
  auto t = nabla::tensor(2.0, nabla::kDouble).requires_grad_();
  auto f = t.pow(4) + 2 * t.pow(3) + t.pow(2);
  auto d1 = nabla::autograd::grad({f}, {t}, {}, nabla::nullopt, /*create_graph=*/true)[0];
  auto d2 = nabla::autograd::grad({d1}, {t}, {}, nabla::nullopt, true)[0];
  std::cout << "f = x^4 + 2x^3 + x^2 at 2: f " << f.item<double>() << ", f' " << d1.item<double>()
            << ", f'' " << d2.item<double>() << " (36, 60, 74)\n\n";

  std::cout << "== clear errors instead of crashes ==\n";
  try {
    nabla::matmul(nabla::ones({2, 3}), nabla::ones({4, 5}));
  } catch (const nabla::Error& e) {
    std::cout << "nabla::Error: " << e.what() << "\n";
  }
  try {
    nabla::ones({2, 3}).view({4, 2});
  } catch (const nabla::Error& e) {
    std::cout << "nabla::Error: " << e.what() << "\n";
  }
  return 0;
}
