// A tour of what nabla does today: factories, views, broadcasting, type promotion,
// reductions, matmul, indexing, printing and clear errors. Written as a LibTorch
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
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::cout << "matmul [256x512]@[512x128] in " << ms << " ms; mean " << c.mean().item<float>()
            << ", std " << c.std().item<float>() << " (expect ~0 and ~sqrt(512)=22.6)\n";
  auto [values, indices] = nabla::tensor({{3, 9, 2}, {8, 1, 8}}).max(1);
  std::cout << "row max " << values << "\nat " << indices << "\n\n";

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
